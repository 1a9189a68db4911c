//! Seeded property tests of the volumes (256 cases each, fixed seed: a failure reproduces).

use geom::d2::ConvexPolygon;
use geom::na;
use geom::{Aabb, Isometry3, Obb, Point2, Point3, Real, Sphere, UnitQuaternion, Vector3};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

fn config() -> Config {
    Config {
        cases: 256,
        rng_seed: RngSeed::Fixed(0x6d69_6e69_7269_6769),
        failure_persistence: None,
        ..Config::default()
    }
}

fn point(range: Real) -> impl Strategy<Value = Point3> {
    (-range..range, -range..range, -range..range).prop_map(|(x, y, z)| Point3::new(x, y, z))
}

/// A uniformly random rotation (K. Shoemake, "Uniform random rotations", Graphics Gems III).
fn rotation() -> impl Strategy<Value = UnitQuaternion> {
    (0.0f32..1.0, 0.0f32..1.0, 0.0f32..1.0)
        .prop_map(|(u1, u2, u3)| geom::uniform_rotation(u1, u2, u3))
}

fn half_extents() -> impl Strategy<Value = Vector3> {
    (0.01f32..5.0, 0.01f32..5.0, 0.01f32..5.0).prop_map(|(x, y, z)| Vector3::new(x, y, z))
}

fn obb() -> impl Strategy<Value = Obb> {
    (point(50.0), rotation(), half_extents()).prop_map(|(c, r, h)| Obb::new(c, r, h))
}

fn isometry() -> impl Strategy<Value = Isometry3> {
    (point(50.0), rotation()).prop_map(|(t, r)| Isometry3::from_parts(t.coords.into(), r))
}

fn close(a: &Point3, b: &Point3, tolerance: Real) -> bool {
    (a - b).amax() <= tolerance
}

/// A tiny xorshift stream for sampling inside a test case from a proptest-chosen seed.
struct Stream(u64);
impl Stream {
    fn unit(&mut self) -> Real {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as Real / (1u64 << 24) as Real
    }
    fn signed(&mut self) -> Real {
        2.0 * self.unit() - 1.0
    }
}

// ---- An exact minimal sphere, by brute force over all supports of up to 4 points, in f64 ----

type P64 = na::Point3<f64>;

fn ball_through(support: &[P64]) -> Option<(P64, f64)> {
    match support {
        [a, b] => Some((na::center(a, b), (a - b).norm() / 2.0)),
        [a, b, c] => {
            // The centre is a + s ab + t ac with |x - a| = |x - b| = |x - c|.
            let (ab, ac) = (b - a, c - a);
            let m = na::Matrix2::new(ab.dot(&ab), ab.dot(&ac), ab.dot(&ac), ac.dot(&ac)) * 2.0;
            let st = m.try_inverse()? * na::Vector2::new(ab.dot(&ab), ac.dot(&ac));
            let center = a + ab * st.x + ac * st.y;
            Some((center, (center - a).norm()))
        }
        [a, b, c, d] => {
            let rows = [b - a, c - a, d - a];
            let m = na::Matrix3::from_rows(&rows.map(|r| r.transpose())) * 2.0;
            let rhs = na::Vector3::new(
                rows[0].norm_squared(),
                rows[1].norm_squared(),
                rows[2].norm_squared(),
            );
            let offset = m.try_inverse()? * rhs;
            Some((a + offset, offset.norm()))
        }
        _ => None,
    }
}

fn brute_force_min_radius(points: &[Point3]) -> f64 {
    let p: Vec<P64> = points.iter().map(|p| p.cast()).collect();
    let n = p.len();
    let mut best = f64::INFINITY;
    let mut consider = |support: &[P64]| {
        if let Some((c, r)) = ball_through(support)
            && r.is_finite()
            && r < best
            && p.iter().all(|q| (q - c).norm() <= r * (1.0 + 1e-9) + 1e-9)
        {
            best = r;
        }
    };
    for i in 0..n {
        for j in i + 1..n {
            consider(&[p[i], p[j]]);
            for k in j + 1..n {
                consider(&[p[i], p[j], p[k]]);
                for l in k + 1..n {
                    consider(&[p[i], p[j], p[k], p[l]]);
                }
            }
        }
    }
    best
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn aabb_from_points_contains_all_and_touches_the_extremes(
        points in prop::collection::vec(point(1e3), 1..64)
    ) {
        let aabb = Aabb::from_points(&points).unwrap();
        for p in &points {
            prop_assert!(aabb.contains_point(p));
        }
        for axis in 0..3 {
            let lo = points.iter().map(|p| p[axis]).fold(Real::MAX, Real::min);
            let hi = points.iter().map(|p| p[axis]).fold(Real::MIN, Real::max);
            prop_assert_eq!(aabb.mins[axis], lo);
            prop_assert_eq!(aabb.maxs[axis], hi);
        }
    }

    #[test]
    fn aabb_transformed_is_the_box_of_the_moved_corners(
        a in point(10.0), b in point(10.0), iso in isometry()
    ) {
        let aabb = Aabb::new(a.inf(&b), a.sup(&b));
        let moved: Vec<Point3> = aabb.corners().iter().map(|c| iso * c).collect();
        let expected = Aabb::from_points(&moved).unwrap();
        let got = aabb.transformed(&iso);
        prop_assert!(close(&got.mins, &expected.mins, 1e-4), "{:?} vs {:?}", got, expected);
        prop_assert!(close(&got.maxs, &expected.maxs, 1e-4), "{:?} vs {:?}", got, expected);
    }

    #[test]
    fn obb_aabb_is_tight(b in obb()) {
        let expected = Aabb::from_points(&b.corners()).unwrap();
        let got = b.aabb();
        prop_assert!(close(&got.mins, &expected.mins, 1e-4), "{:?} vs {:?}", got, expected);
        prop_assert!(close(&got.maxs, &expected.maxs, 1e-4), "{:?} vs {:?}", got, expected);
    }

    #[test]
    fn sphere_from_points_is_the_minimal_sphere(
        points in prop::collection::vec(point(10.0), 1..10)
    ) {
        let sphere = Sphere::from_points(&points).unwrap();
        for p in &points {
            prop_assert!(sphere.contains_point(p), "{:?} outside {:?}", p, sphere);
        }
        if points.len() >= 2 {
            let exact = brute_force_min_radius(&points);
            let r = f64::from(sphere.radius);
            prop_assert!((r - exact).abs() <= 1e-4 * exact.max(1.0), "radius {} vs minimal {}", r, exact);
        }
    }

    #[test]
    fn sphere_from_large_clouds_contains_every_point(
        points in prop::collection::vec(point(1e3), 1..2000)
    ) {
        let sphere = Sphere::from_points(&points).unwrap();
        for p in &points {
            prop_assert!(sphere.contains_point(p), "{:?} outside {:?}", p, sphere);
        }
        // No wider than the sphere around the AABB: a cheap upper bound on the minimal one.
        let loose = Aabb::from_points(&points).unwrap().bounding_sphere();
        prop_assert!(sphere.radius <= loose.radius * (1.0 + 1e-6));
    }

    #[test]
    fn obb_from_points_contains_every_point(
        points in prop::collection::vec(point(100.0), 1..300)
    ) {
        let fitted = Obb::from_points(&points).unwrap();
        for p in &points {
            let local = fitted.to_local(p);
            let excess = (local.coords.abs() - fitted.half_extents).max();
            prop_assert!(excess <= 1e-4 * 100.0, "{:?} outside by {}", p, excess);
        }
        // Never worse than the axis-aligned box.
        let aabb = Aabb::from_points(&points).unwrap();
        prop_assert!(fitted.volume() <= aabb.volume() * (1.0 + 1e-4) + 1e-9);
    }

    #[test]
    fn obb_from_points_recovers_a_rotated_box(
        center in point(20.0), rot in rotation(), seed in 1u64..u64::MAX,
        x in 0.5f32..1.0, y_ratio in 1.25f32..2.0, z_ratio in 1.25f32..2.0,
    ) {
        // Distinct extents, each at least 25% larger than the previous.
        let half = Vector3::new(x, x * y_ratio, x * y_ratio * z_ratio);
        let truth = Obb::new(center, rot, half);
        // Points on the box's surface, as a mesh's vertices would be.
        let mut rng = Stream(seed);
        let points: Vec<Point3> = (0..1000)
            .map(|_| {
                let mut local = Vector3::new(rng.signed(), rng.signed(), rng.signed());
                let face = (rng.unit() * 6.0) as usize % 6;
                local[face / 2] = if face.is_multiple_of(2) { 1.0 } else { -1.0 };
                truth.center + truth.rotation * local.component_mul(&half)
            })
            .collect();
        let fitted = Obb::from_points(&points).unwrap();
        let ratio = fitted.volume() / truth.volume();
        prop_assert!((ratio - 1.0).abs() <= 0.02, "fitted volume {} vs {}", fitted.volume(), truth.volume());
    }

    #[test]
    fn convex_hull_contains_every_point_and_is_convex(
        points in prop::collection::vec((-100.0f32..100.0, -100.0f32..100.0), 3..200)
    ) {
        let points: Vec<Point2> = points.into_iter().map(|(x, y)| Point2::new(x, y)).collect();
        let hull = ConvexPolygon::from_points(&points).unwrap();
        // Its own vertices pass the strict convexity check.
        prop_assert!(ConvexPolygon::try_new(hull.vertices().to_vec()).is_ok());
        for p in &points {
            let outside = hull
                .vertices()
                .iter()
                .zip(hull.normals())
                .map(|(v, n)| (p - v).dot(n))
                .fold(Real::MIN, Real::max);
            prop_assert!(outside <= 1e-3, "{:?} outside the hull by {}", p, outside);
        }
    }
}
