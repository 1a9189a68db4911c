//! Seed 003's AABB test, printed: two cubes of side 2 built from a mesh's vertex list; one slides
//! along x through the other. Each step prints the per-axis overlap of their world AABBs and
//! whether they collide (every axis overlapping by more than seed 003's threshold of 0.02).
//! Then it turns one cube 45 degrees to show the AABB's error for rotated bodies, which is why
//! OBBs exist.
//!
//! Run: `cargo run --example aabb_overlap`

use minirigid::prelude::*;

/// Seed 003's collision threshold: overlap on every axis must exceed it.
const THRESHOLD: Real = 0.02;

fn main() {
    // A cube mesh of side 2: its 8 vertices, as a renderer would hold them.
    let mesh: Vec<Point3> = (0..8)
        .map(|i| {
            let s = |bit: usize| if i & bit != 0 { 1.0 } else { -1.0 };
            Point3::new(s(1), s(2), s(4))
        })
        .collect();
    // The collider: the AABB of the vertex list, in the mesh's own frame.
    let local = Aabb::from_points(&mesh).expect("a non-empty, finite vertex list");
    println!(
        "local AABB from {} vertices: {:?} .. {:?}",
        mesh.len(),
        local.mins.coords.as_slice(),
        local.maxs.coords.as_slice()
    );

    let still = Vector3::new(0.0, 0.5, 0.0);
    let mut moving = Vector3::new(-3.0, 0.0, 0.0);
    let velocity = Vector3::new(0.5, 0.0, 0.0);
    println!("\nstep   x(moving)  overlap x   overlap y   overlap z   collide");
    for step in 0..13 {
        let a = local.translated(&moving);
        let b = local.translated(&still);
        let o = a.overlap(&b);
        let collide = o.x > THRESHOLD && o.y > THRESHOLD && o.z > THRESHOLD;
        println!(
            "{step:>4}   {:>8.2}   {:>9.3}   {:>9.3}   {:>9.3}   {}",
            moving.x,
            o.x,
            o.y,
            o.z,
            if collide { "yes" } else { "no" }
        );
        moving += velocity;
    }

    // A cube turned 45 degrees about z: its AABB grows by sqrt(2) on x and y, so it "collides"
    // with things its OBB does not touch.
    let turn = Isometry3::new(Vector3::zeros(), Vector3::z() * std::f32::consts::FRAC_PI_4);
    let turned = local.transformed(&turn);
    let obb = Obb::from_aabb(&local).transformed(&turn);
    let probe = Point3::new(1.3, 1.3, 0.0);
    println!(
        "\ncube turned 45 deg about z: AABB half extents {:.3?}; AABB volume {:.2} vs OBB volume {:.2}",
        turned.half_extents().as_slice(),
        turned.volume(),
        obb.volume()
    );
    println!(
        "point (1.3, 1.3, 0): inside the AABB? {}; inside the OBB? {}",
        turned.contains_point(&probe),
        obb.contains_point(&probe)
    );
}
