//! Spheres in 3D, world frame, and the minimal bounding sphere of a point cloud.

use crate::{Aabb, GeomError, Point3, Real, Vector3, validate};
use nalgebra as na;
use serde::{Deserialize, Serialize};

/// A solid sphere in world space.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sphere {
    /// The centre.
    pub center: Point3,
    /// The radius (metres); `>= 0`, and `> 0` when it came from user input.
    pub radius: Real,
}

impl Sphere {
    /// A sphere; the radius is only debug-checked (`>= 0`).
    #[inline]
    pub fn new(center: Point3, radius: Real) -> Self {
        debug_assert!(radius >= 0.0);
        Self { center, radius }
    }

    /// A sphere, checked: finite centre and a finite, positive radius.
    pub fn try_new(center: Point3, radius: Real) -> Result<Self, GeomError> {
        validate::finite_point3("center", &center)?;
        validate::positive("radius", radius)?;
        Ok(Self { center, radius })
    }

    /// The smallest sphere holding every point (exact, see [`Sphere::try_from_points`]); `None`
    /// when the list is empty or holds a non-finite coordinate.
    pub fn from_points(points: &[Point3]) -> Option<Self> {
        Self::try_from_points(points).ok()
    }

    /// The smallest sphere holding every point, computed exactly (up to rounding) with Welzl's
    /// algorithm, and then grown by the rounding so that it does hold every point.
    ///
    /// Algorithm: E. Welzl, "Smallest enclosing disks (balls and ellipsoids)", 1991, in the
    /// iterative form where recursion only goes as deep as the support set (at most 4 points);
    /// points are visited in a fixed pseudo-random order (seeded: the result is deterministic),
    /// which makes the expected time linear. Arithmetic is in f64.
    pub fn try_from_points(points: &[Point3]) -> Result<Self, GeomError> {
        validate::points3("points", points, 1)?;
        let mut cloud: Vec<na::Point3<f64>> = points.iter().map(|p| p.cast::<f64>()).collect();
        shuffle(&mut cloud);
        let ball = welzl(&cloud, cloud.len(), &mut Vec::with_capacity(4));
        let center: Point3 = ball.center.cast::<Real>();
        // Rounding (f64 -> f32 and the solve itself) may leave a point a hair outside: grow the
        // radius until `contains_point`, in the caller's f32 arithmetic, holds for every point.
        let mut radius = (ball.radius_squared.sqrt() as Real).max(0.0);
        for p in points {
            while (p - center).norm_squared() > radius * radius {
                radius = radius.next_up().max((p - center).norm());
            }
        }
        Ok(Self { center, radius })
    }

    /// The sphere's bounding box.
    #[inline]
    pub fn aabb(&self) -> Aabb {
        Aabb::from_center_half_extents(self.center, Vector3::repeat(self.radius))
    }

    /// This sphere moved by `translation`.
    #[inline]
    pub fn translated(&self, translation: &Vector3) -> Self {
        Self::new(self.center + translation, self.radius)
    }

    /// The smallest sphere holding both spheres.
    pub fn merged(&self, other: &Self) -> Self {
        let d = other.center - self.center;
        let dist = d.norm();
        if dist + other.radius <= self.radius {
            return *self;
        }
        if dist + self.radius <= other.radius {
            return *other;
        }
        let radius = 0.5 * (dist + self.radius + other.radius);
        // dist > 0 here: equal centres fall in one of the two cases above.
        let center = self.center + d * ((radius - self.radius) / dist);
        Self::new(center, radius)
    }

    /// Whether `point` lies in the sphere (its surface included).
    #[inline]
    pub fn contains_point(&self, point: &Point3) -> bool {
        (point - self.center).norm_squared() <= self.radius * self.radius
    }

    /// Whether the spheres share a point (touching counts).
    #[inline]
    pub fn intersects(&self, other: &Self) -> bool {
        let r = self.radius + other.radius;
        (other.center - self.center).norm_squared() <= r * r
    }
}

struct Ball {
    center: na::Point3<f64>,
    radius_squared: f64,
}

impl Ball {
    fn contains(&self, p: &na::Point3<f64>) -> bool {
        // Relative slack so that support points, which lie on the boundary, test as inside.
        (p - self.center).norm_squared() <= self.radius_squared * (1.0 + 1e-10) + 1e-20
    }
}

/// The smallest ball of `points[..end]` with every point of `support` on its boundary.
fn welzl(points: &[na::Point3<f64>], end: usize, support: &mut Vec<na::Point3<f64>>) -> Ball {
    let mut ball = ball_on(support);
    if support.len() == 4 {
        return ball;
    }
    for i in 0..end {
        if !ball.contains(&points[i]) {
            support.push(points[i]);
            ball = welzl(points, i, support);
            support.pop();
        }
    }
    ball
}

/// The smallest ball with all of `support` (0 to 4 points) on its boundary. Degenerate supports
/// (collinear triples, coplanar quadruples, repeated points) fall back to the largest ball of a
/// smaller subset, which is what exact arithmetic would converge to.
fn ball_on(support: &[na::Point3<f64>]) -> Ball {
    match support {
        [] => Ball {
            center: na::Point3::origin(),
            radius_squared: -1.0,
        },
        [a] => Ball {
            center: *a,
            radius_squared: 0.0,
        },
        [a, b] => {
            let center = na::center(a, b);
            Ball {
                center,
                radius_squared: (a - center).norm_squared(),
            }
        }
        [a, b, c] => circumball3(a, b, c).unwrap_or_else(|| smallest_enclosing_sub_ball(support)),
        [a, b, c, d] => {
            circumball4(a, b, c, d).unwrap_or_else(|| smallest_enclosing_sub_ball(support))
        }
        _ => unreachable!("a support set holds at most 4 points"),
    }
}

fn smallest_enclosing_sub_ball(support: &[na::Point3<f64>]) -> Ball {
    // With collinear or coplanar points, one of the subsets that drop a point has a ball that
    // still holds them all; take the smallest such. Rounding may leave none: take the largest.
    let mut enclosing: Option<Ball> = None;
    let mut largest: Option<Ball> = None;
    for skip in 0..support.len() {
        let subset: Vec<_> = (0..support.len())
            .filter(|&i| i != skip)
            .map(|i| support[i])
            .collect();
        let ball = ball_on(&subset);
        if support.iter().all(|p| ball.contains(p)) {
            if enclosing
                .as_ref()
                .is_none_or(|b| ball.radius_squared < b.radius_squared)
            {
                enclosing = Some(ball);
            }
        } else if largest
            .as_ref()
            .is_none_or(|b| ball.radius_squared > b.radius_squared)
        {
            largest = Some(ball);
        }
    }
    enclosing
        .or(largest)
        .unwrap_or_else(|| ball_on(&support[..1]))
}

/// The circle through three points, as a ball (Ericson, Real-Time Collision Detection, 4.3.4).
fn circumball3(a: &na::Point3<f64>, b: &na::Point3<f64>, c: &na::Point3<f64>) -> Option<Ball> {
    let ab = b - a;
    let ac = c - a;
    let n = ab.cross(&ac);
    let denom = 2.0 * n.norm_squared();
    if denom <= 1e-24 * ab.norm_squared() * ac.norm_squared() || denom == 0.0 {
        return None;
    }
    let offset = (n.cross(&ab) * ac.norm_squared() + ac.cross(&n) * ab.norm_squared()) / denom;
    Some(Ball {
        center: a + offset,
        radius_squared: offset.norm_squared(),
    })
}

/// The sphere through four points: solve `2 (p_i - a) . x = |p_i - a|^2` for the offset `x`.
fn circumball4(
    a: &na::Point3<f64>,
    b: &na::Point3<f64>,
    c: &na::Point3<f64>,
    d: &na::Point3<f64>,
) -> Option<Ball> {
    let (ab, ac, ad) = (b - a, c - a, d - a);
    let m = na::Matrix3::from_rows(&[ab.transpose(), ac.transpose(), ad.transpose()]) * 2.0;
    let scale = ab.norm() * ac.norm() * ad.norm();
    if m.determinant().abs() <= 1e-12 * 8.0 * scale {
        return None;
    }
    let rhs = na::Vector3::new(ab.norm_squared(), ac.norm_squared(), ad.norm_squared());
    let offset = m.lu().solve(&rhs)?;
    Some(Ball {
        center: a + offset,
        radius_squared: offset.norm_squared(),
    })
}

/// A fixed-seed Fisher-Yates shuffle (xorshift64): Welzl's expected linear time needs a random
/// order, determinism needs it to be the same order every run.
fn shuffle<T>(items: &mut [T]) {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in (1..items.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let j = (state % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimal_sphere_of_simple_sets() {
        let two = [Point3::new(-1.0, 0.0, 0.0), Point3::new(3.0, 0.0, 0.0)];
        let s = Sphere::from_points(&two).unwrap();
        assert!((s.center - Point3::new(1.0, 0.0, 0.0)).norm() < 1e-6);
        assert!((s.radius - 2.0).abs() < 1e-6);

        // The corners of a cube: centred, radius half the diagonal.
        let cube = Aabb::new(Point3::origin(), Point3::new(2.0, 2.0, 2.0)).corners();
        let s = Sphere::from_points(&cube).unwrap();
        assert!((s.center - Point3::new(1.0, 1.0, 1.0)).norm() < 1e-5);
        assert!((s.radius - 3f32.sqrt()).abs() < 1e-5);

        // An obtuse triangle: the sphere of its longest side, not its circumcircle.
        let tri = [
            Point3::new(-1.0, 0.0, 0.0),
            Point3::new(1.0, 0.0, 0.0),
            Point3::new(0.0, 0.1, 0.0),
        ];
        let s = Sphere::from_points(&tri).unwrap();
        assert!((s.radius - 1.0).abs() < 1e-6);

        // Repeated and collinear points.
        let line = [Point3::origin(); 5]
            .iter()
            .chain(&[Point3::new(0.0, 0.0, 4.0), Point3::new(0.0, 0.0, 2.0)])
            .copied()
            .collect::<Vec<_>>();
        let s = Sphere::from_points(&line).unwrap();
        assert!((s.radius - 2.0).abs() < 1e-6);
    }

    #[test]
    fn merged_holds_both() {
        let a = Sphere::new(Point3::origin(), 1.0);
        let b = Sphere::new(Point3::new(4.0, 0.0, 0.0), 1.0);
        let m = a.merged(&b);
        assert!((m.center - Point3::new(2.0, 0.0, 0.0)).norm() < 1e-6);
        assert!((m.radius - 3.0).abs() < 1e-6);
        let inner = Sphere::new(Point3::new(0.5, 0.0, 0.0), 0.25);
        assert_eq!(a.merged(&inner), a);
        assert_eq!(inner.merged(&a), a);
    }

    #[test]
    fn try_new_names_the_bad_field() {
        for (r, word) in [(0.0, "positive"), (-1.0, "positive"), (Real::NAN, "finite")] {
            let e = Sphere::try_new(Point3::origin(), r)
                .unwrap_err()
                .to_string();
            assert!(e.contains("radius") && e.contains(word), "{e}");
        }
        let e = Sphere::try_new(Point3::new(0.0, 0.0, Real::INFINITY), 1.0).unwrap_err();
        assert!(e.to_string().contains("center.z"), "{e}");
        assert!(Sphere::from_points(&[]).is_none());
    }
}
