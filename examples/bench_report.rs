//! Writes `BENCHMARKS.md` from criterion's results in `target/criterion`: medians, ratios to the
//! peer on the same inputs, and the targets of DESIGN.md.
//!
//! Run after the benches: `cargo bench --bench pairs --bench world --bench broad_phase` then
//! `cargo run --example bench_report`.

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
         `minirigid::scenes`); ratio = minirigid / peer, lower is faster. Machine: {}. The \
         machine is shared and noisy: compare ratios within one run. Regenerate with `cargo bench \
         --bench pairs --bench world --bench broad_phase && cargo run --example bench_report`.\n",
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
    let base = median_ns(root, "world_step/minirigid/1000").map(|ns| ns / 1000.0);
    let mut worst: f64 = 0.0;
    for count in [1_000u32, 10_000, 100_000] {
        if let Some(ns) = median_ns(root, &format!("world_step/minirigid/{count}")) {
            let per_body = ns / f64::from(count);
            let growth = base.map_or(f64::NAN, |b| per_body / b);
            worst = worst.max(growth);
            let _ = writeln!(
                out,
                "| {count} | {} | {} | {growth:.2}x |",
                time(ns),
                time(per_body)
            );
        }
    }
    let _ = writeln!(
        out,
        "\nTarget: per-body cost grows by at most 1.5x from 1,000 to 100,000 bodies: {}.",
        if worst <= 1.5 { "met" } else { "not met" }
    );

    let _ = writeln!(out, "\n## Broad phase alone (every box moving, per step)\n");
    let _ = writeln!(
        out,
        "| boxes | `RowSweep` (default) | per box | `LinearBvh` | `SweepAndPrune` |"
    );
    let _ = writeln!(out, "|---:|---:|---:|---:|---:|");
    for count in [1_000u32, 10_000, 100_000] {
        let median = |name: &str| median_ns(root, &format!("broad_phase_step/{name}/{count}"));
        let shown = |ns: Option<f64>| ns.map_or("-".into(), time);
        let rows = median("row_sweep");
        let _ = writeln!(
            out,
            "| {count} | {} | {} | {} | {} |",
            shown(rows),
            shown(rows.map(|ns| ns / f64::from(count))),
            shown(median("linear_bvh")),
            shown(median("sweep_and_prune"))
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
