//! The full dynamics step on Box3D's pyramid (`scenes::pyramid`), side by side with rapier3d
//! 0.36 on the same cubes: dt 1/60, 4 substeps (rapier's `num_solver_iterations`), friction
//! 0.6, restitution 0, density 1, sleeping off on both sides. minirigid also at its default of
//! 8 substeps. The setup steps both worlds 200 steps first and prints, for each, the contacts
//! it holds and how far the cube that moved most has moved (the pyramids must stand and hold
//! the same contacts for the comparison to count). Each engine is timed on steps 200 to 300 of
//! freshly settled pyramids (see `WINDOW`).
//! Run: `cargo bench --bench dynamics`.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use minirigid::prelude::*;
use minirigid::scenes::pyramid;
use rapier3d::prelude::{ColliderBuilder, PhysicsWorld, RigidBodyBuilder, RigidBodyHandle};
use std::hint::black_box;
use std::time::{Duration, Instant};

const DT: Real = 1.0 / 60.0;
const SETTLE_STEPS: usize = 200;

/// minirigid's pyramid with `substeps` substeps.
fn ours(base: usize, substeps: u32) -> (World, Vec<BodyHandle>) {
    let (world, cubes) = pyramid(base);
    let mut snapshot = world.snapshot();
    snapshot.config.solver.substeps = substeps;
    (
        World::from_snapshot(snapshot).expect("valid settings"),
        cubes,
    )
}

/// The same pyramid in rapier3d: the same ground slab and cubes, positions read back from
/// minirigid's scene so that both start from identical poses.
fn rapier(base: usize) -> (PhysicsWorld, Vec<RigidBodyHandle>, Vec<Vector3>) {
    let (scene, cubes) = pyramid(base);
    let mut world = PhysicsWorld::new();
    world.integration_parameters.dt = DT;
    world.integration_parameters.num_solver_iterations = 4;
    let ground = world
        .bodies
        .insert(RigidBodyBuilder::fixed().translation(rapier3d::glamx::Vec3::new(0.0, -1.0, 0.0)));
    world.colliders.insert_with_parent(
        ColliderBuilder::cuboid(400.0, 1.0, 400.0).friction(0.6),
        ground,
        &mut world.bodies,
    );
    let mut starts = Vec::new();
    let handles = cubes
        .iter()
        .map(|h| {
            let p = scene.body(*h).expect("a cube").position().coords;
            starts.push(p);
            let body = world.bodies.insert(
                RigidBodyBuilder::dynamic()
                    .translation(rapier3d::glamx::Vec3::new(p.x, p.y, p.z))
                    .can_sleep(false),
            );
            world.colliders.insert_with_parent(
                ColliderBuilder::cuboid(0.5, 0.5, 0.5)
                    .friction(0.6)
                    .restitution(0.0)
                    .density(1.0),
                body,
                &mut world.bodies,
            );
            body
        })
        .collect();
    (world, handles, starts)
}

/// Steps both engines `SETTLE_STEPS` steps and prints what each holds.
fn report(base: usize) {
    let (mut world, cubes) = ours(base, 4);
    let starts: Vec<Point3> = cubes
        .iter()
        .map(|h| world.body(*h).expect("a cube").position())
        .collect();
    for _ in 0..SETTLE_STEPS {
        world.step();
    }
    let moved = cubes
        .iter()
        .zip(&starts)
        .map(|(h, p)| (world.body(*h).expect("a cube").position() - p).norm())
        .fold(0.0, Real::max);
    let (mut peer, handles, peer_starts) = rapier(base);
    for _ in 0..SETTLE_STEPS {
        peer.step();
    }
    let peer_moved = handles
        .iter()
        .zip(&peer_starts)
        .map(|(h, p)| {
            let t = peer.bodies[*h].translation();
            (Vector3::new(t.x, t.y, t.z) - p).norm()
        })
        .fold(0.0, Real::max);
    let peer_contacts = peer
        .narrow_phase
        .contact_pairs()
        .filter(|pair| pair.has_any_active_contact())
        .count();
    eprintln!(
        "pyramid base {base} ({} cubes) after {SETTLE_STEPS} steps, 4 substeps: minirigid {} \
         contact pairs solved ({} of them touching), largest displacement {:.4} m; rapier3d {} \
         contact pairs with active contacts, largest displacement {:.4} m",
        cubes.len(),
        world.stage_counts().touching,
        world.contacts().len(),
        moved,
        peer_contacts,
        peer_moved
    );
}

/// How many steps are timed on one settled pyramid before it is rebuilt and settled again
/// (untimed): both engines time the same window of the same scene, steps `SETTLE_STEPS` to
/// `SETTLE_STEPS + WINDOW`, however many steps criterion asks for. Without it, criterion steps
/// one world thousands of times, and minirigid's base-40 pyramid at 4 substeps slides apart
/// after about 700 steps (measured), which is a cheaper scene than the standing one.
const WINDOW: usize = 100;

/// Times `iters` steps of worlds built by `build` (settled `SETTLE_STEPS` steps), rebuilding
/// every `WINDOW` steps outside the timing.
fn timed_steps<W>(iters: u64, build: &impl Fn() -> W, step: &impl Fn(&mut W) -> usize) -> Duration {
    let mut total = Duration::ZERO;
    let mut world = build();
    let mut stepped = 0;
    for _ in 0..iters {
        if stepped == WINDOW {
            world = build();
            stepped = 0;
        }
        let start = Instant::now();
        black_box(step(&mut world));
        total += start.elapsed();
        stepped += 1;
    }
    total
}

fn pyramid_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("pyramid_step");
    group.sample_size(20);
    for base in [20, 40] {
        report(base);
        let cubes = base * (base + 1) / 2;
        for substeps in [4, 8] {
            let build = || {
                let (mut world, _) = ours(base, substeps);
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
        }
        let build = || {
            let (mut peer, _, _) = rapier(base);
            for _ in 0..SETTLE_STEPS {
                peer.step();
            }
            peer
        };
        let step = |peer: &mut PhysicsWorld| {
            peer.step();
            peer.narrow_phase.contact_pairs().count()
        };
        group.bench_function(BenchmarkId::new("rapier3d_4_substeps", cubes), |b| {
            b.iter_custom(|iters| timed_steps(iters, &build, &step))
        });
    }
    group.finish();
}

criterion_group!(benches, pyramid_step);
criterion_main!(benches);
