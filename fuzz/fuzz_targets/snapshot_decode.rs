//! Snapshot decoding must never panic, hang or allocate without bound, whatever the bytes:
//! both forms are decoded, and whatever decodes is stepped and encoded again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use world::World;

fuzz_target!(|data: &[u8]| {
    let from_bytes = World::from_bytes(data);
    let from_json = std::str::from_utf8(data).ok().map(World::from_json);
    for mut world in from_bytes.into_iter().chain(from_json.into_iter().flatten()) {
        world.step();
        let bytes = world.to_bytes().expect("a valid world encodes");
        let back = World::from_bytes(&bytes).expect("an encoded world decodes");
        assert_eq!(back.state_hash(), world.state_hash());
    }
});
