//! Box3D's benchmark protocol (`benchmark/main.c`) on the scenes of its suite that minirigid can
//! build: a fresh world per run, Box3D's settings (dt 1/60, 4 substeps, its gravity and
//! densities as each scene gives them), step 0 untimed, steps 1 to N-1 timed (with the
//! scene's own changes before each step, as Box3D's `stepFcn`), the minimum total over runs,
//! per thread count. Prints `scene,threads,ms` lines and writes Box3D's `.csv` per scene
//! (`threads,ms` rows) to `target/box3d_protocol/`, to compare with
//! `build/bin/benchmark -t=N -r=2 --benchmark=NAME` run beside it.
//!
//! With `--rapier3d` first, rapier3d 0.36 runs the same scenes by the same protocol (one
//! thread), carried over from minirigid's (`testbed::peer`), into
//! `target/box3d_protocol/rapier3d/`.
//!
//! With `--profile` first, each run's line is followed by the best run's time per stage of
//! the step (`World::profile`, summed over the timed steps, ms). With `--hash` first, by the
//! state hash the last run ended at (`World::state_hash`): two builds that should give the
//! same bits are checked on a whole scene by comparing it. With `--lowest` first, by the
//! lowest point of a moving body's box when the last run ended (m; with `--rapier3d` too, for
//! rapier3d's colliders): how far the pile sank into a ground whose top is at 0; and by the
//! depths of the last step's contact points that overlap (m; minirigid only): the median, the
//! 99th percentile and the deepest, of all of them and per kind of pair (with a static
//! body, with a kinematic one, between two dynamic ones). With `--trace` first, the overlapping
//! points between two dynamic bodies every 25 steps of the first run (count, median, 99th
//! percentile, deepest, and how many deeper than 10 cm; `benches/box3d/hull_quality.c ...
//! trace` prints Box3D's). With `--recycle` first,
//! minirigid reuses contacts (`SolverConfig::reuse_distance`) at Box3D's recycle distance
//! (`B3_CONTACT_RECYCLE_DISTANCE`, ten linear slops: 0.05 m), as Box3D's benchmark runs: its
//! bodies recycle contacts by default (`b3BodyDef::enableContactRecycling`). With `--effort`
//! first, minirigid solves at Box3D's effort: one soft iteration and one joint pass per
//! substep (`SolverConfig::soft_iterations`, `joint_iterations`; our defaults are two of each).
//!
//! Run: `cargo run --release -p testbed --bin box3d_protocol -- [--rapier3d|--recycle|--effort|--profile|--hash|--lowest|--trace] [scene] [runs]
//! [threads] [joint iterations]`; scenes: `large_pyramid`, `many_pyramids`, `joint_grid`,
//! `rain` (Box3D's humans dropped onto meshes; minirigid only),
//! `large_world` (1,000 x 1,000 static boxes; `large_world:G` for G x G, to see how a step's
//! cost grows with the static boxes), `convex_pile` (5,120 hulls; `convex_pile:L` for L layers
//! of 64), `junkyard` (10,584 rocks of 10-point hulls and a kinematic pusher; `junkyard:L` for
//! L layers of 441), `washer` (a kinematic drum of 40 hulls turning 8,000 cubes; `washer:G` for G^3), `all` (the default, Box3D's scenes), and ours by the
//! same protocol: `level` (the level example's surfaces with 256 bodies), `joint_grid_box3d`
//! (the joint grid at Box3D's solver effort and joint softness), `capsules3`
//! (rapier's stress test of 3,008 capsules), `convex_polyhedron3` (its 3,008 hulls of 10
//! points), `compound3` (its 1,600 U shapes of three boxes); threads `N` (only
//! N, 1 by default) or `1..N` (each count from 1 to N, as Box3D's `-t=N`); 2 runs and the
//! default joint iterations (`SolverConfig`) by default.

use rapier3d::prelude::PhysicsWorld;
use std::time::Instant;
use testbed::human::{rain, rain_step};
use testbed::joints::{box3d_effort, joint_grid};
use testbed::peer::{Contacts, insert_body, rapier_of_with};
use testbed::scenes::{large_world, large_world_drop, many_pyramids, pyramid};
use testbed::shapes::{
    capsules3, compound3, convex_pile, convex_polyhedron3, junkyard, junkyard_push, washer,
};
use testbed::surfaces::level;
use world::{BodyHandle, World};

/// A scene of Box3D's suite: its name, how many steps Box3D runs (step 0 untimed), how to
/// build it, and what it does before each step (Box3D's `stepFcn`), if anything.
struct Scene {
    name: String,
    steps: usize,
    build: Box<dyn Fn() -> World + Sync>,
    before_step: Option<BeforeStep>,
}

/// What a scene does to its world before step `k`: the body it added, if any.
type BeforeStep = Box<dyn Fn(&mut World, usize) -> Option<BodyHandle> + Sync>;

/// Box3D's settings where a scene does not set its own: 4 substeps, sleeping as the scene says.
fn box3d(mut world: World) -> World {
    let mut config = *world.config();
    config.solver.substeps = 4;
    world.set_config(config).expect("valid settings");
    world
}

/// `world` with sleeping off (Box3D's large pyramid; our level, to time every body).
fn awake(mut world: World) -> World {
    let mut config = *world.config();
    config.sleep.enabled = false;
    world.set_config(config).expect("valid settings");
    world
}

/// The large world of `grid` x `grid` static boxes, 100 balls dropped one every 5 steps.
fn large_world_scene(name: String, grid: usize) -> Scene {
    Scene {
        name,
        steps: 500,
        build: Box::new(move || box3d(large_world(grid))),
        before_step: Some(Box::new(move |world, step| {
            large_world_drop(world, grid, step, 100, 5)
        })),
    }
}

/// Box3D's scenes that minirigid builds, in its suite's order.
fn scenes() -> Vec<Scene> {
    vec![
        Scene {
            name: "large_pyramid".into(),
            steps: 200,
            build: Box::new(|| awake(box3d(pyramid(100).0))),
            before_step: None,
        },
        Scene {
            name: "many_pyramids".into(),
            steps: 100,
            build: Box::new(|| box3d(many_pyramids(14, 14, 10).0)),
            before_step: None,
        },
        large_world_scene("large_world".into(), 1000),
        Scene {
            name: "joint_grid".into(),
            steps: 100,
            build: Box::new(|| box3d(joint_grid(100))),
            before_step: None,
        },
        // Box3D's rain: columns of three-human groups dropped onto 100 cells of meshes, 400
        // steps (`testbed::human`).
        Scene {
            name: "rain".into(),
            steps: 400,
            build: Box::new(|| box3d(rain())),
            before_step: Some(Box::new(|world, step| {
                rain_step(world, step);
                None
            })),
        },
        convex_pile_scene("convex_pile".into(), 80),
        junkyard_scene("junkyard".into(), 24),
        washer_scene("washer".into(), 20),
    ]
}

/// Box3D's junkyard with `layers` layers of 441 rocks (24 in Box3D's), 500 steps, its pusher
/// driven by target poses before each step (Box3D's `StepJunkyard`).
fn junkyard_scene(name: String, layers: usize) -> Scene {
    Scene {
        name,
        steps: 500,
        build: Box::new(move || box3d(junkyard(layers).0)),
        before_step: Some(Box::new(|world, step| {
            // The one kinematic body.
            let pusher = world
                .bodies()
                .find(|(_, b)| b.kind() == world::BodyKind::Kinematic)
                .map(|(h, _)| h)
                .expect("the pusher");
            junkyard_push(world, pusher, step);
            None
        })),
    }
}

/// Box3D's washer with `grid`^3 cubes (20^3 in Box3D's), 1,000 steps. Its drum is kinematic
/// and turned by its angular velocity, as Box3D's.
fn washer_scene(name: String, grid: usize) -> Scene {
    Scene {
        name,
        steps: 1000,
        build: Box::new(move || box3d(washer(grid).0)),
        before_step: None,
    }
}

/// Box3D's convex pile of `layers` layers of 64 hulls (80 in Box3D's), 500 steps.
fn convex_pile_scene(name: String, layers: usize) -> Scene {
    Scene {
        name,
        steps: 500,
        build: Box::new(move || box3d(convex_pile(layers).0)),
        before_step: None,
    }
}

/// Scenes of ours run by the same protocol (not in Box3D's suite, not in `all`): the level
/// example's heightfield, ramp and stairs with 256 boxes and balls dropped over them (from up
/// to 84 m), sleeping off, its first 300 steps. Not in BENCHMARKS.md yet: neither engine
/// loses a body, but at impact ours lets one sink 0.29 m into the ground for a moment where
/// rapier3d's deepest is 0.10 m (sampled every 10 steps), so the quality is not yet the same.
fn our_scenes() -> Vec<Scene> {
    vec![
        Scene {
            name: "level".into(),
            steps: 300,
            build: Box::new(|| awake(box3d(level(256).0))),
            before_step: None,
        },
        // Box3D's joint grid solved with Box3D's effort and joint softness
        // (`testbed::joints::box3d_effort`), to compare at Box3D's quality.
        Scene {
            name: "joint_grid_box3d".into(),
            steps: 100,
            build: Box::new(|| box3d_effort(box3d(joint_grid(100)))),
            before_step: None,
        },
        // rapier's capsules3 stress test: 3,008 capsules dropped in a grid, 500 steps.
        Scene {
            name: "capsules3".into(),
            steps: 500,
            build: Box::new(|| box3d(capsules3())),
            before_step: None,
        },
        // rapier's convex_polyhedron3 stress test: 3,008 hulls of 10 points, 500 steps.
        Scene {
            name: "convex_polyhedron3".into(),
            steps: 500,
            build: Box::new(|| box3d(convex_polyhedron3())),
            before_step: None,
        },
        // rapier's compound3 stress test: 1,600 U shapes of three boxes, 500 steps.
        Scene {
            name: "compound3".into(),
            steps: 500,
            build: Box::new(|| box3d(compound3())),
            before_step: None,
        },
    ]
}

/// The scenes `which` names.
fn chosen(which: &str) -> Vec<Scene> {
    if let Some(grid) = which.strip_prefix("washer:") {
        let grid = grid.parse().expect("washer:G takes a grid side");
        return vec![washer_scene(which.replace(':', "_"), grid)];
    }
    if let Some(layers) = which.strip_prefix("junkyard:") {
        let layers = layers.parse().expect("junkyard:L takes a layer count");
        return vec![junkyard_scene(which.replace(':', "_"), layers)];
    }
    if let Some(layers) = which.strip_prefix("convex_pile:") {
        let layers = layers.parse().expect("convex_pile:L takes a layer count");
        return vec![convex_pile_scene(which.replace(':', "_"), layers)];
    }
    if let Some(grid) = which.strip_prefix("large_world:") {
        let grid = grid.parse().expect("large_world:G takes a grid side");
        return vec![large_world_scene(which.replace(':', "_"), grid)];
    }
    let mut all = scenes();
    if which != "all" {
        all.extend(our_scenes());
    }
    let known = all.iter().any(|s| s.name == which);
    assert!(which == "all" || known, "unknown scene {which}");
    all.into_iter()
        .filter(|s| which == "all" || which == s.name)
        .collect()
}

/// Box3D's recycle distance (`B3_CONTACT_RECYCLE_DISTANCE`: ten linear slops of 5 mm).
const BOX3D_RECYCLE_DISTANCE: f32 = 0.05;

/// What the flags change of minirigid's defaults: contact reuse at Box3D's recycle distance,
/// Box3D's solver effort.
#[derive(Debug, Clone, Copy)]
struct Settings {
    recycle: bool,
    effort: bool,
    /// Print the overlapping contacts between moving bodies every [`TRACE_EVERY`] steps of
    /// the first run (which the printing slows).
    trace: bool,
}

/// How often `--trace` prints.
const TRACE_EVERY: usize = 25;

/// `--trace`'s line after step `step` (from 1): the overlapping contact points between two
/// dynamic bodies, their median, 99th percentile and deepest depth (m), and how many are
/// deeper than 10 cm.
fn trace_line(world: &World, step: usize) -> String {
    let [_, _, depths] = depths_by_kind(world);
    let (count, deep) = (depths.len(), depths.iter().filter(|&&d| d > 0.1).count());
    let [median, p99, deepest] = percentiles(depths);
    format!(
        "  trace,{step},{count} points,{median:.4},{p99:.4},{deepest:.4},{deep} deeper than 0.1"
    )
}

/// What a run ended at: the state hash, the lowest point of a moving body's box, and the
/// median, 99th percentile and deepest of the last step's overlapping contact points.
struct End {
    hash: Option<u64>,
    lowest: f64,
    depths: [f64; 3],
    /// The same per what the pair holds besides moving bodies: a static body, a kinematic
    /// one, or neither; with each one's count of points.
    depths_by_kind: [(usize, [f64; 3]); 3],
}

/// The overlapping contact points' depths (m) of `world`'s last step, per what their pair
/// holds: a static body (0), a kinematic one (1), or two dynamic bodies (2).
fn depths_by_kind(world: &World) -> [Vec<f64>; 3] {
    let mut out: [Vec<f64>; 3] = Default::default();
    for pair in world.contacts() {
        let kind = |h| world.body(h).map(world::RigidBody::kind);
        let kinds = [kind(pair.a), kind(pair.b)];
        let at = if kinds.contains(&Some(world::BodyKind::Static)) {
            0
        } else if kinds.contains(&Some(world::BodyKind::Kinematic)) {
            1
        } else {
            2
        };
        out[at].extend(
            (pair.contact.points.iter())
                .map(|p| f64::from(p.depth))
                .filter(|&d| d > 0.0),
        );
    }
    out
}

/// The median, the 99th percentile and the largest of `depths` (zeros for none).
fn percentiles(mut depths: Vec<f64>) -> [f64; 3] {
    if depths.is_empty() {
        return [0.0; 3];
    }
    depths.sort_by(f64::total_cmp);
    let at = |q: f64| depths[((depths.len() - 1) as f64 * q).round() as usize];
    [at(0.5), at(0.99), at(1.0)]
}

/// The minimum over `runs` of the timed steps' total (ms) on `threads` threads, that run's
/// total per stage of the step (`World::profile`, ms), and what the last run ended at. With
/// `settings`, the changes to minirigid's defaults the flags ask for.
fn time(
    scene: &Scene,
    runs: usize,
    threads: usize,
    joint_iterations: Option<u32>,
    settings: Settings,
) -> (f64, Vec<(&'static str, f64)>, End) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    let mut best = (f64::INFINITY, Vec::new());
    let mut end = End {
        hash: None,
        lowest: f64::INFINITY,
        depths: [0.0; 3],
        depths_by_kind: [(0, [0.0; 3]); 3],
    };
    for run in 0..runs {
        let mut world = (scene.build)();
        let mut config = *world.config();
        if let Some(n) = joint_iterations {
            config.solver.joint_iterations = n;
        }
        if settings.recycle {
            config.solver.reuse_distance = BOX3D_RECYCLE_DISTANCE;
        }
        if settings.effort {
            config.solver.soft_iterations = 1;
            config.solver.joint_iterations = 1;
        }
        world.set_config(config).expect("valid settings");
        let before = |world: &mut World, k: usize| {
            if let Some(f) = &scene.before_step {
                f(world, k);
            }
        };
        let mut stages: Vec<(&'static str, f64)> = Vec::new();
        let ms = pool.install(|| {
            before(&mut world, 0);
            world.step();
            let start = Instant::now();
            for k in 1..scene.steps {
                before(&mut world, k);
                world.step();
                let profile = world.profile().stages();
                stages.resize(profile.len(), ("", 0.0));
                for (sum, (name, time)) in stages.iter_mut().zip(profile) {
                    *sum = (name, sum.1 + time.as_secs_f64() * 1e3);
                }
                if settings.trace && run == 0 && (k + 1) % TRACE_EVERY == 0 {
                    println!("{}", trace_line(&world, k + 1));
                }
            }
            start.elapsed().as_secs_f64() * 1e3
        });
        if ms < best.0 {
            best = (ms, stages);
        }
        let by_kind = depths_by_kind(&world);
        end = End {
            hash: Some(world.state_hash()),
            lowest: (world.bodies())
                .filter(|(_, b)| b.kind() == world::BodyKind::Dynamic)
                .map(|(_, b)| f64::from(b.world_aabb().mins.y))
                .fold(f64::INFINITY, f64::min),
            depths: percentiles(by_kind.concat()),
            depths_by_kind: by_kind.map(|d| (d.len(), percentiles(d))),
        };
    }
    (best.0, best.1, end)
}

/// The minimum over `runs` of rapier3d's timed steps' total (ms) on the same scene, by the
/// same protocol: the scene built in minirigid and carried over body for body and joint for
/// joint (`testbed::peer::rapier_of_with`: rapier's defaults, 4 solver iterations, contacts
/// recycled; sleeping as the scene has it; static bodies without joints as colliders without
/// a body, as rapier's own ports build static geometry), one thread (rapier3d is built without its
/// `parallel` feature). The scene's changes before each step are made to the minirigid world,
/// which is never stepped, and the bodies they add inserted into rapier's.
fn time_rapier(scene: &Scene, runs: usize) -> (f64, f64) {
    let (mut best, mut low) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..runs {
        let mut ours = (scene.build)();
        let sleeping = ours.config().sleep.enabled;
        let (mut peer, _) = rapier_of_with(&ours, sleeping, Contacts::Recycled, true);
        let before = |ours: &mut World, peer: &mut PhysicsWorld, k: usize| {
            let added = scene.before_step.as_ref().and_then(|f| f(ours, k));
            if let Some(body) = added.and_then(|h| ours.body(h)) {
                insert_body(peer, body, sleeping);
            }
        };
        before(&mut ours, &mut peer, 0);
        peer.step();
        let start = Instant::now();
        for k in 1..scene.steps {
            before(&mut ours, &mut peer, k);
            peer.step();
        }
        best = best.min(start.elapsed().as_secs_f64() * 1e3);
        low = (peer.colliders.iter())
            .filter(|(_, c)| {
                (c.parent()).is_some_and(|b| peer.bodies.get(b).is_some_and(|b| b.is_dynamic()))
            })
            .map(|(_, c)| f64::from(c.compute_aabb().mins.y))
            .fold(f64::INFINITY, f64::min);
    }
    (best, low)
}

/// Whether `args` starts with `flag`, which is then taken off.
fn take_flag(args: &mut Vec<String>, flag: &str) -> bool {
    let there = args.first().is_some_and(|a| a == flag);
    if there {
        args.remove(0);
    }
    there
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    // In this order, each optional.
    let rapier = take_flag(&mut args, "--rapier3d");
    let recycle = take_flag(&mut args, "--recycle");
    let effort = take_flag(&mut args, "--effort");
    let profile = take_flag(&mut args, "--profile");
    let hash = take_flag(&mut args, "--hash");
    let lowest = take_flag(&mut args, "--lowest");
    let trace = take_flag(&mut args, "--trace");
    let settings = Settings {
        recycle,
        effort,
        trace,
    };
    let which = args.first().map_or("all", String::as_str);
    let runs: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(2);
    let threads = args.get(2).map_or("1", String::as_str);
    let counts: Vec<usize> = match threads.strip_prefix("1..") {
        Some(n) => (1..=n.parse().expect("1..N takes a thread count")).collect(),
        None => vec![threads.parse().expect("a thread count")],
    };
    let joint_iterations: Option<u32> = args.get(3).and_then(|s| s.parse().ok());
    let out = std::path::Path::new("target/box3d_protocol");
    let out = if rapier {
        out.join("rapier3d")
    } else if recycle || effort {
        out.join(match (recycle, effort) {
            (true, true) => "recycle_effort",
            (true, false) => "recycle",
            _ => "effort",
        })
    } else {
        out.to_path_buf()
    };
    std::fs::create_dir_all(&out).expect("an output directory");
    println!("scene,threads,ms");
    for scene in chosen(which) {
        if rapier && scene.name == "rain" {
            // Its humans come with joints before their steps, which the carrying over of
            // bodies (`insert_body`) does not take.
            eprintln!("rain: not carried over to rapier3d (joints added while it runs)");
            continue;
        }
        let mut csv = String::from("threads,ms\n");
        for &n in &counts {
            if rapier && n > 1 {
                continue;
            }
            let (ms, stages, end) = if rapier {
                let (ms, lowest) = time_rapier(&scene, runs);
                let depths = [f64::NAN; 3];
                (
                    ms,
                    Vec::new(),
                    End {
                        hash: None,
                        lowest,
                        depths,
                        depths_by_kind: [(0, depths); 3],
                    },
                )
            } else {
                time(&scene, runs, n, joint_iterations, settings)
            };
            println!("{},{n},{ms:.1}", scene.name);
            if let (true, Some(end)) = (hash, end.hash) {
                println!("  state_hash,{n},{end:#018x}");
            }
            if lowest {
                println!("  lowest,{n},{:.4}", end.lowest);
                if !rapier {
                    let [median, p99, deepest] = end.depths;
                    println!("  contact_depth_median,{n},{median:.4}");
                    println!("  contact_depth_p99,{n},{p99:.4}");
                    println!("  deepest_contact,{n},{deepest:.4}");
                    let kinds = ["static", "kinematic", "dynamic"];
                    for (kind, (count, [median, p99, deepest])) in
                        kinds.iter().zip(end.depths_by_kind)
                    {
                        println!(
                            "  contact_depths_{kind},{n},{count} points,{median:.4},{p99:.4},{deepest:.4}"
                        );
                    }
                }
            }
            if profile {
                for (stage, ms) in stages {
                    println!("  {stage},{n},{ms:.1}");
                }
            }
            csv.push_str(&format!("{n},{ms:.1}\n"));
        }
        std::fs::write(out.join(format!("{}.csv", scene.name)), csv).expect("a csv file");
    }
}
