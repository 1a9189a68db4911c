//! The full dynamics step on Box3D's pyramid (`scenes::pyramid`), side by side with rapier3d
//! 0.36 on the same cubes: dt 1/60, 4 substeps (rapier's `num_solver_iterations`), friction
//! 0.6, restitution 0, density 1, sleeping off on both sides. minirigid also at its default of
//! 8 substeps. rapier3d runs twice: as it comes (its contacts recycled while a pair barely
//! moves, see `Contacts`) and with fresh contacts every step, the work minirigid does. The
//! setup steps the worlds 200 steps first and prints, for each, the contacts it holds and how
//! far the cube that moved most has moved (the pyramids must stand and hold the same contacts
//! for the comparison to count). Each engine is timed on steps 200 to 300 of freshly settled
//! pyramids, the mean over whole windows (see `timed_windows`).
//!
//! The large scenes of issue 13 (`large_scenes`), both engines built from the same minirigid
//! scene by `rapier_of`, sleeping off: Box3D's large pyramid (base 100, 5,050 cubes) and many
//! pyramids (14 x 14 of base 10, 10,780 cubes), each timed on its first `WINDOW` steps from
//! creation as Box3D's benchmark does, and a pile of 10,000 boxes and balls falling into a
//! closed bin (steps 1 to 100). `sleeping_pile`: a pile of 1,000 bodies at rest, sleeping on
//! against sleeping off, in each engine. `dynamics_scaling`: minirigid's per-body cost on many
//! pyramids of about 1,000, 10,000 and 100,000 cubes, their first `SCALING_WINDOW` steps.
//! minirigid runs on one thread (rayon's global pool is built with one) as rapier3d does; the
//! large scenes also time minirigid on a pool of two threads (`minirigid_2_threads`). The
//! pyramids at 4 substeps and the large scenes also time minirigid with contact reuse
//! (`minirigid_reused_contacts`, within `REUSE_DISTANCE`, rapier3d's recycling distance), the
//! same work as rapier3d's default.
//! `steady_scenes`: rapier's keva tower at equal steadiness (issue 38), each engine at the
//! settings where it holds the tower. `joint_grid`: Box3D's grid of 9,900 balls on 19,800
//! spherical joints (issue 39), both engines at 4 substeps, its first `WINDOW` steps; the
//! setup prints how far each engine lets the joints come apart.
//! Run: `cargo bench --bench dynamics` (the large scenes take minutes).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use minirigid::prelude::*;
use rapier3d::prelude::PhysicsWorld;
use std::hint::black_box;
use std::time::{Duration, Instant};
use testbed::joints::joint_grid;
use testbed::peer::{Contacts, rapier_of};
use testbed::scenes::{bin, keva_tower, many_pyramids, pyramid};
use testbed::steadiness::{Engine, tower_at_5_and_10_s};

const SETTLE_STEPS: usize = 200;
/// minirigid's contact reuse distance in the rows that compare it with rapier3d's default
/// recycling: rapier3d's (`normalized_contact_recycle_distance`, 5 cm at unit length).
const REUSE_DISTANCE: Real = 0.05;

/// One rapier3d step; returns the contact pairs it holds (so that the step is not optimised
/// away).
fn rapier_step(peer: &mut PhysicsWorld) -> usize {
    peer.step();
    peer.narrow_phase.contact_pairs().count()
}

/// minirigid's `world` with sleeping on or off and `substeps` substeps.
fn configured(mut world: World, substeps: u32, sleeping: bool) -> World {
    let mut config = *world.config();
    config.solver.substeps = substeps;
    config.sleep.enabled = sleeping;
    world.set_config(config).expect("valid settings");
    world
}

/// `world` with contact reuse within [`REUSE_DISTANCE`].
fn reusing(mut world: World) -> World {
    let mut config = *world.config();
    config.solver.reuse_distance = REUSE_DISTANCE;
    world.set_config(config).expect("valid settings");
    world
}

/// How many steps each timing covers: steps `SETTLE_STEPS` to `SETTLE_STEPS + WINDOW` of a
/// settled pyramid, steps 1 to `WINDOW` of a large scene. Without it, criterion steps one world
/// thousands of times, and a scene that falls apart (Box3D's large pyramid does in minirigid at
/// 4 substeps) is cheaper than the standing one it started as.
const WINDOW: usize = 100;

/// The per-body scaling scenes' window: their first `SCALING_WINDOW` steps (a window of 100
/// steps of 100,000 cubes would take a minute per sample).
const SCALING_WINDOW: usize = 10;

/// The time of `iters` steps at the mean step time over whole windows of `window` steps, each
/// on a world freshly built by `build` (untimed): every sample, however many iterations
/// criterion asks for, times the same steps of the same scene on both engines (a scene whose
/// steps grow dearer as it falls together, as the pile does, would otherwise be timed on its
/// first few steps in one engine and on more in the other).
fn timed_windows<W>(
    iters: u64,
    window: usize,
    build: &impl Fn() -> W,
    step: &impl Fn(&mut W) -> usize,
) -> Duration {
    let windows = iters.div_ceil(window as u64).max(1);
    let mut total = Duration::ZERO;
    for _ in 0..windows {
        let mut world = build();
        for _ in 0..window {
            let start = Instant::now();
            black_box(step(&mut world));
            total += start.elapsed();
        }
    }
    total.mul_f64(iters as f64 / (windows as f64 * window as f64))
}

/// [`timed_windows`] over `WINDOW` steps.
fn timed_steps<W>(iters: u64, build: &impl Fn() -> W, step: &impl Fn(&mut W) -> usize) -> Duration {
    timed_windows(iters, WINDOW, build, step)
}

/// minirigid's solver spreads large colours over rayon's global pool: one thread, as rapier3d
/// runs here, unless a row says otherwise.
fn one_thread() {
    // Only the first call builds it; the later ones find it built.
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global();
    assert_eq!(rayon::current_num_threads(), 1);
}

fn pyramid_step(c: &mut Criterion) {
    one_thread();
    let mut group = c.benchmark_group("pyramid_step");
    group.sample_size(20);
    for base in [20, 40] {
        let scene = pyramid(base).0;
        displacement_report(&format!("pyramid base {base}"), &scene, SETTLE_STEPS);
        let cubes = base * (base + 1) / 2;
        for substeps in [4, 8] {
            let build = || {
                let mut world = configured(scene.clone(), substeps, false);
                for _ in 0..SETTLE_STEPS {
                    world.step();
                }
                world
            };
            let step = |world: &mut World| {
                world.step();
                world.contacts().len()
            };
            let name = format!("minirigid_{substeps}_substeps");
            group.bench_function(BenchmarkId::new(name, cubes), |b| {
                b.iter_custom(|iters| timed_steps(iters, &build, &step))
            });
            if substeps == 4 {
                let build = || {
                    let mut world = reusing(configured(scene.clone(), substeps, false));
                    for _ in 0..SETTLE_STEPS {
                        world.step();
                    }
                    world
                };
                let name = "minirigid_reused_contacts_4_substeps";
                group.bench_function(BenchmarkId::new(name, cubes), |b| {
                    b.iter_custom(|iters| timed_steps(iters, &build, &step))
                });
            }
        }
        for (contacts, name) in [
            (Contacts::Recycled, "rapier3d_4_substeps"),
            (Contacts::Fresh, "rapier3d_fresh_contacts_4_substeps"),
        ] {
            let build = || {
                let (mut peer, _) = rapier_of(&scene, false, contacts);
                for _ in 0..SETTLE_STEPS {
                    peer.step();
                }
                peer
            };
            group.bench_function(BenchmarkId::new(name, cubes), |b| {
                b.iter_custom(|iters| timed_steps(iters, &build, &rapier_step))
            });
        }
    }
    group.finish();
}

/// The largest displacement of any dynamic body of `scene` after `steps` steps, in minirigid
/// and in rapier with its contacts recycled and fresh (all from `scene`'s poses, sleeping off,
/// 4 substeps), and the contact pairs each holds at the end (the scenes must stand and hold the
/// same contacts for a comparison to count): minirigid's pairs solved (touching or
/// speculative) and touching, rapier's pairs with active contacts.
fn displacement_report(name: &str, scene: &World, steps: usize) {
    let dynamic_positions = |world: &World| -> Vec<Vector3> {
        world
            .bodies()
            .filter(|(_, body)| body.kind() == BodyKind::Dynamic)
            .map(|(_, body)| body.position().coords)
            .collect()
    };
    let mut ours = configured(scene.clone(), 4, false);
    let starts = dynamic_positions(&ours);
    // The largest displacement of a dynamic body of a minirigid world stepped `steps` times.
    let stepped_moved = |world: &mut World| {
        for _ in 0..steps {
            world.step();
        }
        dynamic_positions(world)
            .iter()
            .zip(&starts)
            .map(|(p, start)| (p - start).norm())
            .fold(0.0, Real::max)
    };
    let moved = stepped_moved(&mut ours);
    let mut row = format!(
        "{name}\t{}\t{steps}\t{moved}\t{}",
        starts.len(),
        ours.stage_counts().touching,
    );
    let mut peers = String::new();
    for (contacts, label) in [
        (Contacts::Recycled, "rapier3d"),
        (Contacts::Fresh, "rapier3d with fresh contacts"),
    ] {
        let (mut peer, handles) = rapier_of(scene, false, contacts);
        for _ in 0..steps {
            peer.step();
        }
        let peer_moved = handles
            .iter()
            .zip(&starts)
            .map(|((_, h), start)| {
                let t = peer.bodies[*h].translation();
                (Vector3::new(t.x, t.y, t.z) - start).norm()
            })
            .fold(0.0, Real::max);
        let peer_contacts = peer
            .narrow_phase
            .contact_pairs()
            .filter(|pair| pair.has_any_active_contact())
            .count();
        row.push_str(&format!("\t{peer_moved}\t{peer_contacts}"));
        peers.push_str(&format!(
            "; {label} {peer_contacts} pairs with active contacts, largest displacement \
             {peer_moved:.4} m"
        ));
    }
    let mut reuser = reusing(configured(scene.clone(), 4, false));
    let reuser_moved = stepped_moved(&mut reuser);
    row.push_str(&format!("\t{reuser_moved}\t{}", reuser.contacts().len()));
    peers.push_str(&format!(
        "; minirigid reusing contacts {} touching pairs ({} reused in the last step), largest \
         displacement {reuser_moved:.4} m",
        reuser.contacts().len(),
        reuser.reused_contact_count()
    ));
    eprintln!(
        "{name} ({} bodies) after {steps} steps, 4 substeps: minirigid {} contact pairs solved \
         ({} of them touching), largest displacement {moved:.4} m{peers}",
        starts.len(),
        ours.stage_counts().touching,
        ours.contacts().len(),
    );
    // For the report tool (`cargo run -p testbed --bin bench_report`), beside criterion's results.
    row.push('\n');
    let dir = std::path::Path::new("target/criterion/displacement");
    if let Err(e) = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(dir.join(name), row))
    {
        eprintln!("could not save the displacement of {name}: {e}");
    }
}

fn large_scenes(c: &mut Criterion) {
    one_thread();
    let two_threads = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("a pool of two threads");
    let mut group = c.benchmark_group("large_scenes");
    group.sample_size(10);
    type Scene = fn() -> World;
    let scenes: [(&str, Scene); 3] = [
        ("large_pyramid", || pyramid(100).0),
        ("many_pyramids", || many_pyramids(14, 14, 10).0),
        ("falling_pile", || bin(10_000, 7, true).0),
    ];
    for (name, scene) in scenes {
        let template = scene();
        displacement_report(name, &template, SETTLE_STEPS);
        let bodies = template.len();
        let build = || configured(template.clone(), 4, false);
        let step = |world: &mut World| {
            world.step();
            world.contacts().len()
        };
        group.bench_function(BenchmarkId::new(format!("{name}/minirigid"), bodies), |b| {
            b.iter_custom(|iters| timed_steps(iters, &build, &step))
        });
        let scalar = || {
            let mut world = build();
            world.set_wide_solver(false);
            world
        };
        let id = BenchmarkId::new(format!("{name}/minirigid_scalar"), bodies);
        group.bench_function(id, |b| {
            b.iter_custom(|iters| timed_steps(iters, &scalar, &step))
        });
        if SolverLanes::WIDEST != SolverLanes::Four {
            let four = || {
                let mut world = build();
                world.set_solver_lanes(SolverLanes::Four);
                world
            };
            let id = BenchmarkId::new(format!("{name}/minirigid_four_lanes"), bodies);
            group.bench_function(id, |b| {
                b.iter_custom(|iters| timed_steps(iters, &four, &step))
            });
        }
        let id = BenchmarkId::new(format!("{name}/minirigid_2_threads"), bodies);
        group.bench_function(id, |b| {
            b.iter_custom(|iters| two_threads.install(|| timed_steps(iters, &build, &step)))
        });
        let reused = || reusing(build());
        let id = BenchmarkId::new(format!("{name}/minirigid_reused_contacts"), bodies);
        group.bench_function(id, |b| {
            b.iter_custom(|iters| timed_steps(iters, &reused, &step))
        });
        for (contacts, peer) in [
            (Contacts::Recycled, "rapier3d"),
            (Contacts::Fresh, "rapier3d_fresh_contacts"),
        ] {
            let build = || rapier_of(&template, false, contacts).0;
            group.bench_function(BenchmarkId::new(format!("{name}/{peer}"), bodies), |b| {
                b.iter_custom(|iters| timed_steps(iters, &build, &rapier_step))
            });
        }
    }
    group.finish();
}

/// The scenes of issue 38 at equal steadiness: rapier's keva tower (its top three blocks, 3,684
/// planks), its first `WINDOW` steps from creation, one thread, sleeping off, each engine at
/// settings where it holds the tower (`tests/steadiness.rs` checks them; the setup measures
/// and saves how steady each stays, [`tower_steadiness_report`]): minirigid at 4 substeps and
/// at its default of 8, rapier3d as it comes (4 substeps, contacts recycled) and with fresh
/// contacts.
fn steady_scenes(c: &mut Criterion) {
    one_thread();
    let mut group = c.benchmark_group("steady_scenes");
    group.sample_size(10);
    let (template, planks) = keva_tower(3);
    tower_steadiness_report(&template, &planks);
    let bodies = template.len();
    let step = |world: &mut World| {
        world.step();
        world.contacts().len()
    };
    for substeps in [4, 8] {
        let build = || configured(template.clone(), substeps, false);
        let id = BenchmarkId::new(format!("keva_tower/minirigid_{substeps}_substeps"), bodies);
        group.bench_function(id, |b| {
            b.iter_custom(|iters| timed_steps(iters, &build, &step))
        });
    }
    for (contacts, peer) in [
        (Contacts::Recycled, "rapier3d"),
        (Contacts::Fresh, "rapier3d_fresh_contacts"),
    ] {
        let build = || rapier_of(&template, false, contacts).0;
        group.bench_function(
            BenchmarkId::new(format!("keva_tower/{peer}"), bodies),
            |b| b.iter_custom(|iters| timed_steps(iters, &build, &rapier_step)),
        );
    }
    group.finish();
}

/// How steady each engine of [`steady_scenes`] holds the keva tower: its top's lean after 5 and
/// 10 s (300 and 600 steps) and the planks fallen by then, printed and saved for the report
/// tool (`target/criterion/steadiness/keva_tower`: a line per engine, tab-separated name, lean
/// at 5 s, lean at 10 s, fallen).
fn tower_steadiness_report(scene: &World, planks: &[BodyHandle]) {
    let engines: [(&str, Engine); 4] = [
        ("minirigid_4_substeps", Engine::minirigid(scene, planks, 4)),
        ("minirigid_8_substeps", Engine::minirigid(scene, planks, 8)),
        (
            "rapier3d",
            Engine::rapier_with(scene, planks, Contacts::Recycled),
        ),
        (
            "rapier3d_fresh_contacts",
            Engine::rapier_with(scene, planks, Contacts::Fresh),
        ),
    ];
    let mut lines = String::new();
    for (name, mut engine) in engines {
        let [at_5, at_10] = tower_at_5_and_10_s(&mut engine);
        eprintln!(
            "keva tower, {name}: top leans {:.4} m after 5 s, {:.4} m after 10 s; {} planks fell",
            at_5.lean, at_10.lean, at_10.fallen
        );
        lines.push_str(&format!(
            "{name}\t{}\t{}\t{}\n",
            at_5.lean, at_10.lean, at_10.fallen
        ));
    }
    let dir = std::path::Path::new("target/criterion/steadiness");
    if let Err(e) =
        std::fs::create_dir_all(dir).and_then(|()| std::fs::write(dir.join("keva_tower"), lines))
    {
        eprintln!("could not save the keva tower's steadiness: {e}");
    }
}

/// Per-body cost as the scene grows: Box3D's many pyramids of base 10 (55 cubes each) in grids
/// of 2 x 9, 14 x 13 and 43 x 43 pyramids (990, 10,010 and 101,695 cubes), 4 substeps, sleeping
/// off, timed on their first `SCALING_WINDOW` steps.
fn scaling(c: &mut Criterion) {
    one_thread();
    let mut group = c.benchmark_group("dynamics_scaling");
    group.sample_size(10);
    for (rows, columns) in [(2, 9), (14, 13), (43, 43)] {
        let template = many_pyramids(rows, columns, 10).0;
        let cubes = template.len() - 1;
        let build = || configured(template.clone(), 4, false);
        let step = |world: &mut World| {
            world.step();
            world.contacts().len()
        };
        group.bench_function(BenchmarkId::new("many_pyramids_minirigid", cubes), |b| {
            b.iter_custom(|iters| timed_windows(iters, SCALING_WINDOW, &build, &step))
        });
    }
    group.finish();
}

/// A pile of `count` bodies in the closed bin, stepped in minirigid (sleeping on, 4 substeps)
/// until every body sleeps: at rest. (Timed at 99% asleep, as it once was, the row measured
/// the last few bodies still moving: one of them could wake an island of half the pile in the
/// next step, and the row then timed its settling again, diluted by however many steps
/// criterion ran per sample.)
fn rested_pile(count: usize) -> World {
    let mut world = configured(bin(count, 7, true).0, 4, true);
    for _ in 0..20_000 {
        world.step();
        if world.sleeping_count() == count {
            return world;
        }
    }
    panic!("the pile never fell asleep");
}

fn sleeping_pile(c: &mut Criterion) {
    one_thread();
    let mut group = c.benchmark_group("sleeping_pile");
    group.sample_size(20);
    let count = 1_000;
    let rested = rested_pile(count);
    eprintln!(
        "pile of {count} at rest after {} steps: {} asleep",
        rested.step_count(),
        rested.sleeping_count()
    );
    // Sleeping, the rested pile as it is; awake, the same poses with sleeping off.
    for sleeping in [true, false] {
        let world = configured(rested.clone(), 4, sleeping);
        let label = if sleeping { "asleep" } else { "awake" };
        group.bench_function(BenchmarkId::new(format!("minirigid_{label}"), count), |b| {
            b.iter_custom(|iters| {
                let mut world = world.clone();
                let start = Instant::now();
                for _ in 0..iters {
                    world.step();
                }
                black_box(world.contacts().len());
                start.elapsed()
            })
        });
        let (mut peer, handles) = rapier_of(&rested, sleeping, Contacts::Recycled);
        if sleeping {
            // rapier's own sleep: step until its islands sleep too.
            let mut steps = 0;
            let awake = |peer: &PhysicsWorld| {
                handles
                    .iter()
                    .filter(|(_, h)| !peer.bodies[*h].is_sleeping())
                    .count()
            };
            while awake(&peer) > 0 {
                peer.step();
                steps += 1;
                assert!(steps < 20_000, "rapier's pile never fell asleep");
            }
            eprintln!(
                "rapier3d's pile: {} of {count} asleep after {steps} more steps",
                count - awake(&peer)
            );
        }
        group.bench_function(BenchmarkId::new(format!("rapier3d_{label}"), count), |b| {
            b.iter_custom(|iters| {
                let start = Instant::now();
                for _ in 0..iters {
                    peer.step();
                }
                black_box(peer.narrow_phase.contact_pairs().count());
                start.elapsed()
            })
        });
    }
    group.finish();
}

/// Box3D's joint grid (`testbed::joints::joint_grid`, 100 x 100 balls, 19,800 spherical
/// joints, sleeping off), its first `WINDOW` steps from creation, one thread, both engines at
/// Box3D's 4 substeps: minirigid at its default 2 joint iterations per pass and at Box3D's 1,
/// rapier3d as it comes. The setup steps each for `WINDOW` steps and prints how far apart the
/// joints' anchors have come (the largest gap) and how far the grid's lowest corner has sagged.
fn joint_grid_scene(c: &mut Criterion) {
    one_thread();
    let mut group = c.benchmark_group("joint_grid");
    group.sample_size(10);
    let template = configured(joint_grid(100), 4, false);
    let joints = template.joint_count();
    // Each engine's largest anchor gap and lowest ball after `WINDOW` steps, for bench_report.
    let mut quality = String::new();
    let with_iterations = |n: u32| {
        let mut world = template.clone();
        let mut config = *world.config();
        config.solver.joint_iterations = n;
        world.set_config(config).expect("valid settings");
        world
    };
    let step = |world: &mut World| {
        world.step();
        world.contacts().len()
    };
    let default = SolverConfig::default().joint_iterations;
    type Build<'a> = Box<dyn Fn() -> World + 'a>;
    let variants: [(&str, Build<'_>); 3] = [
        ("minirigid", Box::new(|| with_iterations(default))),
        (
            "minirigid_1_joint_iteration",
            Box::new(|| with_iterations(1)),
        ),
        // Box3D's solver effort and joint softness (one soft iteration, one joint pass, 60 Hz,
        // damping ratio 2): Box3D's quality (its grid after 100 steps: largest anchor gap
        // 7.4 mm, lowest ball at -99.264 m, `benches/box3d/joint_grid_quality.c`).
        (
            "minirigid_box3d_effort",
            Box::new(|| testbed::joints::box3d_effort(template.clone())),
        ),
    ];
    for (name, build) in variants {
        let mut world = build();
        for _ in 0..WINDOW {
            world.step();
        }
        let gap = world
            .joints()
            .filter_map(|(h, _)| world.joint_reading(h).ok())
            .map(|r| (r.anchors[1] - r.anchors[0]).norm())
            .fold(0.0, Real::max);
        let lowest = world
            .bodies()
            .map(|(_, b)| b.position().y)
            .fold(0.0, Real::min);
        eprintln!("joint_grid {name}: largest anchor gap {gap:.4} m, lowest ball at y {lowest:.3}");
        quality.push_str(&format!("{name}\t{gap}\t{lowest}\n"));
        group.bench_function(BenchmarkId::new(name, joints), |b| {
            b.iter_custom(|iters| timed_steps(iters, &build, &step))
        });
    }
    let (mut peer, _) = rapier_of(&template, false, Contacts::Recycled);
    for _ in 0..WINDOW {
        peer.step();
    }
    let gap = peer
        .impulse_joints
        .iter()
        .map(|(_, joint)| {
            let anchor = |body, local: rapier3d::glamx::Vec3| {
                let b: &rapier3d::prelude::RigidBody = &peer.bodies[body];
                b.position() * local
            };
            let a = anchor(joint.body1(), joint.data.local_anchor1());
            let b = anchor(joint.body2(), joint.data.local_anchor2());
            (a - b).length()
        })
        .fold(0.0, f32::max);
    let lowest = peer
        .bodies
        .iter()
        .map(|(_, b)| b.translation().y)
        .fold(0.0, f32::min);
    eprintln!("joint_grid rapier3d: largest anchor gap {gap:.4} m, lowest ball at y {lowest:.3}");
    quality.push_str(&format!("rapier3d\t{gap}\t{lowest}\n"));
    let dir = std::path::Path::new("target/criterion/steadiness");
    if let Err(e) =
        std::fs::create_dir_all(dir).and_then(|()| std::fs::write(dir.join("joint_grid"), quality))
    {
        eprintln!("could not save the joint grid's gaps: {e}");
    }
    let build = || rapier_of(&template, false, Contacts::Recycled).0;
    group.bench_function(BenchmarkId::new("rapier3d", joints), |b| {
        b.iter_custom(|iters| timed_steps(iters, &build, &rapier_step))
    });
    group.finish();
}

criterion_group!(
    benches,
    joint_grid_scene,
    pyramid_step,
    large_scenes,
    steady_scenes,
    sleeping_pile,
    scaling
);
criterion_main!(benches);
