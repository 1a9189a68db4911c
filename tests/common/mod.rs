//! Helpers shared by the integration tests.

use minirigid::prelude::*;

/// Steps `original` and its two restored copies `steps` times, asserting after each step that
/// both copies have the original's state hash and events.
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
