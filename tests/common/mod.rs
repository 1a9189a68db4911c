//! Helpers shared by the integration tests.

use minirigid::prelude::*;

/// Steps `original` and its two restored copies `steps` times, asserting after each step that
/// both copies have the original's state hash and events.
#[allow(dead_code)] // not every test file uses it
pub fn step_in_lockstep(
    original: &mut World,
    from_json: &mut World,
    from_bytes: &mut World,
    steps: usize,
) {
    for step in 0..steps {
        original.step();
        from_json.step();
        from_bytes.step();
        let expected = original.state_hash();
        assert_eq!(
            from_json.state_hash(),
            expected,
            "JSON copy diverged at step {step}"
        );
        assert_eq!(
            from_bytes.state_hash(),
            expected,
            "binary copy diverged at step {step}"
        );
        assert_eq!(from_json.events(), original.events());
        assert_eq!(from_bytes.events(), original.events());
    }
}

/// Box3D's pyramid of base 40 with a heavy ball fired into it: its colours hold some 400
/// constraints each, so that the solver spreads them over threads when it has several.
#[allow(dead_code)] // not every test file uses it
pub fn pyramid_40_and_a_ball(configure: impl FnOnce(&mut World)) -> World {
    let (mut world, _) = testbed::scenes::pyramid(40);
    configure(&mut world);
    world
        .insert(
            BodyDesc::dynamic()
                .ball(0.5)
                .density(5.0)
                .position(Vector3::new(-30.0, 3.0, 0.2))
                .linvel(Vector3::new(30.0, 1.0, 0.0)),
        )
        .unwrap();
    world
}

/// Every truncation of a binary snapshot is refused (an error, never a panic or a world).
#[allow(dead_code)] // not every test file uses it
pub fn every_truncation_fails(bytes: &[u8]) {
    for len in 0..bytes.len() {
        assert!(
            World::from_bytes(&bytes[..len]).is_err(),
            "truncated to {len} bytes"
        );
    }
}

/// What `run` returns when run on a rayon pool of `threads` threads (a world's state hash,
/// say, to check that it does not depend on the thread count).
#[allow(dead_code)] // not every test file uses it
pub fn on_threads<T: Send>(threads: usize, run: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool")
        .install(run)
}

/// The state hash of the world `build` makes after `steps` steps, on one thread at the widest
/// lanes, asserting that two threads at one lane reach the same: what the pinned-hash tests
/// pin.
#[allow(dead_code)] // not every test file uses it
pub fn hash_on_any_thread_count(steps: usize, build: impl Fn() -> World + Sync) -> u64 {
    let run = |threads: usize, lanes: SolverLanes| {
        on_threads(threads, || {
            let mut world = build();
            world.set_solver_lanes(lanes);
            for _ in 0..steps {
                world.step();
            }
            world.state_hash()
        })
    };
    let hash = run(1, SolverLanes::WIDEST);
    assert_eq!(run(2, SolverLanes::One), hash, "two threads, one lane");
    hash
}

/// Each case spoils a copy of `good` with its edit; every copy must be refused by
/// `World::from_snapshot` with an error that names the case's field.
#[allow(dead_code)] // not every test file uses it
pub fn spoiled_snapshots_are_refused_by_name<F: Fn(&mut Snapshot)>(
    good: &Snapshot,
    cases: impl IntoIterator<Item = (F, &'static str)>,
) {
    for (spoil, field) in cases {
        let mut snapshot = good.clone();
        spoil(&mut snapshot);
        let Err(error) = World::from_snapshot(snapshot) else {
            panic!("{field}: accepted");
        };
        assert!(error.to_string().contains(field), "{field}: {error}");
    }
}
