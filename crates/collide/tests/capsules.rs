//! Capsule pairs: analytic answers at faces, edges and ends ("just touching" beside "just
//! missing"), and 10,000 seeded pairs each against references (parry3d's distances where the
//! cores are apart; an f64 separating axis test over the box's faces and the segment's
//! crosses with its edges where a segment goes through a box), the push-out leaving the
//! shapes touching.

mod common;

use collide::{
    Contact, capsule_capsule_contact_within, capsule_obb_contact_within, contact, ray_capsule,
    sphere_capsule_contact_within, volume_contact,
};
use common::{Rng, random_obb};
use geom::na;
use geom::{Capsule, Isometry3, Obb, Point3, Ray, Real, Shape, Sphere, UnitQuaternion, Vector3};
use parry3d::glamx::{Quat, Vec3};
use parry3d::math::Pose;
use parry3d::query;
use parry3d::shape::{Cuboid, Segment};

const CASES: usize = 10_000;

fn capsule_y(center: Point3, half: Real, radius: Real) -> Capsule {
    let h = Vector3::new(0.0, half, 0.0);
    Capsule::new(center - h, center + h, radius)
}

fn unit_box() -> Obb {
    Obb::new(
        Point3::origin(),
        UnitQuaternion::identity(),
        Vector3::repeat(1.0),
    )
}

fn close(a: Real, b: Real) -> bool {
    (a - b).abs() < 1e-5
}

#[test]
fn a_ball_meets_a_capsule_at_its_side_and_its_end() {
    let c = capsule_y(Point3::origin(), 1.0, 0.5);
    let side =
        sphere_capsule_contact_within(&Sphere::new(Point3::new(1.2, 0.3, 0.0), 1.0), &c, 0.0)
            .unwrap();
    assert!((side.normal + Vector3::x()).norm() < 1e-6);
    assert!(close(side.depth, 0.3));
    let end =
        sphere_capsule_contact_within(&Sphere::new(Point3::new(0.0, -2.0, 0.0), 0.5), &c, 0.0)
            .unwrap();
    assert_eq!(end.normal, Vector3::y());
    assert!(close(end.depth, 0.0));
    let missing = Sphere::new(Point3::new(0.0, -2.0001, 0.0), 0.5);
    assert!(sphere_capsule_contact_within(&missing, &c, 0.0).is_none());
    // Speculative: 0.1 apart within a margin of 0.2.
    let near = Sphere::new(Point3::new(0.0, -2.1, 0.0), 0.5);
    assert!(close(
        sphere_capsule_contact_within(&near, &c, 0.2).unwrap().depth,
        -0.1
    ));
}

#[test]
fn two_capsules_crossed_side_by_side_and_end_to_end() {
    let a = capsule_y(Point3::origin(), 1.0, 0.25);
    // Crossed: b along x, 0.4 in front along z.
    let b = Capsule::new(
        Point3::new(-1.0, 0.2, 0.4),
        Point3::new(1.0, 0.2, 0.4),
        0.25,
    );
    let c = capsule_capsule_contact_within(&a, &b, 0.0).unwrap();
    assert_eq!(c.points.len(), 1);
    assert!((c.normal - Vector3::z()).norm() < 1e-6 && close(c.depth, 0.1));
    assert!((c.points[0].position - Point3::new(0.0, 0.2, 0.2)).norm() < 1e-5);
    // Side by side: held at both ends of the overlap, b's lower end over a's middle.
    let b = capsule_y(Point3::new(0.5, 0.5, 0.0), 1.0, 0.25);
    let c = capsule_capsule_contact_within(&a, &b, 0.0).unwrap();
    assert_eq!(c.points.len(), 2);
    assert!((c.normal - Vector3::x()).norm() < 1e-6);
    for (p, y) in c.points.iter().zip([-0.5, 1.0]) {
        assert!(close(p.depth, 0.0) && (p.position - Point3::new(0.25, y, 0.0)).norm() < 1e-5);
    }
    // End to end along y: just touching, then just missing.
    let b = capsule_y(Point3::new(0.0, 2.5, 0.0), 1.0, 0.25);
    let c = capsule_capsule_contact_within(&a, &b, 0.0).unwrap();
    assert!(close(c.depth, 0.0) && (c.normal - Vector3::y()).norm() < 1e-6);
    let b = capsule_y(Point3::new(0.0, 2.5001, 0.0), 1.0, 0.25);
    assert!(capsule_capsule_contact_within(&a, &b, 0.0).is_none());
    // Segments that cross: out along their common perpendicular, toward b.
    let b = Capsule::new(
        Point3::new(-1.0, 0.0, 0.01),
        Point3::new(1.0, 0.0, 0.01),
        0.25,
    );
    let c = capsule_capsule_contact_within(&a, &b, 0.0).unwrap();
    assert!((c.normal - Vector3::z()).norm() < 1e-4 && close(c.depth, 0.49));
}

#[test]
fn a_capsule_on_a_box_face_edge_and_corner() {
    let b = unit_box();
    // Lying on the top face, sunk 0.1: two points, normal down into the box.
    let lying = Capsule::new(Point3::new(-0.5, 1.4, 0.2), Point3::new(0.5, 1.4, 0.2), 0.5);
    let c = capsule_obb_contact_within(&lying, &b, 0.0).unwrap();
    assert_eq!(c.normal, -Vector3::y());
    assert_eq!(c.points.len(), 2);
    for (p, x) in c.points.iter().zip([-0.5, 0.5]) {
        assert!(close(p.depth, 0.1));
        assert!((p.position - Point3::new(x, 0.95, 0.2)).norm() < 1e-5);
    }
    // Overhanging the face: clipped to its sides.
    let long = Capsule::new(Point3::new(-3.0, 1.5, 0.0), Point3::new(0.0, 1.5, 0.0), 0.5);
    let c = capsule_obb_contact_within(&long, &b, 0.0).unwrap();
    let xs: Vec<Real> = c.points.iter().map(|p| p.position.x).collect();
    assert_eq!(xs, vec![-1.0, 0.0]);
    assert!(close(c.depth, 0.0));
    // Standing on its end: one point.
    let standing = capsule_y(Point3::new(0.3, 2.4, 0.0), 1.0, 0.5);
    let c = capsule_obb_contact_within(&standing, &b, 0.0).unwrap();
    assert_eq!(c.points.len(), 1);
    assert!(close(c.depth, 0.1) && c.normal == -Vector3::y());
    // Along the (+x, +y) edge, 45 degrees out: just touching, then just missing.
    let out = Vector3::new(1.0, 1.0, 0.0).normalize();
    let along = |gap: Real| {
        let centre = Point3::new(1.0, 1.0, 0.0) + out * gap;
        Capsule::new(
            centre - Vector3::z() * 3.0,
            centre + Vector3::z() * 3.0,
            0.5,
        )
    };
    let c = capsule_obb_contact_within(&along(0.5), &b, 0.0).unwrap();
    assert!(close(c.depth, 0.0) && (c.normal + out).norm() < 1e-5);
    assert!(capsule_obb_contact_within(&along(0.5001), &b, 0.0).is_none());
    // Off the (+1, +1, +1) corner along the diagonal, end first.
    let diagonal = Vector3::repeat(1.0).normalize();
    let end = Point3::new(1.0, 1.0, 1.0) + diagonal * 0.4;
    let corner = Capsule::new(end, end + diagonal * 2.0, 0.5);
    let c = capsule_obb_contact_within(&corner, &b, 0.0).unwrap();
    assert!(close(c.depth, 0.1) && (c.normal + diagonal).norm() < 1e-5);
    // Through the box, deep: out through the nearest face.
    let through = Capsule::new(
        Point3::new(-3.0, 0.7, 0.0),
        Point3::new(3.0, 0.7, 0.0),
        0.25,
    );
    let c = capsule_obb_contact_within(&through, &b, 0.0).unwrap();
    assert_eq!(c.normal, -Vector3::y());
    assert!(close(c.depth, 0.55));
}

/// An f64 reference for a segment and a box: the distance between them (parry3d) when apart;
/// minus the depth of the least-penetrating axis over the box's faces and the segment's
/// crosses with its edges when the segment enters the box.
fn segment_box_gap(capsule: &Capsule, obb: &Obb) -> f64 {
    let to64 = |p: &Point3| na::Vector3::new(f64::from(p.x), f64::from(p.y), f64::from(p.z));
    let m = obb.rotation.to_rotation_matrix().matrix().cast::<f64>();
    let local = |p: &Point3| m.transpose() * (to64(p) - to64(&obb.center));
    let (p0, p1) = (local(&capsule.a), local(&capsule.b));
    let h = obb.half_extents.cast::<f64>();
    let d = p1 - p0;
    let mut axes: Vec<na::Vector3<f64>> =
        vec![na::Vector3::x(), na::Vector3::y(), na::Vector3::z()];
    for k in 0..3 {
        let l = d.cross(&axes[k]);
        if l.norm() > 1e-9 {
            axes.push(l.normalize());
        }
    }
    let c = (p0 + p1) * 0.5;
    let sat = axes
        .iter()
        .map(|l| {
            c.dot(l).abs()
                - (h.x * l.x.abs() + h.y * l.y.abs() + h.z * l.z.abs())
                - 0.5 * d.dot(l).abs()
        })
        .fold(f64::NEG_INFINITY, f64::max);
    if sat < 0.0 {
        return sat;
    }
    let pose = Pose::from_parts(Vec3::from(obb.center.coords), Quat::from(obb.rotation));
    let segment = Segment::new(Vec3::from(capsule.a.coords), Vec3::from(capsule.b.coords));
    let distance = query::distance(
        &Pose::IDENTITY,
        &segment,
        &pose,
        &Cuboid::new(Vec3::from(obb.half_extents)),
    )
    .unwrap();
    f64::from(distance.distance)
}

fn random_capsule(rng: &mut Rng) -> Capsule {
    let centre = rng.point(2.0);
    let half = rng.rotation() * Vector3::new(0.0, rng.range(0.1, 1.5), 0.0);
    Capsule::new(centre - half, centre + half, rng.range(0.1, 1.0))
}

fn moved_capsule(c: &Capsule, offset: &Vector3) -> Capsule {
    Capsule::new(c.a + offset, c.b + offset, c.radius)
}

fn check_contact(case: usize, c: &Contact, expected: Real, tolerance: Real) {
    assert!((c.normal.norm() - 1.0).abs() < 1e-5, "case {case}: normal");
    assert!(
        (c.depth - expected).abs() <= tolerance,
        "case {case}: depth {} against {expected}",
        c.depth
    );
    assert!(!c.points.is_empty() && c.points.iter().all(|p| p.depth <= c.depth));
}

#[test]
fn capsule_box_agrees_with_the_references_and_pushes_out_to_touching() {
    let mut rng = Rng(41);
    let (mut touching, mut deep, mut speculative) = (0, 0, 0);
    for case in 0..CASES {
        let (capsule, obb) = (random_capsule(&mut rng), random_obb(&mut rng));
        let margin = 0.1;
        let gap = segment_box_gap(&capsule, &obb) as Real;
        let expected = capsule.radius - gap;
        let found = capsule_obb_contact_within(&capsule, &obb, margin);
        let tolerance = 2e-4;
        if expected < -margin - tolerance {
            assert!(found.is_none(), "case {case}: a contact {gap} apart");
            continue;
        }
        if expected < -margin + tolerance {
            continue;
        }
        let c = found.unwrap_or_else(|| panic!("case {case}: no contact, depth {expected}"));
        check_contact(case, &c, expected, tolerance);
        if expected < 0.0 {
            speculative += 1;
            continue;
        }
        if gap < 0.0 {
            deep += 1;
        } else {
            touching += 1;
        }
        // The capsule moved back by the depth along the normal just touches the box.
        let after = moved_capsule(&capsule, &(-c.normal * c.depth));
        let left = capsule.radius - segment_box_gap(&after, &obb) as Real;
        assert!(
            left.abs() <= tolerance,
            "case {case}: {left} deep after the push"
        );
    }
    assert!(
        touching > 500 && deep > 500 && speculative > 100,
        "{touching} {deep} {speculative}"
    );
}

#[test]
fn capsule_pairs_agree_with_parry_and_push_out_to_touching() {
    let mut rng = Rng(42);
    let segment = |c: &Capsule| Segment::new(Vec3::from(c.a.coords), Vec3::from(c.b.coords));
    let core_gap = |a: &Capsule, b: &Capsule| {
        query::distance(&Pose::IDENTITY, &segment(a), &Pose::IDENTITY, &segment(b))
            .unwrap()
            .distance
    };
    let mut compared = 0;
    for case in 0..CASES {
        let (a, b) = (random_capsule(&mut rng), random_capsule(&mut rng));
        let expected = a.radius + b.radius - core_gap(&a, &b);
        let found = capsule_capsule_contact_within(&a, &b, 0.0);
        if expected.abs() < 1e-4 {
            continue;
        }
        assert_eq!(found.is_some(), expected > 0.0, "case {case}: {expected}");
        let Some(c) = found else { continue };
        compared += 1;
        check_contact(case, &c, expected, 1e-4);
        let after = moved_capsule(&b, &(c.normal * c.depth));
        let left = a.radius + b.radius - core_gap(&a, &after);
        assert!(
            left.abs() <= 2e-4,
            "case {case}: {left} deep after the push"
        );
        // A ball is a capsule of no length.
        let ball = Sphere::new(b.a, b.radius);
        let expected = a.radius + b.radius - core_gap(&a, &Capsule::new(b.a, b.a, 0.0));
        if let Some(c) = sphere_capsule_contact_within(&ball, &a, 0.0) {
            check_contact(case, &c, expected, 1e-4);
        }
    }
    assert!(compared > 1000, "{compared}");
}

#[test]
fn shapes_dispatch_and_rays_hit_capsules() {
    let capsule = Shape::capsule(1.0, 0.5).unwrap();
    let lying = Isometry3::new(
        Vector3::new(0.0, 1.45, 0.0),
        Vector3::z() * std::f32::consts::FRAC_PI_2,
    );
    let floor = Shape::cuboid(Vector3::new(5.0, 1.0, 5.0)).unwrap();
    let c = contact(&floor, &Isometry3::identity(), &capsule, &lying).unwrap();
    assert!((c.normal - Vector3::y()).norm() < 1e-6 && close(c.depth, 0.05));
    assert_eq!(c.points.len(), 2);
    let v = capsule.world(&lying);
    let again = volume_contact(&v, &floor.world(&Isometry3::identity())).unwrap();
    assert!((again.normal + Vector3::y()).norm() < 1e-6);
    // Rays: the round side, an end, from inside, missing.
    let c = capsule_y(Point3::origin(), 1.0, 0.5);
    let hit = ray_capsule(
        &Ray::new(Point3::new(-3.0, 0.5, 0.0), Vector3::x()),
        &c,
        10.0,
    )
    .unwrap();
    assert!(close(hit.toi, 2.5) && (hit.normal + Vector3::x()).norm() < 1e-6);
    let hit = ray_capsule(
        &Ray::new(Point3::new(0.0, 5.0, 0.0), -Vector3::y()),
        &c,
        10.0,
    )
    .unwrap();
    assert!(close(hit.toi, 3.5) && (hit.normal - Vector3::y()).norm() < 1e-6);
    let hit = ray_capsule(
        &Ray::new(Point3::new(0.0, 1.2, 0.0), Vector3::x()),
        &c,
        10.0,
    )
    .unwrap();
    assert_eq!(hit.toi, 0.0);
    assert!(
        ray_capsule(
            &Ray::new(Point3::new(-3.0, 0.0, 0.51), Vector3::x()),
            &c,
            10.0
        )
        .is_none()
    );
    assert!(
        ray_capsule(
            &Ray::new(Point3::new(-3.0, 0.5, 0.0), Vector3::x()),
            &c,
            2.4
        )
        .is_none()
    );
}
