//! Every constructor that takes user data rejects NaN, infinities, zero and negative sizes and
//! zero-length directions or quaternions, with an error that names the field.

use geom::d2::{Aabb2, Circle, ConvexPolygon, Obb2};
use geom::validate::{isometry, rotation_from_axis_angle, unit_quaternion};
use geom::{
    Aabb, GeomError, Isometry3, Obb, Point2, Point3, Quaternion, Ray, Real, Shape, Sphere,
    UnitQuaternion, Vector2, Vector3,
};

const NAN: Real = Real::NAN;
const INF: Real = Real::INFINITY;

/// Checks that `result` is an error whose message names `field`.
fn rejects<T: std::fmt::Debug>(result: Result<T, GeomError>, field: &str) {
    match result {
        Ok(v) => panic!("accepted {v:?}, expected an error naming {field}"),
        Err(e) => assert!(e.to_string().contains(field), "`{e}` does not name {field}"),
    }
}

fn p3(x: Real, y: Real, z: Real) -> Point3 {
    Point3::new(x, y, z)
}

#[test]
fn aabb() {
    let o = Point3::origin();
    for bad in [NAN, INF, -INF] {
        rejects(
            Aabb::try_new(p3(bad, 0.0, 0.0), p3(1.0, 1.0, 1.0)),
            "mins.x",
        );
        rejects(Aabb::try_new(o, p3(1.0, 1.0, bad)), "maxs.z");
        rejects(
            Aabb::try_from_points(&[o, p3(0.0, bad, 0.0)]),
            "points[1].y",
        );
    }
    rejects(
        Aabb::try_new(p3(0.0, 0.0, 2.0), p3(1.0, 1.0, 1.0)),
        "aabb.z",
    );
    rejects(Aabb::try_from_points(&[]), "points");
    assert!(Aabb::from_points(&[p3(NAN, 0.0, 0.0)]).is_none());
}

#[test]
fn obb() {
    let (o, id, one) = (
        Point3::origin(),
        UnitQuaternion::identity(),
        Vector3::repeat(1.0),
    );
    for bad in [NAN, INF, -INF, 0.0, -1.0] {
        rejects(
            Obb::try_new(o, id, Vector3::new(1.0, bad, 1.0)),
            "half_extents.y",
        );
    }
    for bad in [NAN, INF] {
        rejects(Obb::try_new(p3(0.0, 0.0, bad), id, one), "center.z");
        rejects(Obb::try_from_points(&[p3(bad, 0.0, 0.0)]), "points[0].x");
    }
    let zero = UnitQuaternion::new_unchecked(Quaternion::new(0.0, 0.0, 0.0, 0.0));
    rejects(Obb::try_new(o, zero, one), "rotation");
    let nan = UnitQuaternion::new_unchecked(Quaternion::new(1.0, NAN, 0.0, 0.0));
    rejects(Obb::try_new(o, nan, one), "rotation.i");
    let scaled = UnitQuaternion::new_unchecked(Quaternion::new(3.0, 0.0, 0.0, 0.0));
    rejects(Obb::try_new(o, scaled, one), "rotation");
    rejects(Obb::try_from_points(&[]), "points");
}

#[test]
fn sphere_ray_shape() {
    for bad in [NAN, INF, -INF, 0.0, -1.0] {
        rejects(Sphere::try_new(Point3::origin(), bad), "radius");
        rejects(Shape::ball(bad), "radius");
        rejects(Shape::cuboid(Vector3::new(bad, 1.0, 1.0)), "half_extents.x");
    }
    for bad in [NAN, INF] {
        rejects(Sphere::try_new(p3(0.0, bad, 0.0), 1.0), "center.y");
        rejects(Sphere::try_from_points(&[p3(0.0, 0.0, bad)]), "points[0].z");
        rejects(Ray::try_new(p3(bad, 0.0, 0.0), Vector3::x()), "origin.x");
        rejects(
            Ray::try_new(Point3::origin(), Vector3::new(1.0, 0.0, bad)),
            "dir.z",
        );
    }
    rejects(Ray::try_new(Point3::origin(), Vector3::zeros()), "dir");
    rejects(Sphere::try_from_points(&[]), "points");
    rejects(Shape::Ball { radius: -2.0 }.validate(), "radius");
}

#[test]
fn rotations_and_poses() {
    rejects(
        unit_quaternion("q", &Quaternion::new(0.0, 0.0, 0.0, 0.0)),
        "q",
    );
    rejects(
        unit_quaternion("q", &Quaternion::new(INF, 0.0, 0.0, 0.0)),
        "q.w",
    );
    // A raw quaternion of any non-zero length is normalised.
    let q = unit_quaternion("q", &Quaternion::new(2.0, 0.0, 0.0, 0.0)).unwrap();
    assert_eq!(q, UnitQuaternion::identity());
    rejects(rotation_from_axis_angle(&Vector3::zeros(), 1.0), "axis");
    rejects(rotation_from_axis_angle(&Vector3::x(), NAN), "angle");
    let mut pose = Isometry3::identity();
    pose.translation.vector.y = NAN;
    rejects(isometry("pose", &pose), "pose.translation.y");
    let mut pose = Isometry3::identity();
    pose.rotation = UnitQuaternion::new_unchecked(Quaternion::new(0.0, 0.0, 0.0, 0.0));
    rejects(isometry("pose", &pose), "pose.rotation");
}

#[test]
fn two_d() {
    let o = Point2::origin();
    for bad in [NAN, INF, -INF, 0.0, -1.0] {
        rejects(
            Obb2::try_new(o, Vector2::new(bad, 1.0), 0.0),
            "half_extents.x",
        );
        rejects(Circle::try_new(o, bad), "radius");
    }
    for bad in [NAN, INF] {
        rejects(
            Obb2::try_new(Point2::new(bad, 0.0), Vector2::repeat(1.0), 0.0),
            "center.x",
        );
        rejects(Obb2::try_new(o, Vector2::repeat(1.0), bad), "angle");
        rejects(Circle::try_new(Point2::new(0.0, bad), 1.0), "center.y");
        rejects(Aabb2::try_new(Point2::new(bad, 0.0), o), "mins.x");
        let tri = vec![o, Point2::new(1.0, 0.0), Point2::new(0.0, bad)];
        rejects(ConvexPolygon::try_new(tri.clone()), "vertices[2].y");
        rejects(ConvexPolygon::from_points(&tri), "points[2].y");
    }
    rejects(Aabb2::try_new(Point2::new(0.0, 1.0), o), "aabb2.y");
    rejects(
        ConvexPolygon::try_new(vec![o, Point2::new(1.0, 0.0)]),
        "vertices",
    );
    rejects(ConvexPolygon::from_points(&[o, o, o]), "points");
}
