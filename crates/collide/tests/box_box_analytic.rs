//! Box-box contacts with exact answers, including "just missing" next to "just touching".

use collide::{Contact, SatAxis, obb_obb_contact, obb_obb_intersects, obb_obb_sat};
use geom::{Obb, Point3, Real, UnitQuaternion, Vector3};
use std::f32::consts::{FRAC_PI_4, SQRT_2};

fn cube(center: Point3, half: Real) -> Obb {
    Obb::new(center, UnitQuaternion::identity(), Vector3::repeat(half))
}

fn boxed(center: Point3, rotation: UnitQuaternion, half: Vector3) -> Obb {
    Obb::new(center, rotation, half)
}

fn contact(a: &Obb, b: &Obb) -> Contact {
    assert!(obb_obb_intersects(a, b), "the boolean test must agree");
    obb_obb_contact(a, b).expect("the boxes overlap")
}

fn assert_close(got: Real, want: Real, tolerance: Real, what: &str) {
    assert!(
        (got - want).abs() <= tolerance,
        "{what}: got {got}, want {want}"
    );
}

fn assert_vec(got: &Vector3, want: &Vector3, tolerance: Real, what: &str) {
    assert!(
        (got - want).norm() <= tolerance,
        "{what}: got {got:?}, want {want:?}"
    );
}

/// Every contact point lies within both boxes grown by half the depth (it is midway).
fn assert_points_in_both(c: &Contact, a: &Obb, b: &Obb) {
    for p in &c.points {
        for (name, o) in [("a", a), ("b", b)] {
            let local = o.to_local(&p.position);
            let excess = (local.coords.abs() - o.half_extents).max();
            assert!(
                excess <= 0.5 * c.depth + 1e-4,
                "{p:?} outside {name} by {excess}"
            );
        }
    }
}

#[test]
fn face_face_resting_gives_four_points_and_exact_depth() {
    let a = cube(Point3::origin(), 1.0);
    let b = cube(Point3::new(0.5, 1.9, 0.0), 1.0);
    let c = contact(&a, &b);
    assert_eq!(c.normal, Vector3::y());
    assert_close(c.depth, 0.1, 1e-6, "depth");
    assert_eq!(c.points.len(), 4);
    for p in &c.points {
        assert_close(p.depth, 0.1, 1e-6, "point depth");
        assert_close(p.position.y, 0.95, 1e-6, "midway height");
        assert!(p.position.x == -0.5 || p.position.x == 1.0, "{p:?}");
        assert!(p.position.z.abs() == 1.0, "{p:?}");
    }
    assert_points_in_both(&c, &a, &b);
    // Feature ids are distinct within the manifold.
    let mut ids: Vec<_> = c.points.iter().map(|p| p.id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 4);
}

#[test]
fn small_turned_box_on_a_face_gives_its_four_corners() {
    let a = cube(Point3::origin(), 1.0);
    let turn = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), 0.3);
    let b = boxed(
        Point3::new(0.1, 1.45, -0.2),
        turn,
        Vector3::new(0.5, 0.5, 0.3),
    );
    let c = contact(&a, &b);
    assert_eq!(c.normal, Vector3::y());
    assert_close(c.depth, 0.05, 1e-6, "depth");
    assert_eq!(c.points.len(), 4);
    for p in &c.points {
        assert_close(p.position.y, 0.975, 1e-6, "midway height");
    }
    assert_points_in_both(&c, &a, &b);
}

/// Two unit cubes: A turned 45 degrees about x (its top edge runs along x at height sqrt 2), B
/// turned 45 degrees about z and lifted so that its bottom edge (along z) crosses A's top edge
/// with an overlap of `overlap`.
fn crossing_edges(overlap: Real) -> (Obb, Obb) {
    let a = boxed(
        Point3::origin(),
        UnitQuaternion::from_axis_angle(&Vector3::x_axis(), FRAC_PI_4),
        Vector3::repeat(1.0),
    );
    let b = boxed(
        Point3::new(0.0, 2.0 * SQRT_2 - overlap, 0.0),
        UnitQuaternion::from_axis_angle(&Vector3::z_axis(), FRAC_PI_4),
        Vector3::repeat(1.0),
    );
    (a, b)
}

#[test]
fn edge_edge_crossing_gives_one_point_along_the_cross_product() {
    let (a, b) = crossing_edges(0.1);
    let c = contact(&a, &b);
    assert!(matches!(obb_obb_sat(&a, &b).axis, SatAxis::Edge(0, 2)));
    assert_vec(&c.normal, &Vector3::y(), 1e-5, "normal along x cross z");
    assert_close(c.depth, 0.1, 1e-5, "depth");
    assert_eq!(c.points.len(), 1);
    assert_vec(
        &c.points[0].position.coords,
        &Vector3::new(0.0, SQRT_2 - 0.05, 0.0),
        1e-5,
        "midway between the edges",
    );
}

/// A unit cube standing on a corner (its diagonal vertical), its lowest vertex `overlap` below
/// the top face of a cube of half extent 2.
fn vertex_on_face(overlap: Real) -> (Obb, Obb) {
    let a = cube(Point3::origin(), 2.0);
    let diagonal = Vector3::new(-1.0, -1.0, -1.0).normalize();
    let rotation = UnitQuaternion::rotation_between(&diagonal, &-Vector3::y()).unwrap();
    let b = boxed(
        Point3::new(0.2, 2.0 + 3f32.sqrt() - overlap, 0.3),
        rotation,
        Vector3::repeat(1.0),
    );
    (a, b)
}

#[test]
fn vertex_face_gives_one_point() {
    let (a, b) = vertex_on_face(0.05);
    let c = contact(&a, &b);
    assert_vec(&c.normal, &Vector3::y(), 1e-6, "normal");
    assert_close(c.depth, 0.05, 1e-5, "depth");
    assert_eq!(c.points.len(), 1);
    assert_vec(
        &c.points[0].position.coords,
        &Vector3::new(0.2, 2.0 - 0.025, 0.3),
        1e-5,
        "midway below the vertex",
    );
}

#[test]
fn identical_boxes_have_the_full_depth() {
    // parry's GJK/EPA contact reports depth 0 here; the exact minimum is the smallest extent.
    let a = boxed(
        Point3::new(1.0, 2.0, 3.0),
        UnitQuaternion::from_euler_angles(0.1, 0.2, 0.3),
        Vector3::new(1.0, 2.0, 3.0),
    );
    let c = contact(&a, &a);
    assert_close(c.depth, 2.0, 1e-5, "depth");
    assert_close(c.normal.norm(), 1.0, 1e-6, "unit normal");
    assert_close(
        c.normal.dot(&a.axes()[0]).abs(),
        1.0,
        1e-6,
        "along the thinnest axis",
    );
    assert_eq!(c.points.len(), 4);
}

#[test]
fn box_inside_another_leaves_by_the_nearest_face() {
    let big = cube(Point3::origin(), 10.0);
    let small = cube(Point3::new(3.0, -1.0, 0.5), 1.0);
    let c = contact(&big, &small);
    assert_eq!(c.normal, Vector3::x());
    assert_close(c.depth, 8.0, 1e-5, "depth");
    let reversed = contact(&small, &big);
    assert_eq!(reversed.normal, -Vector3::x());
    assert_close(reversed.depth, 8.0, 1e-5, "depth");
}

#[test]
fn thin_plates() {
    let a = boxed(
        Point3::origin(),
        UnitQuaternion::identity(),
        Vector3::new(1.0, 1e-3, 1.0),
    );
    let b = boxed(
        Point3::new(0.3, 1.5e-3, 0.0),
        UnitQuaternion::from_axis_angle(&Vector3::y_axis(), 0.4),
        Vector3::new(0.5, 1e-3, 0.5),
    );
    let c = contact(&a, &b);
    assert_vec(&c.normal, &Vector3::y(), 1e-6, "normal");
    assert_close(c.depth, 0.5e-3, 1e-7, "depth");
    assert_eq!(c.points.len(), 4);
    assert_points_in_both(&c, &a, &b);
}

#[test]
fn scale_ratio_of_a_thousand() {
    let ground = boxed(
        Point3::origin(),
        UnitQuaternion::identity(),
        Vector3::new(1000.0, 1.0, 1000.0),
    );
    let b = cube(Point3::new(250.0, 1.9, -40.0), 1.0);
    for (c, sign) in [(contact(&ground, &b), 1.0), (contact(&b, &ground), -1.0)] {
        assert_vec(&c.normal, &(Vector3::y() * sign), 1e-6, "normal");
        assert_close(c.depth, 0.1, 1e-4, "depth");
        assert_eq!(c.points.len(), 4);
    }
}

#[test]
fn near_parallel_edges_within_a_microradian() {
    let a = cube(Point3::origin(), 1.0);
    let b = boxed(
        Point3::new(0.2, 1.9, 0.1),
        UnitQuaternion::from_axis_angle(&Vector3::y_axis(), 1e-6)
            * UnitQuaternion::from_axis_angle(&Vector3::x_axis(), 1e-6),
        Vector3::repeat(1.0),
    );
    let c = contact(&a, &b);
    assert!(c.normal.iter().all(|x| x.is_finite()));
    assert_vec(&c.normal, &Vector3::y(), 1e-5, "normal");
    assert_close(c.depth, 0.1, 1e-5, "depth");
    assert_eq!(c.points.len(), 4);
}

/// Touching (gap 0) intersects with depth about 0; 1e-4 further apart, nothing.
fn assert_boundary(touching: (Obb, Obb), missing: (Obb, Obb), what: &str) {
    let (a, b) = touching;
    assert!(
        obb_obb_intersects(&a, &b),
        "{what}: touching must intersect"
    );
    let c = obb_obb_contact(&a, &b).unwrap_or_else(|| panic!("{what}: touching gives a contact"));
    assert!(
        c.depth.abs() <= 2e-6,
        "{what}: depth {} at touching",
        c.depth
    );
    let (a, b) = missing;
    assert!(
        !obb_obb_intersects(&a, &b),
        "{what}: 1e-4 apart must not intersect"
    );
    assert!(
        obb_obb_contact(&a, &b).is_none(),
        "{what}: 1e-4 apart gives no contact"
    );
    assert!(obb_obb_sat(&a, &b).separation > 0.0);
}

#[test]
fn just_touching_next_to_just_missing() {
    // Faces: exact in f32.
    let a = cube(Point3::origin(), 1.0);
    assert_boundary(
        (a, cube(Point3::new(0.3, 2.0, 0.0), 1.0)),
        (a, cube(Point3::new(0.3, 2.0 + 1e-4, 0.0), 1.0)),
        "face",
    );
    // Edges: the crossing edges at overlap 0 and -1e-4 (touching up to the rounding of sqrt 2,
    // which the depth tolerance of 2e-6 covers).
    assert_boundary(crossing_edges(0.0), crossing_edges(-1e-4), "edge");
    // A vertex on a face, likewise (up to the rounding of sqrt 3 and the rotation).
    assert_boundary(vertex_on_face(0.0), vertex_on_face(-1e-4), "vertex");
}
