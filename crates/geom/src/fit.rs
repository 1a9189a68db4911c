//! Fitting an oriented box to a point cloud.
//!
//! Principal component analysis gives good axes for most clouds but is easily pulled off by how
//! the points are distributed (Ericson, Real-Time Collision Detection, 4.4.3). So the PCA frame is
//! only a start: each axis in turn, the points are projected onto the plane of the other two and
//! the minimum-area rectangle of that 2D hull (rotating calipers: G. Toussaint, "Solving geometric
//! problems with the rotating calipers", 1983; a minimum-area rectangle has a side on a hull edge,
//! H. Freeman and R. Shapira, 1975) turns those two axes. Each turn can only shrink the box. The
//! result is compared with the axis-aligned box and the smaller kept. All in f64.

use crate::hull2::convex_hull;
use crate::{Obb, Point3, Real, UnitQuaternion};
use nalgebra as na;

type P3 = na::Point3<f64>;
type V3 = na::Vector3<f64>;
type P2 = na::Point2<f64>;

/// Rounds of the three per-axis refinements; two reach a fixed point on box-like clouds.
const REFINE_ROUNDS: usize = 3;

/// A tight box around `points` (non-empty, finite: checked by the caller).
pub(crate) fn fit_obb(points: &[Point3]) -> Obb {
    let cloud: Vec<P3> = points.iter().map(|p| p.cast::<f64>()).collect();
    let mut axes = principal_axes(&cloud);
    for _ in 0..REFINE_ROUNDS {
        for k in 0..3 {
            refine_around(&cloud, &mut axes, k);
        }
    }
    pattern_search(&cloud, &mut axes);
    for k in 0..3 {
        refine_around(&cloud, &mut axes, k);
    }
    // Measure the extents in the frame of the rotation actually returned (rounded to f32), so
    // that the box holds the points as well as f32 allows.
    let rotation = UnitQuaternion::from_rotation_matrix(&na::Rotation3::from_matrix_unchecked(
        na::Matrix3::from_columns(&axes).cast::<Real>(),
    ));
    let rounded = rotation.to_rotation_matrix().matrix().cast::<f64>();
    let frame = [0, 1, 2].map(|i| rounded.column(i).into_owned());
    let fitted = box_in_frame(&cloud, &frame);
    let aligned = box_in_frame(&cloud, &[V3::x(), V3::y(), V3::z()]);
    let (best, rotation) = if (aligned.volume, aligned.area) <= (fitted.volume, fitted.area) {
        (aligned, UnitQuaternion::identity())
    } else {
        (fitted, rotation)
    };
    Obb::new(
        best.center.cast::<Real>(),
        rotation,
        best.half_extents.cast::<Real>(),
    )
}

struct Fitted {
    center: P3,
    half_extents: V3,
    volume: f64,
    area: f64,
}

/// The box with the given orthonormal, right-handed axes that holds every point.
fn box_in_frame(cloud: &[P3], axes: &[V3; 3]) -> Fitted {
    let mut lo = V3::repeat(f64::INFINITY);
    let mut hi = V3::repeat(f64::NEG_INFINITY);
    for p in cloud {
        let local = V3::new(
            axes[0].dot(&p.coords),
            axes[1].dot(&p.coords),
            axes[2].dot(&p.coords),
        );
        lo = lo.inf(&local);
        hi = hi.sup(&local);
    }
    let mid = (lo + hi) * 0.5;
    let half = (hi - lo) * 0.5;
    let center = P3::from(axes[0] * mid.x + axes[1] * mid.y + axes[2] * mid.z);
    Fitted {
        center,
        half_extents: half,
        volume: 8.0 * half.x * half.y * half.z,
        area: 8.0 * (half.x * half.y + half.y * half.z + half.z * half.x),
    }
}

/// Eigenvectors of the covariance matrix as a right-handed orthonormal frame; the world axes when
/// the cloud has no spread.
fn principal_axes(cloud: &[P3]) -> [V3; 3] {
    let n = cloud.len() as f64;
    let mean = cloud.iter().fold(V3::zeros(), |acc, p| acc + p.coords) / n;
    let mut covariance = na::Matrix3::<f64>::zeros();
    for p in cloud {
        let d = p.coords - mean;
        covariance += d * d.transpose();
    }
    covariance /= n;
    if covariance.norm() <= f64::MIN_POSITIVE {
        return [V3::x(), V3::y(), V3::z()];
    }
    let eigen = na::SymmetricEigen::new(covariance);
    let e0 = eigen.eigenvectors.column(0).into_owned();
    let e1 = eigen.eigenvectors.column(1).into_owned();
    orthonormal_frame(&e0, &e1)
}

/// A right-handed orthonormal frame whose first axis is along `a` and second in the plane of `a`
/// and `b` (Gram-Schmidt); falls back to any perpendicular when `b` is parallel to `a`.
fn orthonormal_frame(a: &V3, b: &V3) -> [V3; 3] {
    let x = a.normalize();
    let mut y = b - x * x.dot(b);
    if y.norm() < 1e-9 {
        let helper = if x.x.abs() < 0.9 { V3::x() } else { V3::y() };
        y = helper - x * x.dot(&helper);
    }
    let y = y.normalize();
    [x, y, x.cross(&y)]
}

/// Turning about one box axis at a time can stall where the volume has a kink: a turn about a
/// combination of axes would still shrink the box. This compass search tries small turns about
/// the three axes, the six face diagonals and the four body diagonals, keeps any that shrinks
/// the box, and halves the step when none does (R. Hooke and T. A. Jeeves, 1961).
fn pattern_search(cloud: &[P3], axes: &mut [V3; 3]) {
    let pivots: Vec<V3> = {
        let mut pivots = vec![V3::x(), V3::y(), V3::z()];
        for (a, b) in [(0, 1), (1, 2), (2, 0)] {
            for sign in [1.0, -1.0] {
                let mut v = V3::zeros();
                v[a] = 1.0;
                v[b] = sign;
                pivots.push(v.normalize());
            }
        }
        for (sy, sz) in [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)] {
            pivots.push(V3::new(1.0, sy, sz).normalize());
        }
        pivots
    };
    let mut volume = box_in_frame(cloud, axes).volume;
    let mut step = 0.05;
    while step > 1e-7 {
        let mut improved = false;
        for pivot in &pivots {
            // The pivot is given in the box's own frame.
            let axis = axes[0] * pivot.x + axes[1] * pivot.y + axes[2] * pivot.z;
            for angle in [step, -step] {
                let turn = na::Rotation3::from_axis_angle(&na::Unit::new_unchecked(axis), angle);
                let candidate = axes.map(|a| turn * a);
                let v = box_in_frame(cloud, &candidate).volume;
                if v < volume * (1.0 - 1e-12) {
                    *axes = candidate;
                    volume = v;
                    improved = true;
                }
            }
        }
        if !improved {
            step *= 0.5;
        }
    }
}

/// Keeps `axes[k]` and turns the other two to the minimum-area rectangle of the cloud projected
/// along `axes[k]`. The frame stays right-handed: `(u, v)` turn by a rotation in their plane.
fn refine_around(cloud: &[P3], axes: &mut [V3; 3], k: usize) {
    let u = axes[(k + 1) % 3];
    let v = axes[(k + 2) % 3];
    let flat: Vec<P2> = cloud
        .iter()
        .map(|p| P2::new(u.dot(&p.coords), v.dot(&p.coords)))
        .collect();
    let hull: Vec<P2> = convex_hull(&flat).into_iter().map(|i| flat[i]).collect();
    if hull.len() < 3 {
        return;
    }
    let current = rectangle_area(&hull, &na::Vector2::x());
    let (direction, area) = min_area_rectangle(&hull);
    // Only turn for a real gain, so that a box already aligned stays exactly aligned.
    if area < current * (1.0 - 1e-9) {
        axes[(k + 1) % 3] = u * direction.x + v * direction.y;
        axes[(k + 2) % 3] = v * direction.x - u * direction.y;
    }
}

/// The area of the rectangle around `hull` with one side along the unit `direction`.
fn rectangle_area(hull: &[P2], direction: &na::Vector2<f64>) -> f64 {
    let normal = na::Vector2::new(-direction.y, direction.x);
    let (mut lo_d, mut hi_d, mut lo_n, mut hi_n) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for p in hull {
        let (d, n) = (p.coords.dot(direction), p.coords.dot(&normal));
        lo_d = lo_d.min(d);
        hi_d = hi_d.max(d);
        lo_n = lo_n.min(n);
        hi_n = hi_n.max(n);
    }
    (hi_d - lo_d) * (hi_n - lo_n)
}

/// The unit direction of a side of the minimum-area rectangle around the convex polygon `hull`
/// (counter-clockwise, at least 3 vertices), and that area. One side of the optimum lies on a
/// hull edge; rotating calipers keep the three other supporting vertices as the edge advances,
/// so the whole search is linear in the hull's size.
fn min_area_rectangle(hull: &[P2]) -> (na::Vector2<f64>, f64) {
    let n = hull.len();
    let at = |i: usize| hull[i % n];
    let mut best = (na::Vector2::x(), f64::INFINITY);
    // Calipers: `right` maximises the projection on the edge direction, `top` the distance from
    // the edge, `left` minimises the projection on the edge direction.
    let (mut right, mut top, mut left) = (1usize, 1usize, 1usize);
    for i in 0..n {
        let edge = at(i + 1) - at(i);
        let length = edge.norm();
        if length == 0.0 {
            continue;
        }
        let d = edge / length;
        let normal = na::Vector2::new(-d.y, d.x);
        let along = |j: usize| at(j).coords.dot(&d);
        let height = |j: usize| (at(j) - at(i)).dot(&normal);
        right = right.max(i + 1);
        while along(right + 1) > along(right) && right < i + n {
            right += 1;
        }
        top = top.max(right);
        while height(top + 1) > height(top) && top < i + n {
            top += 1;
        }
        left = left.max(top);
        while along(left + 1) < along(left) && left < i + n {
            left += 1;
        }
        let area = (along(right) - along(left)) * height(top);
        if area < best.1 {
            best = (d, area);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calipers_match_brute_force() {
        // A random-ish convex polygon: the hull of a few points.
        let pts: Vec<P2> = (0..40)
            .map(|i| {
                let t = i as f64 * 2.399;
                P2::new(
                    3.0 * t.cos() + 0.1 * (i % 7) as f64,
                    1.3 * t.sin() - 0.05 * (i % 5) as f64,
                )
            })
            .collect();
        let hull: Vec<P2> = convex_hull(&pts).into_iter().map(|i| pts[i]).collect();
        let (_, area) = min_area_rectangle(&hull);
        let brute = (0..hull.len())
            .map(|i| {
                let e = (hull[(i + 1) % hull.len()] - hull[i]).normalize();
                rectangle_area(&hull, &e)
            })
            .fold(f64::INFINITY, f64::min);
        assert!((area - brute).abs() <= 1e-9 * brute, "{area} vs {brute}");
    }

    #[test]
    fn frame_is_right_handed() {
        let [x, y, z] = orthonormal_frame(&V3::new(1.0, 1.0, 0.0), &V3::new(1.0, 1.0, 0.0));
        assert!((x.cross(&y) - z).norm() < 1e-12);
        assert!(x.dot(&y).abs() < 1e-12);
    }
}
