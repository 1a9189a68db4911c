//! Differential tests against parry3d on 10,000 seeded random cases each. Depths are compared
//! with an exact f64 SAT (see `common::sat64`), not with `parry3d::query::contact`, whose GJK/EPA
//! depth is not always the minimal push-out.

mod common;

use collide::{obb_obb_contact, obb_obb_intersects, ray_obb, ray_sphere, sphere_obb_contact};
use common::{Rng, moved, outside, random_obb, sat64};
use geom::{Obb, Point3, Ray, Real, Sphere, Vector3};
use parry3d::glamx::{Quat, Vec3};
use parry3d::math::Pose;
use parry3d::query::{self, Ray as ParryRay, RayCast};
use parry3d::shape::{Ball, Cuboid};

const CASES: usize = 10_000;

fn pose(center: &Point3, rotation: &geom::UnitQuaternion) -> Pose {
    Pose::from_parts(Vec3::from(center.coords), Quat::from(*rotation))
}

fn cuboid(o: &Obb) -> (Pose, Cuboid) {
    (
        pose(&o.center, &o.rotation),
        Cuboid::new(Vec3::from(o.half_extents)),
    )
}

#[test]
fn box_box_agrees_with_parry_and_the_exact_sat() {
    let mut rng = Rng(1);
    let (mut overlapping, mut compared) = (0, 0);
    for case in 0..CASES {
        let (a, b) = (random_obb(&mut rng), random_obb(&mut rng));
        let (gap, _) = sat64(&a, &b);
        let ours = obb_obb_intersects(&a, &b);
        let contact = obb_obb_contact(&a, &b);
        assert_eq!(
            ours,
            contact.is_some(),
            "case {case}: boolean and contact disagree"
        );
        let ((pa, ca), (pb, cb)) = (cuboid(&a), cuboid(&b));
        let theirs = query::intersection_test(&pa, &ca, &pb, &cb)
            .unwrap()
            .intersecting;
        if gap.abs() > 1e-4 {
            compared += 1;
            assert_eq!(
                ours, theirs,
                "case {case}: parry disagrees, exact gap {gap}"
            );
            assert_eq!(ours, gap < 0.0, "case {case}: exact gap {gap}");
        }
        let Some(c) = contact else { continue };
        overlapping += 1;
        let exact = -gap as Real;
        let size = a.half_extents.max() + b.half_extents.max();
        let tolerance = 1e-3 * exact + 2e-5 * size + 1e-5;
        assert!(c.normal.iter().all(|x| x.is_finite()) && c.depth.is_finite());
        assert!(
            (c.normal.norm() - 1.0).abs() < 1e-5,
            "case {case}: normal not unit"
        );
        assert!(
            (c.depth - exact).abs() <= tolerance,
            "case {case}: depth {} vs exact {exact}",
            c.depth
        );
        // Pushing B by the MTD leaves the boxes just touching.
        let (after, _) = sat64(&a, &moved(&b, &(c.normal * c.depth)));
        assert!(
            after.abs() as Real <= tolerance,
            "case {case}: gap after the push {after}"
        );
        // Every point is midway, so within half the depth of both boxes.
        assert!(!c.points.is_empty() && c.points.len() <= 4);
        for p in &c.points {
            let slack = 0.5 * c.depth + 1e-4 * size;
            assert!(
                outside(&a, &p.position) <= slack,
                "case {case}: {p:?} outside a"
            );
            assert!(
                outside(&b, &p.position) <= slack,
                "case {case}: {p:?} outside b"
            );
            assert!(p.depth >= 0.0 && p.depth <= c.depth + tolerance);
        }
    }
    // Both outcomes are well represented (about 70% of these pairs overlap).
    assert!(
        (3_000..8_000).contains(&overlapping),
        "{overlapping} overlapping"
    );
    assert!(compared > CASES * 9 / 10);
}

#[test]
fn sphere_box_agrees_with_parry() {
    let mut rng = Rng(2);
    let mut compared = 0;
    for case in 0..CASES {
        let o = random_obb(&mut rng);
        let s = Sphere::new(rng.point(3.0), rng.range(0.2, 2.0));
        let ours = sphere_obb_contact(&s, &o);
        let (po, co) = cuboid(&o);
        let ball = Ball::new(s.radius);
        let ps = pose(&s.center, &geom::UnitQuaternion::identity());
        let theirs = query::contact(&ps, &ball, &po, &co, 0.0).unwrap();
        // Skip the boundary and, with the centre inside, ties between two nearest faces.
        let local = o.to_local(&s.center).coords;
        let mut gaps: Vec<Real> = (0..3).map(|i| o.half_extents[i] - local[i].abs()).collect();
        gaps.sort_by(Real::total_cmp);
        let tie = gaps[0] >= 0.0 && gaps[1] - gaps[0] < 1e-4;
        let distance = (o.closest_point(&s.center) - s.center).norm();
        if tie || (distance - s.radius).abs() < 1e-4 {
            continue;
        }
        compared += 1;
        match (ours, theirs) {
            (None, None) => {}
            (Some(c), Some(t)) => {
                let depth = -t.dist;
                assert!(
                    (c.depth - depth).abs() <= 1e-4,
                    "case {case}: depth {} vs {depth}",
                    c.depth
                );
                let normal = Vector3::new(t.normal1.x, t.normal1.y, t.normal1.z);
                assert!(
                    (c.normal - normal).norm() <= 1e-3,
                    "case {case}: {:?} vs {normal:?}",
                    c.normal
                );
            }
            (ours, theirs) => panic!("case {case}: ours {ours:?}, parry {theirs:?}"),
        }
    }
    assert!(compared > CASES * 9 / 10);
}

fn parry_ray(r: &Ray) -> ParryRay {
    ParryRay::new(Vec3::from(r.origin.coords), Vec3::from(r.dir))
}

#[test]
fn rays_agree_with_parry() {
    let mut rng = Rng(3);
    let (mut hits, mut compared) = (0, 0);
    for case in 0..CASES {
        let o = random_obb(&mut rng);
        // Aimed near the box, so that about half the rays hit.
        let origin = rng.point(6.0);
        let target = o.center + rng.point(2.5).coords;
        let ray = Ray::new(origin, (target - origin).normalize() * rng.range(0.5, 3.0));
        let max_toi = rng.range(0.5, 20.0);
        let (po, co) = cuboid(&o);
        let ours = ray_obb(&ray, &o, max_toi);
        let theirs = co.cast_ray_and_get_normal(&po, &parry_ray(&ray), max_toi, true);
        // Skip grazing rays and hits within rounding of max_toi.
        let grazing = ours.is_some_and(|h| {
            let l = o.to_local(&h.point).coords;
            (0..3)
                .filter(|&i| (o.half_extents[i] - l[i].abs()).abs() < 1e-4)
                .count()
                >= 2
        });
        let near_end = [ours.map(|h| h.toi), theirs.map(|t| t.time_of_impact)]
            .iter()
            .flatten()
            .any(|t| (t - max_toi).abs() < 1e-4);
        if grazing || near_end {
            continue;
        }
        compared += 1;
        match (ours, theirs) {
            (None, None) => {}
            (Some(h), Some(t)) => {
                hits += 1;
                assert!(
                    (h.toi - t.time_of_impact).abs() <= 1e-4,
                    "case {case}: toi {} vs {}",
                    h.toi,
                    t.time_of_impact
                );
                if h.toi > 0.0 {
                    let n = Vector3::new(t.normal.x, t.normal.y, t.normal.z);
                    assert!(
                        (h.normal - n).norm() <= 1e-3,
                        "case {case}: {:?} vs {n:?}",
                        h.normal
                    );
                    assert!(
                        outside(&o, &h.point).abs() <= 1e-4,
                        "case {case}: hit point off the surface"
                    );
                }
            }
            (ours, theirs) => panic!("case {case}: ours {ours:?}, parry {theirs:?}"),
        }
    }
    assert!(
        compared > CASES * 9 / 10 && hits > CASES / 4,
        "{compared} compared, {hits} hits"
    );

    let mut rng = Rng(4);
    for case in 0..CASES {
        let s = Sphere::new(rng.point(2.0), rng.range(0.2, 2.0));
        let ray = Ray::new(rng.point(6.0), rng.unit_vector() * rng.range(0.5, 3.0));
        let ours = ray_sphere(&ray, &s, 10.0);
        let ball = Ball::new(s.radius);
        let ps = pose(&s.center, &geom::UnitQuaternion::identity());
        let theirs = ball.cast_ray_and_get_normal(&ps, &parry_ray(&ray), 10.0, true);
        let closest = {
            let t = ((s.center - ray.origin).dot(&ray.dir) / ray.dir.norm_squared()).max(0.0);
            (ray.point_at(t) - s.center).norm()
        };
        if (closest - s.radius).abs() < 1e-4 {
            continue;
        }
        match (ours, theirs) {
            (None, None) => {}
            (Some(h), Some(t)) => {
                assert!(
                    (h.toi - t.time_of_impact).abs() <= 1e-4,
                    "case {case}: toi {} vs {}",
                    h.toi,
                    t.time_of_impact
                );
            }
            (ours, theirs) => panic!("case {case}: ours {ours:?}, parry {theirs:?}"),
        }
    }
}
