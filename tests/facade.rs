//! End to end through the facade: the prelude is enough for seed 003's AABB test.

use minirigid::prelude::*;

#[test]
fn seed_003_aabb_from_vertices_follows_the_body() {
    // A cube mesh of side 2 and its collider, the AABB of its vertex list.
    let mesh: Vec<Point3> = Aabb::new(Point3::new(-1.0, -1.0, -1.0), Point3::new(1.0, 1.0, 1.0))
        .corners()
        .to_vec();
    let local = Aabb::from_points(&mesh).unwrap();
    // Seed 003's scene: walls at x = -13 and x = 13, the moving body between them.
    let left = local.translated(&Vector3::new(-13.0, 0.0, 0.0));
    let right = local.translated(&Vector3::new(13.0, 0.0, 0.0));
    let mut x: Real = 0.0;
    let mut steps = 0;
    // Moving 0.1 a step, the body first overlaps the right wall by more than 0.02 on every axis
    // when its right face passes 12.02 (the wall spans 12..14): x > 11.02, step 111.
    while right
        .overlap(&local.translated(&Vector3::new(x, 0.0, 0.0)))
        .min()
        <= 0.02
    {
        x += 0.1;
        steps += 1;
        assert!(steps < 1000);
    }
    assert_eq!(steps, 111);
    assert!(!left.intersects(&local.translated(&Vector3::new(x, 0.0, 0.0))));
}
