//! Speculative contacts: shapes within a margin get contact points with negative depth (the
//! gap), overlapping shapes get the same minimum translation as without a margin, and the
//! feature ids of a resting face contact stay the same as the boxes shift a little.

mod common;

use collide::{
    obb_obb_contact, obb_obb_contact_within, sphere_obb_contact_within,
    sphere_sphere_contact_within,
};
use common::Rng;
use geom::{Obb, Point3, Real, Sphere, UnitQuaternion, Vector3};

fn cube(center: Point3, half: Real) -> Obb {
    Obb::new(center, UnitQuaternion::identity(), Vector3::repeat(half))
}

#[test]
fn a_gap_within_the_margin_gives_four_points_with_the_gap_as_depth() {
    let floor = Obb::new(
        Point3::new(0.0, -1.0, 0.0),
        UnitQuaternion::identity(),
        Vector3::new(10.0, 1.0, 10.0),
    );
    let gap = 0.01;
    let block = cube(Point3::new(0.3, 0.5 + gap, -0.2), 0.5);
    assert!(obb_obb_contact(&floor, &block).is_none());
    assert!(obb_obb_contact_within(&floor, &block, 0.005).is_none());
    let c = obb_obb_contact_within(&floor, &block, 0.02).expect("within the margin");
    assert_eq!(c.normal, Vector3::y());
    assert!((c.depth + gap).abs() < 1e-5, "depth {}", c.depth);
    assert_eq!(c.points.len(), 4);
    for p in &c.points {
        assert!((p.depth + gap).abs() < 1e-5, "point depth {}", p.depth);
        // Midway between the surfaces.
        assert!((p.position.y - 0.5 * gap).abs() < 1e-5);
    }
    // A tilted block: only the corners within the margin are kept, each with its own gap.
    let tilt = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), 0.02);
    let mut tilted = block;
    tilted.rotation = tilt;
    tilted.center.y = 0.5 * (0.02f32).cos() + 0.5 * (0.02f32).sin() + 0.001;
    let c = obb_obb_contact_within(&floor, &tilted, 0.01).expect("lowest edge within");
    assert_eq!(c.points.len(), 2, "{:?}", c.points);
    let all = obb_obb_contact_within(&floor, &tilted, 0.05).unwrap();
    assert_eq!(all.points.len(), 4);
    assert!(all.points.iter().all(|p| p.depth < 0.0 && p.depth >= -0.05));
}

#[test]
fn parallel_faces_far_apart_give_a_face_contact() {
    // Two cubes face to face, 2.5 cm to a metre apart (a fast pair's margin reaches that far):
    // the edge axes (`y x z` is `x`) separate them exactly as much as the faces do, and the
    // face contact, four points, is the one to keep. Choosing an edge here (one corner point)
    // let two cubes meeting head-on at 50 m/s spin through each other.
    let a = cube(Point3::origin(), 0.5);
    for gap in [0.025, 0.03, 0.1, 0.5, 1.0] {
        let b = cube(Point3::new(1.0 + gap, 0.0, 0.0), 0.5);
        let c = obb_obb_contact_within(&a, &b, 2.0).expect("within the margin");
        assert_eq!(c.normal, Vector3::x(), "gap {gap}");
        assert_eq!(c.points.len(), 4, "gap {gap}: {:?}", c.points);
        for p in &c.points {
            assert!((p.depth + gap).abs() < 1e-5, "gap {gap}: depth {}", p.depth);
        }
    }
}

#[test]
fn spheres_within_the_margin() {
    let a = Sphere::new(Point3::origin(), 1.0);
    let b = Sphere::new(Point3::new(2.01, 0.0, 0.0), 1.0);
    assert!(sphere_sphere_contact_within(&a, &b, 0.005).is_none());
    let c = sphere_sphere_contact_within(&a, &b, 0.02).unwrap();
    assert!((c.depth + 0.01).abs() < 1e-6);
    assert!((c.points[0].position.x - 1.005).abs() < 1e-6);
    let block = cube(Point3::new(0.0, -1.5 - 0.01, 0.0), 0.5);
    let c = sphere_obb_contact_within(&a, &block, 0.02).unwrap();
    assert_eq!(c.normal, -Vector3::y());
    assert!((c.depth + 0.01).abs() < 1e-5);
    assert!(sphere_obb_contact_within(&a, &block, 0.005).is_none());
}

#[test]
fn the_solver_manifold_agrees_with_the_exact_translation_or_prefers_a_face() {
    // `obb_obb_contact_within` reports the exact minimum translation unless a face is within
    // 10% (plus 0.25% of the size) of it, when it reports that face with its clipped points:
    // what a solver needs.
    let mut rng = Rng(0x5eed_0010);
    let (mut overlapping, mut same, mut face_preferred) = (0, 0, 0);
    for _ in 0..5_000 {
        let mut random_box = || {
            Obb::new(
                rng.point(1.0),
                rng.rotation(),
                Vector3::new(
                    rng.range(0.1, 1.0),
                    rng.range(0.1, 1.0),
                    rng.range(0.1, 1.0),
                ),
            )
        };
        let (a, b) = (random_box(), random_box());
        let margin = 0.05;
        match (
            obb_obb_contact(&a, &b),
            obb_obb_contact_within(&a, &b, margin),
        ) {
            (Some(exact), Some(within)) => {
                overlapping += 1;
                assert!(within.points.iter().all(|p| p.depth >= -margin));
                if exact.normal == within.normal {
                    // The same axis; the manifold's depth is its deepest clipped point's.
                    same += 1;
                    assert!(within.depth <= exact.depth + 1e-5, "{a:?} {b:?}");
                } else {
                    // A face of either box, carrying the manifold's points.
                    face_preferred += 1;
                    let is_face = |obb: &Obb| {
                        obb.axes()
                            .iter()
                            .any(|axis| axis.dot(&within.normal).abs() > 1.0 - 1e-5)
                    };
                    assert!(is_face(&a) || is_face(&b), "{a:?} {b:?}");
                    assert!(!within.points.is_empty());
                    let deepest = within
                        .points
                        .iter()
                        .map(|p| p.depth)
                        .fold(-margin, Real::max);
                    assert_eq!(within.depth, deepest);
                }
            }
            (Some(_), None) => panic!("a margin lost an overlapping pair: {a:?} {b:?}"),
            (None, Some(within)) => {
                assert!(within.depth >= -margin);
                assert!(within.points.iter().all(|p| p.depth >= -margin));
            }
            (None, None) => {}
        }
    }
    assert!(overlapping > 1_000, "{overlapping}");
    assert!(same > overlapping / 2, "{same} of {overlapping}");
    assert!(face_preferred > 0);
}

#[test]
fn two_slightly_tilted_boxes_touch_face_to_face_not_edge_to_edge() {
    // The stack that fell through itself: two flat boxes turned a few milliradians, their
    // `A0 x B2` edge axis vertical like the faces and a hair shallower. The exact translation
    // takes the edge axis (one point); the solver's manifold takes the face (four points).
    let a = Obb::new(
        Point3::new(0.0059616086, 6.4495997, 0.0027835683),
        UnitQuaternion::from_quaternion(geom::Quaternion::new(
            0.99998355,
            0.00544099,
            -0.0010839561,
            0.0014732904,
        )),
        Vector3::repeat(0.5),
    );
    let b = Obb::new(
        Point3::new(-0.013721443, 7.4218793, -0.014226516),
        UnitQuaternion::from_quaternion(geom::Quaternion::new(
            0.9999788,
            9.8357654e-5,
            0.00021659727,
            -0.0065120794,
        )),
        Vector3::repeat(0.5),
    );
    let exact = obb_obb_contact(&a, &b).unwrap();
    assert_eq!(exact.points.len(), 1, "the exact MTD is an edge axis here");
    let manifold = obb_obb_contact_within(&a, &b, 0.02).unwrap();
    assert_eq!(manifold.points.len(), 4);
    assert!(manifold.normal.y > 0.999);
}

#[test]
fn resting_face_contacts_keep_their_feature_ids() {
    let floor = Obb::new(
        Point3::new(0.0, -1.0, 0.0),
        UnitQuaternion::identity(),
        Vector3::new(10.0, 1.0, 10.0),
    );
    let ids = |center: Point3, angle: Real| {
        let mut block = cube(center, 0.5);
        block.rotation = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), angle);
        let c = obb_obb_contact_within(&floor, &block, 0.02).unwrap();
        let mut ids: Vec<u32> = c.points.iter().map(|p| p.id.0).collect();
        ids.sort_unstable();
        ids
    };
    let reference = ids(Point3::new(0.0, 0.499, 0.0), 0.3);
    assert_eq!(reference.len(), 4);
    for (dx, dy, angle) in [(0.01, 0.5, 0.31), (-0.2, 0.505, 0.29), (1.0, 0.4999, 0.3)] {
        assert_eq!(ids(Point3::new(dx, dy, 0.0), angle), reference);
    }
}

#[test]
fn flush_stacked_boxes_keep_their_feature_ids_as_they_rock() {
    // A pyramid's rows: the upper cube sits half a size along x, its z extent exactly the
    // lower cube's, so two of its corners lie on the lower face's side planes. As rounding and
    // tiny rocking move them across, the solver's manifold must keep naming them the same
    // (the warm start matches impulses by id).
    let lower = cube(Point3::new(0.0, 0.5, 0.0), 0.5);
    let ids = |angle: Real, axis: Vector3| {
        let turn = UnitQuaternion::from_scaled_axis(axis.normalize() * angle);
        let upper = Obb::new(
            Point3::new(0.5, 1.5 - 1e-4, 0.0),
            turn,
            Vector3::repeat(0.5),
        );
        let c = obb_obb_contact_within(&lower, &upper, 0.02).expect("touching");
        assert_eq!(c.points.len(), 4);
        let mut ids: Vec<_> = c.points.iter().map(|p| p.id).collect();
        ids.sort();
        ids
    };
    let reference = ids(0.0, Vector3::x());
    for axis in [
        Vector3::x(),
        Vector3::y(),
        Vector3::z(),
        Vector3::new(1.0, 0.0, 1.0),
    ] {
        for angle in [-1e-3, -1e-5, 1e-5, 1e-3] {
            assert_eq!(
                ids(angle, axis),
                reference,
                "turned {angle} rad about {axis}"
            );
        }
    }
}
