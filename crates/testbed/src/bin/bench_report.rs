//! Writes `BENCHMARKS.md` from criterion's results in `target/criterion`: medians, ratios to the
//! peer on the same inputs, and the targets the issues set.
//!
//! Run after the benches: `cargo bench --bench pairs --bench world --bench broad_phase --bench
//! dynamics` then `cargo run -p testbed --bin bench_report`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The median of one benchmark, nanoseconds per iteration, if it was run.
fn median_ns(root: &Path, id: &str) -> Option<f64> {
    let path: PathBuf = root.join(id).join("new").join("estimates.json");
    let text = std::fs::read_to_string(&path).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value["median"]["point_estimate"].as_f64()
}

fn time(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.1} ns")
    } else if ns < 1e6 {
        format!("{:.2} us", ns / 1e3)
    } else {
        format!("{:.2} ms", ns / 1e6)
    }
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{cpu}, {cores} cores available, {}", std::env::consts::OS)
}

fn main() {
    let root = Path::new("target/criterion");
    let mut out = String::new();
    let _ = writeln!(out, "# Benchmarks\n");
    let _ = writeln!(
        out,
        "Criterion medians from one run on the same inputs for both sides (seeded scenes from \
         `testbed::scenes`); ratio = minirigid / peer, lower is faster. Machine: {}. Both \
         sides are built with `-C target-cpu=native` (the workspace's `.cargo/config.toml`). The \
         machine is shared and noisy: compare ratios within one run. Regenerate with `cargo bench \
         --bench pairs --bench world --bench broad_phase --bench dynamics && cargo run -p testbed \
         --bin bench_report`.\n",
        machine()
    );

    let _ = writeln!(
        out,
        "## Pair kernels (per pair, 1,024 inputs per iteration)\n"
    );
    let _ = writeln!(
        out,
        "| kernel | minirigid | peer | peer time | ratio | target | met |"
    );
    let _ = writeln!(out, "|---|---:|---|---:|---:|---:|:-:|");
    let pairs = [
        ("box_box_intersects", "parry3d", Some(0.2)),
        ("box_box_contact", "parry3d_manifold", Some(0.33)),
        ("box_box_contact", "parry3d_contact", None),
        ("sphere_box_contact", "parry3d", Some(0.5)),
        ("ray_box", "parry3d", Some(1.0)),
        ("hull_hull_contact", "parry3d_manifold", Some(0.5)),
    ];
    for (group, peer, target) in pairs {
        let ours = median_ns(root, &format!("{group}/minirigid"));
        let theirs = median_ns(root, &format!("{group}/{peer}"));
        if let (Some(ours), Some(theirs)) = (ours, theirs) {
            let ratio = ours / theirs;
            let _ = writeln!(
                out,
                "| `{group}` | {} | `{peer}` | {} | {ratio:.3} | {} | {} |",
                time(ours / 1024.0),
                time(theirs / 1024.0),
                target.map_or("-".into(), |t| format!("<= {t}")),
                target.map_or("", |t| if ratio <= t { "yes" } else { "no" })
            );
        }
    }

    let _ = writeln!(
        out,
        "\n## Collision detection (broad + narrow phase, per step)\n\nBoth sides pose the same \
         boxes each step and test every overlapping pair (rapier3d's colliders have no body, so \
         they are given `ActiveCollisionTypes::all()`; by default rapier skips such pairs and \
         its narrow phase does nothing). The bench's setup checks that both report the same \
         number of touching pairs.\n"
    );
    let _ = writeln!(
        out,
        "| boxes | minirigid | rapier3d `CollisionPipeline` | ratio | target | met |"
    );
    let _ = writeln!(out, "|---:|---:|---:|---:|---:|:-:|");
    for count in [1_000, 10_000] {
        let ours = median_ns(root, &format!("collision_detection/minirigid/{count}"));
        let theirs = median_ns(root, &format!("collision_detection/rapier3d/{count}"));
        if let (Some(ours), Some(theirs)) = (ours, theirs) {
            let ratio = ours / theirs;
            let target = if count == 10_000 { "<= 0.5" } else { "-" };
            let met = if count == 10_000 {
                if ratio <= 0.5 { "yes" } else { "no" }
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "| {count} | {} | {} | {ratio:.3} | {target} | {met} |",
                time(ours),
                time(theirs)
            );
        }
    }

    let _ = writeln!(
        out,
        "\n## World step in the closed room (`Response::Reflect`)\n"
    );
    let _ = writeln!(out, "| bodies | step | per body | per body vs 1,000 |");
    let _ = writeln!(out, "|---:|---:|---:|---:|");
    let rows: Vec<(u32, Option<f64>)> = [1_000u32, 10_000, 100_000]
        .into_iter()
        .map(|n| (n, median_ns(root, &format!("world_step/minirigid/{n}"))))
        .collect();
    scaling_rows(&mut out, &rows);

    let _ = writeln!(out, "\n## Broad phase alone (every box moving, per step)\n");
    let _ = writeln!(out, "| boxes | `RowSweep` | per box |");
    let _ = writeln!(out, "|---:|---:|---:|");
    for count in [1_000u32, 10_000, 100_000] {
        let median = |name: &str| median_ns(root, &format!("broad_phase_step/{name}/{count}"));
        let shown = |ns: Option<f64>| ns.map_or("-".into(), time);
        let rows = median("row_sweep");
        let _ = writeln!(
            out,
            "| {count} | {} | {} |",
            shown(rows),
            shown(rows.map(|ns| ns / f64::from(count)))
        );
    }

    dynamics(root, &mut out);
    box3d_suite(Path::new("target/box3d_protocol"), &mut out);
    level_queries(root, &mut out);
    // The notes on how each figure was taken, hand-written, after the tables.
    if let Ok(notes) = std::fs::read_to_string("benches/NOTES.md") {
        let _ = writeln!(
            out,
            "\n{}",
            notes.replacen("# Notes", "## Notes", 1).trim_end()
        );
    }

    match std::fs::write("BENCHMARKS.md", &out) {
        Ok(()) => println!("wrote BENCHMARKS.md\n\n{out}"),
        Err(e) => {
            eprintln!("could not write BENCHMARKS.md: {e}");
            std::process::exit(1);
        }
    }
}

/// The dynamics section: the full step side by side with rapier3d on Box3D's scenes, with how
/// far each engine let its most-moved body go (saved by the bench's setup beside criterion's
/// results), and the sleeping pile.
fn dynamics(root: &Path, out: &mut String) {
    let _ = writeln!(
        out,
        "\n## Dynamics (full step, per step)\n\nThe engines step the same scene (built from \
         `testbed::scenes`; rapier3d's by `testbed::peer::rapier_of`: same shapes, masses, \
         friction 0.6, poses) at dt 1/60 with 4 substeps (rapier's `num_solver_iterations`), \
         sleeping off; both solve contacts several at a time in SIMD lanes (minirigid eight in \
         AVX lanes, its default wide solve on this machine; rapier3d four; the tables after the \
         next compare minirigid's with its scalar solve and with four lanes). rapier3d runs \
         twice: as it comes, recycling a pair's contacts (it skips the pair's narrow phase and \
         keeps its last points, normal and lever arms while the pair's relative pose has moved \
         less than 5 cm and neither body turned more than about 11 degrees: \
         `IntegrationParameters::contact_recycling`), and with fresh contacts every step \
         (recycling off), the work minirigid does: every pair's contacts computed exactly every \
         step. The pyramids are timed on steps 200 to 300 of settled pyramids, the large scenes \
         on their first 100 steps (each time the mean over whole windows of 100 steps of fresh \
         copies). A time counts only if the scene still stands: the last columns are each \
         engine's most-moved body after 200 steps (in the falling pile, how far the bodies \
         fell).\n"
    );
    let _ = writeln!(
        out,
        "| scene | dynamic bodies | minirigid | rapier3d | ratio | rapier3d, fresh contacts | ratio | target | met (vs rapier3d / fresh) | moved (minirigid) | moved (rapier3d) | moved (rapier3d, fresh) |"
    );
    let _ = writeln!(
        out,
        "|---|---:|---:|---:|---:|---:|---:|---:|:-:|---:|---:|---:|"
    );
    let scenes: [Scene; 5] = [
        ("pyramid base 20", "pyramid_step", "4_substeps/210", None),
        ("pyramid base 40", "pyramid_step", "4_substeps/820", None),
        (
            "large_pyramid",
            "large_scenes/large_pyramid",
            "/5051",
            Some(0.5),
        ),
        (
            "many_pyramids",
            "large_scenes/many_pyramids",
            "/10781",
            Some(0.5),
        ),
        (
            "falling_pile",
            "large_scenes/falling_pile",
            "/10006",
            Some(0.5),
        ),
    ];
    for (name, group, suffix, target) in scenes {
        let id = |engine: &str| bench_id(group, suffix, engine);
        let ours = median_ns(root, &id("minirigid"));
        let theirs = median_ns(root, &id("rapier3d"));
        let fresh = median_ns(root, &id("rapier3d_fresh_contacts"));
        let (Some(ours), Some(theirs)) = (ours, theirs) else {
            continue;
        };
        let fields = displacement_fields(root, name);
        let metres = |k: usize| metres(&fields, k);
        let met = |peer: Option<f64>| match (target, peer) {
            (Some(t), Some(peer)) => {
                if ours / peer <= t {
                    "yes"
                } else {
                    "no"
                }
            }
            _ => "-",
        };
        let bodies = fields
            .get(1)
            .and_then(|b| b.parse::<usize>().ok())
            .map_or(suffix.rsplit('/').next().unwrap_or("-").to_owned(), |b| {
                b.to_string()
            });
        let _ = writeln!(
            out,
            "| {name} | {bodies} | {} | {} | {:.2} | {} | {} | {} | {} | {} | {} | {} |",
            time(ours),
            time(theirs),
            ours / theirs,
            fresh.map_or("-".into(), time),
            fresh.map_or("-".into(), |f| format!("{:.2}", ours / f)),
            target.map_or("-".into(), |t| format!("<= {t}")),
            if target.is_some() {
                format!("{} / {}", met(Some(theirs)), met(fresh))
            } else {
                String::new()
            },
            metres(3),
            metres(5),
            metres(7),
        );
    }
    reuse_rows(root, out, &scenes);
    variant_rows(
        out,
        root,
        "Two threads against one",
        "minirigid's step on the large scenes with its narrow phase and its solver's groups (a \
         large island's by a crew of every thread) on a rayon pool of two threads, against one \
         (the rows above); the state after any number of steps is the same bits on both \
         (`tests/solver_determinism.rs`).",
        ("two threads", "2_threads", false),
    );
    variant_rows(
        out,
        root,
        "The wide solve against the scalar one",
        "minirigid's step on the large scenes, one thread, with the contact solver running eight \
         constraints at a time in AVX lanes (the default where the build targets AVX, as the \
         workspace's `-C target-cpu=native` does here; the rows above) against one at a time \
         (`World::set_wide_solver(false)`); the state is the same bits on both \
         (`tests/solver_determinism.rs`).",
        ("scalar", "scalar", true),
    );
    variant_rows(
        out,
        root,
        "Eight lanes against four",
        "The same, against four constraints at a time in SSE lanes \
         (`World::set_solver_lanes(SolverLanes::Four)`, the default of a build without AVX); \
         the same bits.",
        ("four lanes", "four_lanes", true),
    );
    let _ = writeln!(
        out,
        "\n### A pile of 1,000 boxes and balls at rest in a closed bin\n\nEach engine's pile is \
         stepped with sleeping on until all of it sleeps, then timed asleep and, from the same \
         poses with sleeping off, awake.\n"
    );
    let _ = writeln!(
        out,
        "| engine | asleep | awake | asleep / awake | target | met |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|:-:|");
    for engine in ["minirigid", "rapier3d"] {
        let asleep = median_ns(root, &format!("sleeping_pile/{engine}_asleep/1000"));
        let awake = median_ns(root, &format!("sleeping_pile/{engine}_awake/1000"));
        if let (Some(asleep), Some(awake)) = (asleep, awake) {
            let share = asleep / awake;
            let (target, met) = if engine == "minirigid" {
                ("<= 5%", if share <= 0.05 { "yes" } else { "no" })
            } else {
                ("-", "")
            };
            let _ = writeln!(
                out,
                "| {engine} | {} | {} | {:.2}% | {target} | {met} |",
                time(asleep),
                time(awake),
                share * 100.0
            );
        }
    }
    steady_scenes(root, out);
    joint_grid(root, out);
    dynamics_scaling(root, out);
}

/// Box3D's joint grid (issue 39): both engines at 4 substeps, the first 100 steps, with how far
/// apart each let the joints' anchors come.
fn joint_grid(root: &Path, out: &mut String) {
    let Some(peer) = median_ns(root, "joint_grid/rapier3d/19800") else {
        return;
    };
    let _ = writeln!(
        out,
        "\n### Box3D's joint grid\n\n9,900 balls on 19,800 spherical joints (`testbed::joints::\
         joint_grid`), one thread, sleeping off, 4 substeps, the mean step over the first 100 \
         steps from creation. The last columns: the largest distance between a joint's two \
         anchors after 100 steps and the lowest ball's height (it starts at -99 m), measured by \
         the bench's setup. Box3D on this machine's kind: 1,189 ms for its 99 timed steps, \
         12.0 ms a step (`../shared/notes/benchmark-suite.md`).\n"
    );
    let _ = writeln!(
        out,
        "| engine | mean step | / rapier3d | target | met | largest anchor gap | lowest ball |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|:-:|---:|---:|");
    let measured = |id: &str| -> [String; 2] {
        let fields = steadiness_fields(root, "joint_grid", id, 2);
        let gap = (fields.first())
            .and_then(|v| v.parse::<f64>().ok())
            .map_or("-".into(), |m| format!("{:.1} mm", 1e3 * m));
        [gap, metres(&fields, 1)]
    };
    let rows = [
        (
            "minirigid (2 joint iterations, the default)",
            "minirigid",
            Some(0.5),
        ),
        (
            "minirigid, 1 joint iteration",
            "minirigid_1_joint_iteration",
            None,
        ),
        (
            "minirigid at Box3D's effort and joint softness",
            "minirigid_box3d_effort",
            None,
        ),
        ("rapier3d", "rapier3d", None),
    ];
    for (name, id, target) in rows {
        let Some(ns) = median_ns(root, &format!("joint_grid/{id}/19800")) else {
            continue;
        };
        let (target, met) = match target {
            Some(t) => (format!("<= {t}"), if ns / peer <= t { "yes" } else { "no" }),
            None => ("-".into(), ""),
        };
        let [gap, low] = measured(id);
        let _ = writeln!(
            out,
            "| {name} | {} | {:.2} | {target} | {met} | {gap} | {low} |",
            time(ns),
            ns / peer,
        );
    }
}

/// Rapier's keva tower at equal steadiness (issue 38): each engine at settings where it holds
/// the tower, its first 100 steps from creation.
fn steady_scenes(root: &Path, out: &mut String) {
    let peer = median_ns(root, "steady_scenes/keva_tower_rapier3d/3685");
    let fresh = median_ns(
        root,
        "steady_scenes/keva_tower_rapier3d_fresh_contacts/3685",
    );
    let Some(peer) = peer else {
        return;
    };
    let _ = writeln!(
        out,
        "\n### Rapier's keva tower at equal steadiness\n\nThe top three blocks of rapier's \
         `keva3` stress test (3,684 planks on edge in crossed layers), one thread, sleeping off, \
         the mean step over the first 100 steps from creation, each engine at settings where \
         it holds the tower. The last columns: how far the top layer moved sideways after 5 and \
         10 s and how many planks fell, each engine from the same start (measured by the \
         bench's setup, `testbed::steadiness`).\n"
    );
    let _ = writeln!(
        out,
        "| engine | mean step | / rapier3d | / rapier3d, fresh contacts | target | met | lean at 5 s | lean at 10 s | fallen |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|:-:|---:|---:|---:|");
    let steady = |id: &str| -> [String; 3] {
        let fields = steadiness_fields(root, "keva_tower", id, 3);
        let fallen = fields.get(2).cloned().unwrap_or_else(|| "-".into());
        [metres(&fields, 0), metres(&fields, 1), fallen]
    };
    let rows = [
        ("minirigid, 4 substeps", "minirigid_4_substeps", Some(0.7)),
        (
            "minirigid, 8 substeps (default)",
            "minirigid_8_substeps",
            None,
        ),
        ("rapier3d", "rapier3d", None),
        ("rapier3d, fresh contacts", "rapier3d_fresh_contacts", None),
    ];
    for (name, id, target) in rows {
        let Some(ns) = median_ns(root, &format!("steady_scenes/keva_tower_{id}/3685")) else {
            continue;
        };
        let (target, met) = match target {
            Some(t) => (format!("<= {t}"), if ns / peer <= t { "yes" } else { "no" }),
            None => ("-".into(), ""),
        };
        let [at_5, at_10, fallen] = steady(id);
        let _ = writeln!(
            out,
            "| {name} | {} | {:.2} | {} | {target} | {met} | {at_5} | {at_10} | {fallen} |",
            time(ns),
            ns / peer,
            fresh.map_or("-".into(), |f| format!("{:.2}", ns / f)),
        );
    }
}

/// The fields the bench's setup saved for scene `name` (tab-separated: name, bodies, steps,
/// then how far the most-moved body went and the contact pairs, for minirigid, rapier3d,
/// rapier3d with fresh contacts and minirigid reusing contacts); none when it saved nothing.
fn displacement_fields(root: &Path, name: &str) -> Vec<String> {
    std::fs::read_to_string(root.join("displacement").join(name))
        .map(|line| line.trim().split('\t').map(str::to_owned).collect())
        .unwrap_or_default()
}

/// The fields after `id` in its row of the steadiness file `name` (a bench's setup writes one
/// tab-separated row per engine), when the row has `count` of them; none otherwise.
fn steadiness_fields(root: &Path, name: &str, id: &str, count: usize) -> Vec<String> {
    let text = std::fs::read_to_string(root.join("steadiness").join(name)).unwrap_or_default();
    text.lines()
        .map(|line| line.split('\t').collect::<Vec<_>>())
        .find(|fields| fields.len() == count + 1 && fields[0] == id)
        .map(|fields| fields[1..].iter().map(|f| (*f).to_owned()).collect())
        .unwrap_or_default()
}

/// Field `k` of a row's fields as metres, `-` when absent.
fn metres(fields: &[String], k: usize) -> String {
    fields
        .get(k)
        .and_then(|v| v.parse::<f64>().ok())
        .map_or("-".into(), |m| format!("{m:.3} m"))
}

/// A scene of the dynamics table: its name, criterion group, the rest of its bench ids, its
/// target ratio.
type Scene = (&'static str, &'static str, &'static str, Option<f64>);

/// The criterion id of `engine`'s row of a scene: `pyramid_step/minirigid_4_substeps/210`,
/// `large_scenes/large_pyramid_minirigid/5051`.
fn bench_id(group: &str, suffix: &str, engine: &str) -> String {
    if let Some(size) = suffix.strip_prefix('/') {
        format!("{group}_{engine}/{size}")
    } else {
        format!("{group}/{engine}_{suffix}")
    }
}

/// The same scenes with contact reuse on both sides: minirigid reusing a pair's contact while
/// it moves less than 5 cm against rapier3d's default recycling (the same distance), with how
/// far each let its most-moved body go.
fn reuse_rows(root: &Path, out: &mut String, scenes: &[Scene]) {
    let _ = writeln!(
        out,
        "\n### Contact reuse on both sides\n\nminirigid with contact reuse \
         (`SolverConfig::reuse_distance` 5 cm: a pair that has moved less than that since its \
         contact was computed keeps its points, carried with the bodies, and skips the narrow \
         phase) against rapier3d as it comes (recycling within the same 5 cm): the same work on \
         both sides. Same scenes, settings and windows as above.\n"
    );
    let _ = writeln!(
        out,
        "| scene | minirigid, reused contacts | rapier3d | ratio | target | met | moved (minirigid, reused) | moved (rapier3d) |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|:-:|---:|---:|");
    for &(name, group, suffix, target) in scenes {
        let id = |engine: &str| bench_id(group, suffix, engine);
        let (Some(ours), Some(theirs)) = (
            median_ns(root, &id("minirigid_reused_contacts")),
            median_ns(root, &id("rapier3d")),
        ) else {
            continue;
        };
        let fields = displacement_fields(root, name);
        let metres = |k: usize| metres(&fields, k);
        let ratio = ours / theirs;
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {ratio:.2} | {} | {} | {} | {} |",
            time(ours),
            time(theirs),
            target.map_or("-".into(), |t| format!("<= {t}")),
            target.map_or("", |t| if ratio <= t { "yes" } else { "no" }),
            metres(9),
            metres(5),
        );
    }
}

/// The per-body cost of the dynamics step as the scene grows (minirigid alone).
fn dynamics_scaling(root: &Path, out: &mut String) {
    let rows: Vec<(u32, Option<f64>)> = [990u32, 10_010, 101_695]
        .into_iter()
        .map(|n| {
            let id = format!("dynamics_scaling/many_pyramids_minirigid/{n}");
            (n, median_ns(root, &id))
        })
        .collect();
    if rows[0].1.is_none() {
        return;
    }
    let _ = writeln!(
        out,
        "\n### Per-body cost of the step as the scene grows\n\nBox3D's many pyramids of base 10 \
         in grids of 2 x 9, 14 x 13 and 43 x 43 pyramids, 4 substeps, sleeping off, the mean \
         of their first 10 steps (minirigid alone; the first step of a new world also allocates \
         and first touches the solver's buffers).\n"
    );
    let _ = writeln!(
        out,
        "| cubes | step | per cube | per cube vs the smallest |"
    );
    let _ = writeln!(out, "|---:|---:|---:|---:|");
    scaling_rows(out, &rows);
}

/// The rows of a per-body cost table, one per scene size with its median step: the step, the
/// cost per body and its growth against the first size; then the verdict on the 1.5x target
/// (met when every size was measured and none grew more).
fn scaling_rows(out: &mut String, rows: &[(u32, Option<f64>)]) {
    let base = rows
        .first()
        .and_then(|&(n, ns)| ns.map(|ns| ns / f64::from(n)));
    let mut worst: f64 = 0.0;
    for &(n, median) in rows {
        if let Some(ns) = median {
            let per_body = ns / f64::from(n);
            let growth = base.map_or(f64::NAN, |b| per_body / b);
            worst = worst.max(growth);
            let _ = writeln!(
                out,
                "| {n} | {} | {} | {growth:.2}x |",
                time(ns),
                time(per_body)
            );
        }
    }
    let measured = base.is_some() && rows.iter().all(|(_, ns)| ns.is_some());
    let _ = writeln!(
        out,
        "\nTarget: per-body cost grows by at most 1.5x from 1,000 to 100,000 bodies: {}.",
        if measured && worst <= 1.5 {
            "met"
        } else {
            "not met"
        }
    );
}

/// A table of minirigid's step on the large scenes, one thread and the default solve, against
/// the variant whose rows end in `_{suffix}` (named `column`), with the speed-up of the variant
/// over the default, or of the default over the variant when `default_faster` (the variant is
/// the plainer way).
fn variant_rows(
    out: &mut String,
    root: &Path,
    title: &str,
    intro: &str,
    (column, suffix, default_faster): (&str, &str, bool),
) {
    let _ = writeln!(out, "\n### {title}\n\n{intro}\n");
    let speed_up = if default_faster {
        "speed-up of the default"
    } else {
        "speed-up"
    };
    let _ = writeln!(out, "| scene | default | {column} | {speed_up} |");
    let _ = writeln!(out, "|---|---:|---:|---:|");
    for (name, bodies) in [
        ("large_pyramid", 5051),
        ("many_pyramids", 10781),
        ("falling_pile", 10006),
    ] {
        let one = median_ns(root, &format!("large_scenes/{name}_minirigid/{bodies}"));
        let variant = median_ns(
            root,
            &format!("large_scenes/{name}_minirigid_{suffix}/{bodies}"),
        );
        if let (Some(one), Some(variant)) = (one, variant) {
            let _ = writeln!(
                out,
                "| {name} | {} | {} | {:.2}x |",
                time(one),
                time(variant),
                if default_faster {
                    variant / one
                } else {
                    one / variant
                }
            );
        }
    }
}

/// The `threads,ms` rows of a Box3D-protocol CSV (ours or Box3D's), if it was written.
fn protocol_rows(path: &Path) -> Vec<(u32, f64)> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let (threads, ms) = line.split_once(',')?;
            Some((threads.trim().parse().ok()?, ms.trim().parse().ok()?))
        })
        .collect()
}

/// Box3D's suite by Box3D's protocol: `box3d_protocol`'s CSVs beside the ones Box3D's own
/// `benchmark` writes, copied into `target/box3d_protocol/box3d/` when run on the same machine.
fn box3d_suite(dir: &Path, out: &mut String) {
    let scenes = [
        "large_pyramid",
        "many_pyramids",
        "large_world",
        "joint_grid",
        "convex_pile",
        "washer",
        "large_world_32",
        "large_world_50",
    ];
    let rows: Vec<_> = scenes
        .iter()
        .map(|name| {
            let ours = protocol_rows(&dir.join(format!("{name}.csv")));
            let theirs = protocol_rows(&dir.join("box3d").join(format!("{name}.csv")));
            let rapier = protocol_rows(&dir.join("rapier3d").join(format!("{name}.csv")));
            (name, ours, theirs, rapier)
        })
        .filter(|(_, ours, _, _)| !ours.is_empty())
        .collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n## Box3D's suite by Box3D's protocol\n\nThe scenes of Box3D's `benchmark` that \
         minirigid builds, by its protocol: a fresh world per run, step 0 untimed, the total of \
         the timed steps, the minimum over runs (`cargo run --release -p testbed --bin \
         box3d_protocol -- all 2 1..2`, which writes `target/box3d_protocol/*.csv`); Box3D's own \
         `benchmark -t=2 -r=2` run beside it on this machine, its CSVs copied into \
         `target/box3d_protocol/box3d/`. `large_world_G` is the large world with G x G static \
         boxes (ours only): at G = 50, as at 1,000, the balls land on the corners of four boxes; \
         at G = 32 in the middle of one. The goal: half Box3D's time or better. rapier3d 0.36 \
         runs the same scenes by the same protocol (`box3d_protocol -- --rapier3d all 2 1`, \
         one thread: it is built without its `parallel` feature), carried over body for body \
         and joint for joint from ours with its defaults (4 solver iterations, contacts \
         recycled), static bodies as colliders without a body as its own ports \
         (`examples3d/b3d_*.rs`) build them; its port of the large pyramid has base 200, \
         Box3D's and ours 100.\n"
    );
    let _ = writeln!(
        out,
        "| scene | threads | minirigid | Box3D | ratio | rapier3d | ratio |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|");
    let cell =
        |peer: &[(u32, f64)], threads: u32, ms: f64| match peer.iter().find(|(t, _)| *t == threads)
        {
            Some(&(_, p)) => (format!("{p:.1} ms"), format!("{:.2}", ms / p)),
            None => ("-".into(), "-".into()),
        };
    for (name, ours, theirs, rapier) in rows {
        for (threads, ms) in ours {
            let (b, b_ratio) = cell(&theirs, threads, ms);
            let (r, r_ratio) = cell(&rapier, threads, ms);
            let _ = writeln!(
                out,
                "| {name} | {threads} | {ms:.1} ms | {b} | {b_ratio} | {r} | {r_ratio} |"
            );
        }
    }
}

/// Ray casts and AABB queries in the large world as its static boxes grow
/// (`cargo bench --bench world -- large_world_queries`).
fn level_queries(root: &Path, out: &mut String) {
    let small = "large_world_queries/query_aabb/1024";
    if median_ns(root, small).is_none() {
        return;
    }
    let _ = writeln!(
        out,
        "\n## Queries among static boxes\n\n1,000 rays cast down at Box3D's large world's \
         floor, and 1,000 boxes of up to 3 m a side queried on it, through the world (the \
         resting bodies' tree and the moving ones), as the static boxes grow; and the scan of \
         every body the queries were before the tree.\n"
    );
    let _ = writeln!(
        out,
        "| query (1,000 of them) | 1,024 static boxes | 1,000,000 | growth |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|");
    for (label, id) in [
        ("cast_ray", "cast_ray"),
        ("query_aabb", "query_aabb"),
        ("scan of every body (AABB)", "scan_aabb"),
    ] {
        let a = median_ns(root, &format!("large_world_queries/{id}/1024"));
        let b = median_ns(root, &format!("large_world_queries/{id}/1000000"));
        let show = |v: Option<f64>| v.map_or("-".into(), time);
        let growth = match (a, b) {
            (Some(a), Some(b)) => format!("{:.2}x", b / a),
            _ => "-".into(),
        };
        let _ = writeln!(out, "| {label} | {} | {} | {growth} |", show(a), show(b));
    }
}
