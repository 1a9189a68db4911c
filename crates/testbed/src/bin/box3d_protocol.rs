//! Box3D's benchmark protocol (`benchmark/main.c`) on the scenes of its suite that minirigid can
//! build: a fresh world per run, Box3D's settings (dt 1/60, 4 substeps, its gravity and
//! densities as each scene gives them), step 0 untimed, steps 1 to N-1 timed, the minimum total
//! over runs, per thread count. Prints `scene,threads,ms` lines, Box3D's own `.csv` rows, to
//! compare with `build/bin/benchmark -t=1 -r=2 --benchmark=NAME` run beside it.
//!
//! Run: `cargo run --release -p testbed --bin box3d_protocol -- [scene] [runs] [threads]
//! [joint iterations]`; scenes: `large_pyramid`, `many_pyramids`, `joint_grid`, `large_world`, `all` (the
//! default); 2 runs, 1 thread and the default joint iterations (`SolverConfig`) by default.

use std::time::Instant;
use testbed::joints::joint_grid;
use testbed::scenes::{large_world, large_world_drop, many_pyramids, pyramid};
use world::World;

/// A scene of Box3D's suite: its name, how many steps Box3D runs (step 0 untimed), and how to
/// build it.
struct Scene {
    name: &'static str,
    steps: usize,
    build: fn() -> World,
    /// What the scene does before step `k` (Box3D's `stepFcn`), if anything.
    before_step: Option<fn(&mut World, usize)>,
}

/// Box3D's settings where a scene does not set its own: 4 substeps, sleeping as the scene says.
fn box3d(mut world: World) -> World {
    let mut config = *world.config();
    config.solver.substeps = 4;
    world.set_config(config).expect("valid settings");
    world
}

/// The large world's grid side (Box3D's `STATIC_FLOOR_GRID`).
const LARGE_WORLD_GRID: usize = 1000;

const SCENES: [Scene; 4] = [
    Scene {
        name: "large_pyramid",
        steps: 200,
        build: || {
            let mut world = box3d(pyramid(100).0);
            let mut config = *world.config();
            config.sleep.enabled = false;
            world.set_config(config).expect("valid settings");
            world
        },
        before_step: None,
    },
    Scene {
        name: "many_pyramids",
        steps: 100,
        build: || box3d(many_pyramids(14, 14, 10).0),
        before_step: None,
    },
    Scene {
        name: "joint_grid",
        steps: 100,
        build: || box3d(joint_grid(100)),
        before_step: None,
    },
    Scene {
        name: "large_world",
        steps: 500,
        build: || box3d(large_world(LARGE_WORLD_GRID)),
        before_step: Some(|world, step| {
            large_world_drop(world, LARGE_WORLD_GRID, step, 100, 5);
        }),
    },
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let which = args.first().map_or("all", String::as_str);
    let runs: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(2);
    let threads: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let joint_iterations: Option<u32> = args.get(3).and_then(|s| s.parse().ok());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    println!("scene,threads,ms");
    for scene in SCENES.iter().filter(|s| which == "all" || which == s.name) {
        let mut best = f64::INFINITY;
        for _ in 0..runs {
            let mut world = (scene.build)();
            if let Some(n) = joint_iterations {
                let mut config = *world.config();
                config.solver.joint_iterations = n;
                world.set_config(config).expect("valid settings");
            }
            let before = |world: &mut World, k: usize| {
                if let Some(f) = scene.before_step {
                    f(world, k);
                }
            };
            let ms = pool.install(|| {
                before(&mut world, 0);
                world.step();
                let start = Instant::now();
                for k in 1..scene.steps {
                    before(&mut world, k);
                    world.step();
                }
                start.elapsed().as_secs_f64() * 1e3
            });
            best = best.min(ms);
        }
        println!("{},{threads},{best:.1}", scene.name);
    }
}
