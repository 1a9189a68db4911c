//! Seeded property tests of the narrow phase: symmetry, invariance under a common rigid motion,
//! contact points inside both shapes, valid MTDs, and no NaN for any valid input, including
//! thin, huge, coincident and axis-aligned (parallel-edged) boxes.

mod common;

use collide::{Contact, contact, intersects, obb_obb_contact, obb_obb_intersects};
use common::{moved, outside, sat64};
use geom::na;
use geom::{Isometry3, Obb, Point3, Real, Shape, UnitQuaternion, Vector3};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

fn config() -> Config {
    Config {
        cases: 1024,
        rng_seed: RngSeed::Fixed(0x636f_6c6c_6964_6521),
        failure_persistence: None,
        ..Config::default()
    }
}

/// Sizes from 1e-3 to 1e2, log-uniform.
fn size() -> impl Strategy<Value = Real> {
    (-3.0f32..2.0).prop_map(|e| 10f32.powf(e))
}

/// Random rotations, and exact quarter turns (whose edges are parallel) a quarter of the time.
fn rotation() -> impl Strategy<Value = UnitQuaternion> {
    prop_oneof![
        3 => (0.0f32..1.0, 0.0f32..1.0, 0.0f32..1.0)
            .prop_map(|(u1, u2, u3)| geom::uniform_rotation(u1, u2, u3)),
        1 => (0..4u8, 0..3usize).prop_map(|(quarters, axis)| {
            let mut v = Vector3::zeros();
            v[axis] = 1.0;
            UnitQuaternion::from_axis_angle(
                &na::Unit::new_normalize(v),
                f32::from(quarters) * std::f32::consts::FRAC_PI_2,
            )
        }),
    ]
}

/// Two boxes placed so that they overlap often.
fn box_pair() -> impl Strategy<Value = (Obb, Obb)> {
    (
        (size(), size(), size()),
        (size(), size(), size()),
        rotation(),
        rotation(),
        (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0),
        -100.0f32..100.0,
    )
        .prop_map(|(ha, hb, ra, rb, offset, base)| {
            let ha = Vector3::new(ha.0, ha.1, ha.2);
            let hb = Vector3::new(hb.0, hb.1, hb.2);
            let ca = Point3::new(base, -base, 0.5 * base);
            let a = Obb::new(ca, ra, ha);
            let b = Obb::new(ca, rb, hb);
            // Within half the sum of their AABBs' half extents on each axis.
            let reach = (a.aabb().half_extents() + b.aabb().half_extents()) * 0.5;
            let offset = Vector3::new(offset.0, offset.1, offset.2).component_mul(&reach);
            (a, Obb::new(ca + offset, rb, hb))
        })
}

fn isometry() -> impl Strategy<Value = Isometry3> {
    ((-50.0f32..50.0, -50.0f32..50.0, -50.0f32..50.0), rotation())
        .prop_map(|(t, r)| Isometry3::from_parts(Vector3::new(t.0, t.1, t.2).into(), r))
}

fn tolerance(a: &Obb, b: &Obb, depth: Real) -> Real {
    let size = a.half_extents.max() + b.half_extents.max();
    let position = a.center.coords.amax().max(b.center.coords.amax());
    1e-3 * depth + 2e-5 * size + 4e-6 * position + 1e-6
}

/// The penetration of the boxes along `normal`, in f64.
fn depth_along(a: &Obb, b: &Obb, normal: &Vector3) -> f64 {
    let l = normal.cast::<f64>();
    let radius = |o: &Obb| {
        let m = o.rotation.to_rotation_matrix().matrix().cast::<f64>();
        (0..3)
            .map(|i| f64::from(o.half_extents[i]) * l.dot(&m.column(i)).abs())
            .sum::<f64>()
    };
    radius(a) + radius(b) - (b.center - a.center).cast::<f64>().dot(&l).abs()
}

/// `c` is a valid contact of `a` and `b`: exact depth (within the face bias), a push by the MTD
/// leaves them touching, finite numbers, points midway inside both.
fn check_contact(a: &Obb, b: &Obb, c: &Contact) -> Result<(), TestCaseError> {
    prop_assert!(c.normal.iter().all(|x| x.is_finite()) && c.depth.is_finite());
    prop_assert!((c.normal.norm() - 1.0).abs() < 1e-4);
    let exact = -sat64(a, b).0 as Real;
    let tol = tolerance(a, b, exact);
    prop_assert!(
        (c.depth - exact).abs() <= tol,
        "depth {} vs exact {}",
        c.depth,
        exact
    );
    let (after, _) = sat64(a, &moved(b, &(c.normal * c.depth)));
    prop_assert!(after.abs() as Real <= tol, "gap after the push {}", after);
    prop_assert!(!c.points.is_empty() && c.points.len() <= 4);
    for p in &c.points {
        prop_assert!(p.position.coords.iter().all(|x| x.is_finite()) && p.depth.is_finite());
        let slack = 0.5 * c.depth + tol * 10.0;
        prop_assert!(outside(a, &p.position) <= slack, "{:?} outside a", p);
        prop_assert!(outside(b, &p.position) <= slack, "{:?} outside b", p);
    }
    Ok(())
}

/// Two normals of the same pair agree, or both are minimal within the tolerance (a near-tie
/// broken differently, e.g. by the face bias when the arguments swap).
fn check_same_normal(a: &Obb, b: &Obb, n1: &Vector3, n2: &Vector3) -> Result<(), TestCaseError> {
    if (n1 - n2).norm() <= 1e-3 {
        return Ok(());
    }
    let exact = -sat64(a, b).0;
    let tol = f64::from(tolerance(a, b, exact as Real));
    prop_assert!(
        depth_along(a, b, n1) - exact <= tol,
        "{:?} is not a minimal axis",
        n1
    );
    prop_assert!(
        depth_along(a, b, n2) - exact <= tol,
        "{:?} is not a minimal axis",
        n2
    );
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn contact_is_valid_and_symmetric((a, b) in box_pair()) {
        let ab = obb_obb_contact(&a, &b);
        let ba = obb_obb_contact(&b, &a);
        prop_assert_eq!(ab.is_some(), obb_obb_intersects(&a, &b));
        let exact_gap = sat64(&a, &b).0;
        if exact_gap.abs() > 1e-4 * f64::from(a.half_extents.max() + b.half_extents.max()) {
            prop_assert_eq!(ab.is_some(), exact_gap <= 0.0);
            prop_assert_eq!(ab.is_some(), ba.is_some());
        }
        if let (Some(ab), Some(ba)) = (ab, ba) {
            check_contact(&a, &b, &ab)?;
            check_contact(&b, &a, &ba)?;
            let tol = tolerance(&a, &b, ab.depth);
            prop_assert!((ab.depth - ba.depth).abs() <= tol);
            check_same_normal(&a, &b, &ab.normal, &-ba.normal)?;
        }
    }

    #[test]
    fn contact_moves_with_a_common_rigid_motion((a, b) in box_pair(), m in isometry()) {
        let (ma, mb) = (a.transformed(&m), b.transformed(&m));
        let before = obb_obb_contact(&a, &b);
        let after = obb_obb_contact(&ma, &mb);
        let exact_gap = sat64(&a, &b).0;
        let boundary = 1e-4 * f64::from(a.half_extents.max() + b.half_extents.max()) + 1e-4;
        if exact_gap.abs() > boundary {
            prop_assert_eq!(before.is_some(), after.is_some());
        }
        if let (Some(before), Some(after)) = (before, after) {
            check_contact(&ma, &mb, &after)?;
            prop_assert!((before.depth - after.depth).abs() <= tolerance(&ma, &mb, after.depth) * 4.0);
            check_same_normal(&ma, &mb, &(m.rotation * before.normal), &after.normal)?;
        }
    }

    #[test]
    fn dispatch_flips_reversed_pairs(
        (a, b) in box_pair(), radius in size(), ball_first in any::<bool>()
    ) {
        let ball = Shape::ball(radius).unwrap();
        let cuboid = Shape::cuboid(b.half_extents).unwrap();
        let pose_ball = Isometry3::from_parts(a.center.coords.into(), a.rotation);
        let pose_box = b.pose();
        let forward = contact(&ball, &pose_ball, &cuboid, &pose_box);
        let backward = contact(&cuboid, &pose_box, &ball, &pose_ball);
        prop_assert_eq!(forward.is_some(), intersects(&ball, &pose_ball, &cuboid, &pose_box));
        prop_assert_eq!(backward.clone().map(Contact::flipped), forward.clone());
        if let Some(c) = if ball_first { forward } else { backward } {
            prop_assert!(c.normal.iter().all(|x| x.is_finite()));
            prop_assert!(c.depth.is_finite() && c.depth >= 0.0);
            for p in &c.points {
                prop_assert!(p.position.coords.iter().all(|x| x.is_finite()));
            }
        }
    }
}

#[test]
fn coincident_and_degenerate_inputs_give_no_nan() {
    let id = UnitQuaternion::identity();
    let cases = [
        // The same box twice, tiny and huge.
        (
            Obb::new(Point3::origin(), id, Vector3::repeat(1e-3)),
            Obb::new(Point3::origin(), id, Vector3::repeat(1e-3)),
        ),
        (
            Obb::new(Point3::origin(), id, Vector3::repeat(1e3)),
            Obb::new(Point3::origin(), id, Vector3::repeat(1e3)),
        ),
        // A plate and a needle through its centre.
        (
            Obb::new(Point3::origin(), id, Vector3::new(10.0, 1e-3, 10.0)),
            Obb::new(Point3::origin(), id, Vector3::new(1e-3, 10.0, 1e-3)),
        ),
    ];
    for (a, b) in cases {
        let c = obb_obb_contact(&a, &b).expect("they overlap");
        assert!(c.normal.iter().all(|x| x.is_finite()) && c.depth.is_finite());
        assert!(
            c.points
                .iter()
                .all(|p| p.position.coords.iter().all(|x| x.is_finite()))
        );
        check_contact(&a, &b, &c).unwrap();
    }
}
