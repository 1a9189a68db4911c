//! How steady the plank tower and the dropped column stay, in minirigid and rapier3d, second by
//! second (issue 38). One thread (built alone, testbed's minirigid has no `parallel` feature), sleeping off on both sides.
//!
//! `cargo run --release -p testbed --bin steadiness -- [keva|column|pyramid|stack]
//! [minirigid|minirigid-reuse|rapier|rapier-fresh] [substeps] [seconds] [blocks]
//! [soft iterations]`: defaults keva, minirigid, 4, 10, 3 and minirigid's default. `pyramid` is Box3D's large pyramid, read at steps 100 to 1,000 (the
//! largest displacement of a cube); `stack` a column of `blocks` unit cubes created touching
//! (its distance off its axis). With `PROFILE` set in the environment, the tower's mean
//! displacement by 5 m of height and every fifth cube of the column are printed too.

use testbed::scenes::{dropped_column, keva_tower};
use testbed::steadiness::{Engine, off_axis, run, tower_reading};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or(default.to_string());
    let scene = arg(0, "keva");
    let engine = arg(1, "minirigid");
    let substeps: u32 = arg(2, "4").parse().expect("substeps: a whole number");
    let seconds: usize = arg(3, "10").parse().expect("seconds: a whole number");
    let blocks: usize = arg(4, "3").parse().expect("blocks: 1 to 5");
    let soft_iterations: Option<u32> = args.get(5).map(|a| a.parse().expect("soft iterations"));
    let (world, bodies) = match scene.as_str() {
        "keva" => keva_tower(blocks),
        "column" => dropped_column(40),
        "pyramid" => testbed::scenes::pyramid(100),
        "stack" => testbed::scenes::stack(blocks),
        other => panic!("unknown scene {other}: keva, column, pyramid or stack"),
    };
    let mut engine = match engine.as_str() {
        "minirigid" => {
            let mut engine = Engine::minirigid(&world, &bodies, substeps);
            if let Some(n) = soft_iterations {
                engine.configure(|config| config.solver.soft_iterations = n);
            }
            engine
        }
        "rapier" => Engine::rapier(&world, &bodies),
        "rapier-fresh" => Engine::rapier_with(&world, &bodies, testbed::peer::Contacts::Fresh),
        "minirigid-reuse" => {
            let mut engine = Engine::minirigid(&world, &bodies, substeps);
            engine.configure(|config| config.solver.reuse_distance = 0.05);
            engine
        }
        other => {
            panic!("unknown engine {other}: minirigid, minirigid-reuse, rapier or rapier-fresh")
        }
    };
    let start = engine.poses();
    let at: Vec<usize> = if scene == "pyramid" {
        vec![100, 200, 500, 600, 800, 1000]
    } else {
        (1..=seconds).map(|s| s * 60).collect()
    };
    let largest_move = |now: &[geom::Isometry3]| {
        start
            .iter()
            .zip(now)
            .map(|(s, n)| (n.translation.vector - s.translation.vector).norm())
            .fold(0.0, f32::max)
    };
    let clock = std::time::Instant::now();
    println!("{scene}, {} bodies, {substeps} substeps", bodies.len());
    run(&mut engine, &at, |step, now| {
        let elapsed = clock.elapsed().as_secs_f64();
        if scene == "keva" {
            let r = tower_reading(&start, now);
            println!(
                "t {:>3} s  fallen {:>5}  lean {:.4} m  largest shift {:.4} m  ({elapsed:.1} s)",
                step / 60,
                r.fallen,
                r.lean,
                r.largest_shift
            );
            if std::env::var("PROFILE").is_ok() {
                let mut bins = vec![(geom::Vector3::zeros(), 0usize); 12];
                for (s, n) in start.iter().zip(now) {
                    let b = ((s.translation.y / 5.0) as usize).min(11);
                    let d = n.translation.vector - s.translation.vector;
                    bins[b].0 += d;
                    bins[b].1 += 1;
                }
                let line: Vec<String> = bins
                    .iter()
                    .filter(|b| b.1 > 0)
                    .map(|(d, c)| {
                        let d = d / *c as f32;
                        format!("({:+.3} {:+.3} {:+.3})", d.x, d.y, d.z)
                    })
                    .collect();
                println!("    by 5 m of height: {}", line.join(" "));
            }
        } else if scene == "pyramid" {
            println!(
                "step {step:>4}  largest displacement {:.4} m  ({elapsed:.1} s)",
                largest_move(now)
            );
        } else {
            println!(
                "t {:>3} s  off axis {:.4} m  largest displacement {:.4} m  ({elapsed:.1} s)",
                step / 60,
                off_axis(now),
                largest_move(now)
            );
            if std::env::var("PROFILE").is_ok() {
                let line: Vec<String> = now
                    .iter()
                    .step_by(5)
                    .map(|p| {
                        let t = p.translation.vector;
                        let tilt = (p.rotation * geom::Vector3::y()).y.clamp(-1.0, 1.0).acos();
                        format!("({:+.3} {:+.3} {:.3})", t.x, t.z, tilt)
                    })
                    .collect();
                println!("    every 5th cube (x z tilt): {}", line.join(" "));
            }
        }
    });
}
