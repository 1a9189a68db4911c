//! Steps Box3D's pyramid for profiling (`perf record`): `--base N` (default 20), `--steps N`
//! (default 600), `--substeps N` (default: the world's), `--scalar` (one constraint at a time
//! instead of four), `--reuse-mm N` (contact reuse within N millimetres; default off). Sleeping
//! off. Prints the contact
//! counts, the wall-clock step time and the largest displacement of any cube.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse::<usize>().ok())
    };
    let (mut world, cubes) = testbed::scenes::pyramid(value("--base").unwrap_or(20));
    let start_of = |world: &minirigid::world::World| -> Vec<_> {
        cubes
            .iter()
            .map(|&c| world.body(c).expect("a cube").position())
            .collect()
    };
    let starts = start_of(&world);
    let mut config = *world.config();
    if let Some(substeps) = value("--substeps") {
        config.solver.substeps = substeps as u32;
    }
    if let Some(millimetres) = value("--reuse-mm") {
        config.solver.reuse_distance = millimetres as f32 * 1e-3;
    }
    config.sleep.enabled = false;
    world.set_config(config).expect("valid settings");
    world.set_wide_solver(!args.iter().any(|a| a == "--scalar"));
    let steps = value("--steps").unwrap_or(600);
    let start = std::time::Instant::now();
    for _ in 0..steps {
        world.step();
    }
    let counts = world.stage_counts();
    let points: usize = world
        .contact_impulses()
        .iter()
        .map(|c| c.points.len())
        .sum();
    println!(
        "pairs {} touching-or-speculative {} touching {} cached points {points} reused {}",
        counts.pairs,
        counts.touching,
        world.contacts().len(),
        world.reused_contact_count()
    );
    let moved = start_of(&world)
        .iter()
        .zip(&starts)
        .map(|(now, then)| (now - then).norm())
        .fold(0.0, f32::max);
    println!("largest displacement of a cube: {moved:.4} m");
    println!(
        "{steps} steps of {} bodies: {:.3} ms a step (wall clock; use the benches for figures)",
        world.len(),
        start.elapsed().as_secs_f64() * 1e3 / steps as f64
    );
}
