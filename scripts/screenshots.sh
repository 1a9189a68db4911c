#!/usr/bin/env bash
# Regenerates the README's pictures (docs/*.png) by running each example headless.
set -euo pipefail
cd "$(dirname "$0")/.."
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
# The dev profile is enough (and already built by `cargo test`): pictures do not depend on it.
cargo build --examples
run() { "target/debug/examples/$1" --headless "${@:2}"; }
run bouncing_box --frames 60 --screenshot docs/bouncing_box.png
run obb2d_spin --frames 20 --screenshot docs/obb2d_spin.png
run box_box --offset 1.6,0.5,0.2 --angles 0.3,0.5,0.1 --screenshot docs/box_box.png
# The viewer draws the bodies instanced: under 1 GB at 1,000 bodies with either software renderer.
run many_bodies --frames 61 --steps-per-frame 10 --screenshot docs/many_bodies.png
run many_bodies --scene room --frames 120 --screenshot docs/many_bodies_room.png
run pyramid --frames 100 --fire-frame 20 --screenshot docs/pyramid.png
run tower --frames 60 --screenshot docs/tower.png
run joints --frames 150 --screenshot docs/joints.png
run rain --frames 10 --steps-per-frame 30 --screenshot docs/rain.png
run level --frames 240 --screenshot docs/level.png
run shapes --frames 60 --steps-per-frame 2 --screenshot docs/shapes.png
