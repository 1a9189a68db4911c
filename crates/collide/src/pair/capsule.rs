//! Capsule pairs: a ball against a capsule, two capsules, a capsule against a box. World
//! space; the normal points from the first shape toward the second.
//!
//! A capsule is its inner segment grown by a radius, so each pair is the distance between the
//! segment and the other shape's core, less the radii. Where the cores are apart that
//! distance and its closest points are exact (a segment against a box: the closest points lie
//! on an end of the segment or on an edge of the box, by convexity). Where they meet (a
//! segment through a box) the separating axis test over the box's faces and the crosses of
//! the segment with the box's edges gives the minimum translation. A capsule lying along a
//! box face, or beside another capsule, is held at two points: the segment clipped to the
//! face (or to the other segment's extent), each end kept when within the margin.

use crate::contact::{Contact, ContactPoint, FeatureId};
use crate::segment::closest_points_on_segments;
use arrayvec::ArrayVec;
use geom::{Capsule, Obb, Point3, Real, Sphere, Vector3};

/// Two segments within this sine of parallel make a two-point manifold (about 5.7 degrees;
/// a tilted end beyond the margin is dropped).
const PARALLEL_SIN: Real = 0.1;

/// A unit vector perpendicular to unit `u` (deterministic).
fn perpendicular(u: &Vector3) -> Vector3 {
    let other = if u.x.abs() < 0.6 {
        Vector3::x()
    } else {
        Vector3::y()
    };
    u.cross(&other).normalize()
}

/// Where a point lies along a segment, for feature ids: 0 at the first end, 1 inside, 2 at
/// the second end.
fn segment_region(t: Real) -> u32 {
    if t <= 0.0 {
        0
    } else if t >= 1.0 {
        2
    } else {
        1
    }
}

/// The contact of a ball and a capsule, or `None` when more than `margin` apart: the ball
/// against the segment's closest point, as two balls.
pub fn sphere_capsule_contact_within(
    sphere: &Sphere,
    capsule: &Capsule,
    margin: Real,
) -> Option<Contact> {
    let (on_segment, t) = capsule.closest_on_segment(&sphere.center);
    let d = on_segment - sphere.center;
    let radii = sphere.radius + capsule.radius;
    let dist_sq = d.norm_squared();
    if dist_sq > (radii + margin) * (radii + margin) {
        return None;
    }
    let dist = dist_sq.sqrt();
    let normal = if dist > Real::EPSILON * radii {
        d / dist
    } else {
        perpendicular(&capsule.axis().try_normalize(0.0).unwrap_or(Vector3::y()))
    };
    let depth = radii - dist;
    let position = sphere.center + normal * (sphere.radius - 0.5 * depth);
    Some(Contact::single(
        normal,
        depth,
        position,
        FeatureId::capsule(0, segment_region(t)),
    ))
}

/// The contact of two capsules, or `None` when more than `margin` apart: the closest points
/// of their segments; two nearly parallel capsules side by side touch along the part of `b`
/// that lies over `a`, at its two ends.
pub fn capsule_capsule_contact_within(a: &Capsule, b: &Capsule, margin: Real) -> Option<Contact> {
    let (pa, pb) = closest_points_on_segments(&a.a, &a.b, &b.a, &b.b);
    let radii = a.radius + b.radius;
    let d = pb - pa;
    let dist_sq = d.norm_squared();
    if dist_sq > (radii + margin) * (radii + margin) {
        return None;
    }
    let (da, db) = (a.axis(), b.axis());
    let ua = da.try_normalize(0.0).unwrap_or(Vector3::y());
    let dist = dist_sq.sqrt();
    let normal = if dist > Real::EPSILON * radii {
        d / dist
    } else {
        // The segments meet: out along their common perpendicular, toward b's centre.
        let across = ua.cross(&db);
        let n = across.try_normalize(1e-6).unwrap_or_else(|| {
            let off = b.center() - a.center();
            (off - ua * off.dot(&ua))
                .try_normalize(1e-6)
                .unwrap_or_else(|| perpendicular(&ua))
        });
        if n.dot(&(b.center() - a.center())) < 0.0 {
            -n
        } else {
            n
        }
    };
    let point = |on_a: Point3, on_b: Point3, id: FeatureId| {
        let depth = radii - (on_b - on_a).dot(&normal);
        ContactPoint {
            position: on_a + normal * (a.radius - 0.5 * depth),
            depth,
            id,
        }
    };
    // Side by side: b's segment clipped to a's extent along a's axis.
    let len_a = da.norm();
    let sin = ua.cross(&db).norm() / db.norm().max(Real::MIN_POSITIVE);
    if sin < PARALLEL_SIN && len_a > 0.0 {
        let (t0, t1) = ((b.a - a.a).dot(&ua), (b.b - a.a).dot(&ua));
        let (lo, hi) = (t0.min(t1).max(0.0), t0.max(t1).min(len_a));
        if hi - lo > 1e-4 * (len_a + db.norm()) && (t1 - t0).abs() > 0.0 {
            let mut points = ArrayVec::new();
            for (k, tau) in [lo, hi].into_iter().enumerate() {
                let on_b = b.a + db * ((tau - t0) / (t1 - t0));
                let p = point(a.a + ua * tau, on_b, FeatureId::capsule(1, k as u32));
                if p.depth >= -margin {
                    points.push(p);
                }
            }
            if points.len() == 2 {
                return Some(with_points(normal, points));
            }
        }
    }
    let ta = (pa - a.a).dot(&da) / da.norm_squared().max(Real::MIN_POSITIVE);
    let tb = (pb - b.a).dot(&db) / db.norm_squared().max(Real::MIN_POSITIVE);
    let id = FeatureId::capsule(2, 3 * segment_region(ta) + segment_region(tb));
    let p = point(pa, pb, id);
    Some(Contact::single(normal, p.depth, p.position, id))
}

/// A contact of these points along `normal`: its depth the deepest point's.
pub(crate) fn with_points(normal: Vector3, points: ArrayVec<ContactPoint, 4>) -> Contact {
    let depth = points
        .iter()
        .map(|p| p.depth)
        .fold(Real::NEG_INFINITY, Real::max);
    Contact {
        normal,
        depth,
        points,
    }
}

/// Where segment `p0 p1` (box-local) enters and leaves the box of half extents `h`, as
/// parameters in `[0, 1]`, or `None` when it misses (the slab test).
fn segment_in_box(p0: &Vector3, p1: &Vector3, h: &Vector3) -> Option<(Real, Real)> {
    let d = p1 - p0;
    let (mut lo, mut hi) = (0.0 as Real, 1.0 as Real);
    for k in 0..3 {
        if d[k] == 0.0 {
            if p0[k].abs() > h[k] {
                return None;
            }
            continue;
        }
        let (a, b) = ((-h[k] - p0[k]) / d[k], (h[k] - p0[k]) / d[k]);
        lo = lo.max(a.min(b));
        hi = hi.min(a.max(b));
        if lo > hi {
            return None;
        }
    }
    Some((lo, hi))
}

/// The closest points of segment `p0 p1` and the box of half extents `h` (box-local, apart):
/// on an end of the segment against the box, or on an edge of the box against the segment.
/// The point on the segment, its parameter, the point on the box.
fn closest_segment_box(p0: &Vector3, p1: &Vector3, h: &Vector3) -> (Vector3, Real, Vector3) {
    let clamp = |p: &Vector3| p.sup(&-h).inf(h);
    let mut best = (*p0, 0.0, clamp(p0));
    let mut best_sq = (best.0 - best.2).norm_squared();
    let q1 = clamp(p1);
    if (p1 - q1).norm_squared() < best_sq {
        best = (*p1, 1.0, q1);
        best_sq = (p1 - q1).norm_squared();
    }
    let d = p1 - p0;
    for axis in 0..3 {
        let (i, j) = ((axis + 1) % 3, (axis + 2) % 3);
        for corner in 0..4 {
            let mut e0 = Vector3::zeros();
            e0[i] = if corner & 1 == 0 { -h[i] } else { h[i] };
            e0[j] = if corner & 2 == 0 { -h[j] } else { h[j] };
            let mut e1 = e0;
            e0[axis] = -h[axis];
            e1[axis] = h[axis];
            let (on_segment, on_edge) = closest_points_on_segments(
                &Point3::from(*p0),
                &Point3::from(*p1),
                &Point3::from(e0),
                &Point3::from(e1),
            );
            let dist_sq = (on_segment - on_edge).norm_squared();
            if dist_sq < best_sq {
                let t = (on_segment.coords - p0).dot(&d) / d.norm_squared().max(Real::MIN_POSITIVE);
                best = (on_segment.coords, t, on_edge.coords);
                best_sq = dist_sq;
            }
        }
    }
    best
}

/// The least-penetrating axis of a segment through a box (box-local): the box's faces and the
/// crosses of the segment with the box's edges, faces taken on a tie. The unit
/// axis from the box toward the segment's centre, and the separation along it (negative).
fn segment_box_sat(p0: &Vector3, p1: &Vector3, h: &Vector3) -> (Vector3, Real) {
    let (c, d) = ((p0 + p1) * 0.5, p1 - p0);
    let separation = |l: &Vector3| {
        let box_radius = h.x * l.x.abs() + h.y * l.y.abs() + h.z * l.z.abs();
        c.dot(l).abs() - box_radius - 0.5 * d.dot(l).abs()
    };
    let oriented = |l: Vector3| if c.dot(&l) < 0.0 { -l } else { l };
    let mut best = (Vector3::zeros(), Real::NEG_INFINITY);
    for k in 0..3 {
        let mut l = Vector3::zeros();
        l[k] = 1.0;
        let s = separation(&l);
        if s > best.1 {
            best = (oriented(l), s);
        }
    }
    for k in 0..3 {
        let mut e = Vector3::zeros();
        e[k] = 1.0;
        let Some(l) = d.cross(&e).try_normalize(1e-6 * d.norm()) else {
            continue;
        };
        let s = separation(&l);
        if s > best.1 {
            best = (oriented(l), s);
        }
    }
    best
}

/// The contact of a capsule and a box, or `None` when more than `margin` apart; the normal
/// points from the capsule toward the box.
pub fn capsule_obb_contact_within(capsule: &Capsule, obb: &Obb, margin: Real) -> Option<Contact> {
    let to_world = |v: &Vector3| obb.center + obb.rotation * v;
    let p0 = obb.to_local(&capsule.a).coords;
    let p1 = obb.to_local(&capsule.b).coords;
    let h = obb.half_extents;
    let r = capsule.radius;
    // From the box toward the capsule, box-local, and the gap between their cores.
    let (normal, gap, single) = match segment_in_box(&p0, &p1, &h) {
        Some(_) => {
            let (normal, separation) = segment_box_sat(&p0, &p1, &h);
            // The segment's point deepest along the normal.
            let (p, t) = if p0.dot(&normal) <= p1.dot(&normal) {
                (p0, 0.0)
            } else {
                (p1, 1.0)
            };
            (normal, separation, (p, t, None))
        }
        None => {
            let (p, t, q) = closest_segment_box(&p0, &p1, &h);
            let gap = (p - q).norm();
            if gap > r + margin {
                return None;
            }
            let normal = (p - q)
                .try_normalize(0.0)
                .unwrap_or_else(|| segment_box_sat(&p0, &p1, &h).0);
            (normal, gap, (p, t, Some(q)))
        }
    };
    // Lying along a face: the segment clipped to the face's sides, each end held.
    let k = normal.iamax();
    let mut face = Vector3::zeros();
    face[k] = normal[k].signum();
    let is_face = normal.iter().filter(|x| **x == 0.0).count() == 2;
    if is_face {
        let d = p1 - p0;
        let (mut lo, mut hi) = (0.0 as Real, 1.0 as Real);
        let mut labels = [0u32, 1u32];
        let mut inside = true;
        for (side, axis) in [(k + 1) % 3, (k + 2) % 3].into_iter().enumerate() {
            for (sign_label, bound) in [(0, -h[axis]), (1, h[axis])] {
                let label = 2 + 2 * side as u32 + sign_label;
                // Keep `sign (p - bound) <= 0` for the upper side, `>= 0` for the lower.
                let s = if sign_label == 1 { 1.0 } else { -1.0 };
                let (f0, fd) = (s * (p0[axis] - bound), s * d[axis]);
                if fd == 0.0 {
                    inside &= f0 <= 0.0;
                    continue;
                }
                let t = -f0 / fd;
                if fd > 0.0 && t < hi {
                    hi = t;
                    labels[1] = label;
                } else if fd < 0.0 && t > lo {
                    lo = t;
                    labels[0] = label;
                }
            }
        }
        if inside && hi - lo > 1e-4 {
            let world_normal = -(obb.rotation * face);
            let mut points = ArrayVec::new();
            for (end, t) in [lo, hi].into_iter().enumerate() {
                let p = p0 + d * t;
                let height = p.dot(&face) - h[k];
                let depth = r - height;
                if depth >= -margin {
                    points.push(ContactPoint {
                        position: to_world(&(p - face * (r - 0.5 * depth))),
                        depth,
                        id: FeatureId::capsule(
                            3,
                            (k as u32 * 2 + u32::from(face[k] < 0.0)) << 4 | labels[end],
                        ),
                    });
                }
            }
            // Both ends held, the deeper as deep as the exact contact (the segment's deepest
            // end may lie beyond the face's sides).
            let exact = r - gap;
            if points.len() == 2 && {
                let deepest = points[0].depth.max(points[1].depth);
                deepest >= exact - 1e-5 * (1.0 + exact.abs())
            } {
                return Some(with_points(world_normal, points));
            }
        }
    }
    let (p, t, on_box) = single;
    let depth = r - gap;
    let id = match on_box {
        Some(q) => {
            let region = (0..3).fold(0u32, |acc, i| {
                acc * 3
                    + if q[i] >= h[i] {
                        2
                    } else {
                        u32::from(q[i] > -h[i])
                    }
            });
            FeatureId::capsule(4, region * 3 + segment_region(t))
        }
        None => FeatureId::capsule(5, k as u32 * 3 + segment_region(t)),
    };
    let position = to_world(&(p - normal * (r - 0.5 * depth)));
    Some(Contact::single(
        -(obb.rotation * normal),
        depth,
        position,
        id,
    ))
}
