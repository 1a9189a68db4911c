//! 2D: the 4-axis SAT against seed 002's projective test and against polygon SAT, and the
//! polygon MTD, on seeded random rectangles and polygons.

mod common;

use collide::d2::{
    circle_polygon_contact, obb2_contact, obb2_intersects, obb2_intersects_projective, obb2_sat,
    polygon_contact,
};
use common::Rng;
use geom::d2::{Circle, ConvexPolygon, Obb2};
use geom::{Point2, Real, Vector2};

fn random_rect(rng: &mut Rng) -> Obb2 {
    Obb2::new(
        Point2::new(rng.range(-3.0, 3.0), rng.range(-3.0, 3.0)),
        Vector2::new(rng.range(0.2, 2.0), rng.range(0.2, 2.0)),
        rng.range(-3.2, 3.2),
    )
}

fn random_polygon(rng: &mut Rng) -> ConvexPolygon {
    let center = Point2::new(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0));
    let points: Vec<Point2> = (0..8)
        .map(|_| center + Vector2::new(rng.range(-1.5, 1.5), rng.range(-1.5, 1.5)))
        .collect();
    ConvexPolygon::from_points(&points).unwrap()
}

/// The largest gap between the polygons over both polygons' edge normals, in f64.
fn gap(a: &ConvexPolygon, b: &ConvexPolygon) -> f64 {
    let mut best = f64::NEG_INFINITY;
    for (p, q) in [(a, b), (b, a)] {
        for n in p.normals() {
            let n = n.cast::<f64>();
            let project = |poly: &ConvexPolygon| {
                poly.vertices()
                    .iter()
                    .fold((f64::MAX, f64::MIN), |(lo, hi), v| {
                        let d = v.coords.cast::<f64>().dot(&n);
                        (lo.min(d), hi.max(d))
                    })
            };
            let ((p_lo, p_hi), (q_lo, q_hi)) = (project(p), project(q));
            best = best.max((q_lo - p_hi).max(p_lo - q_hi));
        }
    }
    best
}

#[test]
fn rectangle_tests_agree() {
    let mut rng = Rng(21);
    let mut hits = 0;
    for case in 0..10_000 {
        let (a, b) = (random_rect(&mut rng), random_rect(&mut rng));
        let sat = obb2_intersects(&a, &b);
        let gaps = obb2_sat(&a, &b).gaps;
        let max_gap = gaps.iter().copied().fold(Real::MIN, Real::max);
        if max_gap.abs() < 1e-4 {
            continue;
        }
        hits += usize::from(sat);
        assert_eq!(sat, max_gap <= 0.0, "case {case}");
        assert_eq!(
            sat,
            obb2_intersects_projective(&a, &b),
            "case {case}: projective disagrees"
        );
        assert_eq!(
            sat,
            obb2_contact(&a, &b).is_some(),
            "case {case}: polygon SAT disagrees"
        );
    }
    assert!(hits > 1_000, "{hits}");
}

#[test]
fn polygon_mtd_leaves_them_touching() {
    let mut rng = Rng(22);
    let mut touching = 0;
    for case in 0..10_000 {
        let (a, b) = (random_polygon(&mut rng), random_polygon(&mut rng));
        let exact = gap(&a, &b);
        let contact = polygon_contact(&a, &b);
        if exact.abs() < 1e-4 {
            continue;
        }
        assert_eq!(contact.is_some(), exact <= 0.0, "case {case}: gap {exact}");
        let Some(c) = contact else { continue };
        touching += 1;
        assert!(
            (f64::from(c.depth) + exact).abs() < 1e-3 * (1.0 - exact) + 1e-5,
            "case {case}"
        );
        let pushed: Vec<Point2> = b
            .vertices()
            .iter()
            .map(|v| v + c.normal * c.depth)
            .collect();
        let moved = ConvexPolygon::try_new(pushed).unwrap();
        assert!(
            gap(&a, &moved).abs() < 1e-3 * (1.0 - exact) + 1e-5,
            "case {case}: not touching after the push"
        );
        assert!(!c.points.is_empty());
        let reversed = polygon_contact(&b, &a).unwrap();
        assert!(
            (reversed.depth - c.depth).abs() < 1e-3 * c.depth + 1e-5,
            "case {case}"
        );
    }
    assert!(touching > 1_000, "{touching}");
}

#[test]
fn circle_polygon_mtd_leaves_them_touching() {
    let mut rng = Rng(23);
    for case in 0..10_000 {
        let polygon = random_polygon(&mut rng);
        let circle = Circle::new(
            Point2::new(rng.range(-3.0, 3.0), rng.range(-3.0, 3.0)),
            rng.range(0.1, 1.5),
        );
        let Some(c) = circle_polygon_contact(&circle, &polygon) else {
            continue;
        };
        assert!(
            c.depth >= 0.0 && c.normal.iter().all(|x| x.is_finite()),
            "case {case}"
        );
        // Move the circle back by the MTD: its centre is then `radius` from the polygon.
        let center = circle.center - c.normal * c.depth;
        let distance = polygon
            .vertices()
            .iter()
            .zip(polygon.vertices().iter().cycle().skip(1))
            .map(|(p, q)| {
                let e = q - p;
                let t = ((center - p).dot(&e) / e.norm_squared()).clamp(0.0, 1.0);
                (center - (p + e * t)).norm()
            })
            .fold(Real::MAX, Real::min);
        assert!(
            !polygon.contains_point(&center) || distance < 1e-4,
            "case {case}: centre still inside"
        );
        assert!(
            (distance - circle.radius).abs() < 1e-3,
            "case {case}: {distance} vs {}",
            circle.radius
        );
    }
}
