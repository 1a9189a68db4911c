//! A ball or a box against one triangle of a surface, world space: what the surface contacts
//! (`pair::surface`) gather, filter for internal edges and merge. The normal points from the
//! triangle toward the other shape, and triangles are one-sided: nothing is found for a shape
//! whose centre lies behind the triangle's plane.

use super::hull::{Chosen, Poly, contact_of, sat};
use crate::contact::ContactPoint;
use crate::segment::closest_points_on_segments;
use arrayvec::ArrayVec;
use geom::{Capsule, Obb, Point3, Real, Sphere, Vector3};

/// A separating axis of the triangle's edges must beat its face's (or a box face's) by this
/// much (metres) to be chosen: faces give steadier manifolds.
const FACE_BIAS: Real = 0.0005;

/// Which feature of the triangle (or of the box) a triangle contact comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Feature {
    /// The triangle's face: its normal is the contact normal.
    Face,
    /// A face of the box, clipping the triangle.
    BoxFace,
    /// Edge `k` of the triangle (corner `k` to corner `k + 1`).
    Edge(u8),
    /// Corner `k` of the triangle.
    Vertex(u8),
}

impl Feature {
    /// The feature as a number for a round shape's point id: 0 the face, 1-3 an edge, 4-6 a
    /// corner.
    fn code(self) -> u32 {
        match self {
            Feature::Face | Feature::BoxFace => 0,
            Feature::Edge(k) => 1 + u32::from(k),
            Feature::Vertex(k) => 4 + u32::from(k),
        }
    }
}

/// The contact of a shape with one triangle: up to 7 points (a quad clipped by three planes,
/// or a triangle by four) whose ids are local to the triangle.
#[derive(Debug, Clone)]
pub(crate) struct TriangleContact {
    /// Unit, from the triangle toward the shape.
    pub normal: Vector3,
    pub points: ArrayVec<ContactPoint, 8>,
    pub feature: Feature,
    /// A ball's centre's squared distance to the triangle (0 for boxes).
    pub distance_sq: Real,
}

/// A local id: the contact's kind in bits 10-11, the rest its own.
fn local_id(kind: u32, rest: u32) -> u32 {
    debug_assert!(rest < 1 << 10);
    kind << 10 | rest
}

/// The point of triangle `[a, b, c]` closest to `p`, and the feature it lies on (Ericson,
/// Real-Time Collision Detection, 5.1.5).
fn closest_on_triangle(p: &Point3, [a, b, c]: &[Point3; 3]) -> (Point3, Feature) {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(&ap), ac.dot(&ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return (*a, Feature::Vertex(0));
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(&bp), ac.dot(&bp));
    if d3 >= 0.0 && d4 <= d3 {
        return (*b, Feature::Vertex(1));
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return (a + ab * (d1 / (d1 - d3)), Feature::Edge(0));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(&cp), ac.dot(&cp));
    if d6 >= 0.0 && d5 <= d6 {
        return (*c, Feature::Vertex(2));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return (a + ac * (d2 / (d2 - d6)), Feature::Edge(2));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (b + (c - b) * w, Feature::Edge(1));
    }
    let denom = 1.0 / (va + vb + vc);
    (a + ab * (vb * denom) + ac * (vc * denom), Feature::Face)
}

/// A ball against triangle `tri` (unit front normal `n`): the closest point of the triangle to
/// the centre, when within the radius plus `margin`. With `solid_below` (the triangle tops
/// solid ground), a centre behind the plane over the triangle is pushed out along `n`.
pub(crate) fn sphere_triangle(
    sphere: &Sphere,
    tri: &[Point3; 3],
    n: &Vector3,
    margin: Real,
    solid_below: bool,
) -> Option<TriangleContact> {
    let centre = sphere.center;
    let height = (centre - tri[0]).dot(n);
    let (closest, normal, distance, feature, distance_sq) = if height < 0.0 {
        if !solid_below {
            return None;
        }
        // Over the triangle (its edges and corners included): what is below is the ground,
        // and the way out is up through the face.
        let on_plane = centre - n * height;
        let (closest, _) = closest_on_triangle(&on_plane, tri);
        let size = (tri[1] - tri[0]).norm() + (tri[2] - tri[0]).norm();
        if (closest - on_plane).norm_squared() > (1e-5 * size) * (1e-5 * size) {
            return None;
        }
        (closest, *n, height, Feature::Face, 0.0)
    } else {
        let (closest, feature) = closest_on_triangle(&centre, tri);
        let d = centre - closest;
        let distance_sq = d.norm_squared();
        let reach = sphere.radius + margin;
        if distance_sq > reach * reach {
            return None;
        }
        let distance = distance_sq.sqrt();
        let normal = if distance > Real::EPSILON * sphere.radius {
            d / distance
        } else {
            *n
        };
        (closest, normal, distance, feature, distance_sq)
    };
    let depth = sphere.radius - distance;
    let code = feature.code();
    let mut points = ArrayVec::new();
    points.push(ContactPoint {
        position: closest - normal * (0.5 * depth),
        depth,
        id: crate::FeatureId(local_id(3, code)),
    });
    Some(TriangleContact {
        normal,
        points,
        feature,
        distance_sq,
    })
}

/// Where segment `a b` lies within the prism over triangle `tri` (unit normal `n`): the
/// parameters in `[0, 1]` where it enters and leaves, with the side (0-2: edge `k`'s plane,
/// 3-4: the segment's own ends) each comes from, or `None` when it misses.
fn segment_in_prism(
    a: &Point3,
    b: &Point3,
    tri: &[Point3; 3],
    n: &Vector3,
) -> Option<[(Real, u32); 2]> {
    let d = b - a;
    let (mut lo, mut hi) = ((0.0, 3), (1.0, 4));
    for k in 0..3 {
        let inward = n.cross(&(tri[(k + 1) % 3] - tri[k]));
        let (f0, fd) = ((a - tri[k]).dot(&inward), d.dot(&inward));
        if fd == 0.0 {
            if f0 < 0.0 {
                return None;
            }
            continue;
        }
        let t = -f0 / fd;
        if fd > 0.0 && t > lo.0 {
            lo = (t, k as u32);
        } else if fd < 0.0 && t < hi.0 {
            hi = (t, k as u32);
        }
    }
    (lo.0 <= hi.0).then_some([lo, hi])
}

/// A capsule against triangle `tri` (unit front normal `n`): when the segment crosses the
/// triangle, or its closest point is on the face, the triangle's face holds the part of the
/// segment over it at its two ends (each kept within the radius plus `margin`); else the
/// closest points of the segment and the triangle's edges or corners, as a ball there. A
/// capsule whose centre is behind the plane is left alone, unless `solid_below` (solid ground
/// under the triangle), where it is pushed back up through the face.
pub(crate) fn capsule_triangle(
    capsule: &Capsule,
    tri: &[Point3; 3],
    n: &Vector3,
    margin: Real,
    solid_below: bool,
) -> Option<TriangleContact> {
    let (a, b, r) = (capsule.a, capsule.b, capsule.radius);
    let (h0, h1) = ((a - tri[0]).dot(n), (b - tri[0]).dot(n));
    let buried = h0 + h1 < 0.0;
    if (buried && !solid_below) || h0.min(h1) > r + margin {
        return None;
    }
    let prism = segment_in_prism(&a, &b, tri, n);
    let face = |prism: [(Real, u32); 2]| -> Option<TriangleContact> {
        let points: ArrayVec<ContactPoint, 8> = prism
            .iter()
            .filter_map(|&(t, side)| {
                let height = h0 + (h1 - h0) * t;
                let depth = r - height;
                (depth >= -margin).then(|| ContactPoint {
                    position: a + (b - a) * t - n * (r - 0.5 * depth),
                    depth,
                    id: crate::FeatureId(local_id(3, 16 + side)),
                })
            })
            .collect();
        (!points.is_empty()).then_some(TriangleContact {
            normal: *n,
            points,
            feature: Feature::Face,
            distance_sq: 0.0,
        })
    };
    let crossing = h0.min(h1) <= 0.0 && h0.max(h1) >= 0.0;
    if buried || crossing {
        // Through the plane: over the triangle, up through its face; beside it, apart
        // (crossing the plane outside the triangle, the closest points are on its edges).
        if let Some(prism) = prism {
            let t = if h0 == h1 { 0.0 } else { h0 / (h0 - h1) };
            if buried || (prism[0].0..=prism[1].0).contains(&t) {
                return face(prism);
            }
        }
        if buried {
            return None;
        }
    }
    // Apart from the triangle: the closest points lie on an end of the segment (against the
    // triangle) or on an edge of the triangle (against the segment).
    let mut best: Option<(Point3, Point3, Feature)> = None;
    let mut best_sq = Real::INFINITY;
    for end in [a, b] {
        let (q, feature) = closest_on_triangle(&end, tri);
        let dist_sq = (end - q).norm_squared();
        if dist_sq < best_sq {
            (best, best_sq) = (Some((end, q, feature)), dist_sq);
        }
    }
    for k in 0..3 {
        let (e0, e1) = (tri[k], tri[(k + 1) % 3]);
        let (p, q) = closest_points_on_segments(&a, &b, &e0, &e1);
        let dist_sq = (p - q).norm_squared();
        if dist_sq < best_sq {
            let feature = if q == e0 {
                Feature::Vertex(k as u8)
            } else if q == e1 {
                Feature::Vertex(((k + 1) % 3) as u8)
            } else {
                Feature::Edge(k as u8)
            };
            (best, best_sq) = (Some((p, q, feature)), dist_sq);
        }
    }
    let (p, q, feature) = best?;
    if best_sq > (r + margin) * (r + margin) {
        return None;
    }
    // The part of the segment over the triangle as close as the closest points (a segment
    // lying over a triangle is as near its face as its edges): the face holds it.
    if let Some(prism) = prism {
        let low = prism
            .iter()
            .map(|&(t, _)| h0 + (h1 - h0) * t)
            .fold(Real::INFINITY, Real::min);
        if low * low <= best_sq * (1.0 + 1e-5) + Real::EPSILON * r * r
            && let Some(contact) = face(prism)
        {
            return Some(contact);
        }
    }
    let distance = best_sq.sqrt();
    let normal = if distance > Real::EPSILON * r {
        (p - q) / distance
    } else {
        *n
    };
    let depth = r - distance;
    let code = feature.code();
    let mut points = ArrayVec::new();
    points.push(ContactPoint {
        position: p - normal * (r - 0.5 * depth),
        depth,
        id: crate::FeatureId(local_id(3, 8 + code)),
    });
    Some(TriangleContact {
        normal,
        points,
        feature,
        distance_sq: best_sq,
    })
}

/// A convex polyhedron against triangle `tri` (unit front normal `n`), after the box's rules
/// ([`box_triangle`]): nothing for a polyhedron whose centre is behind the plane (unless
/// `solid_below`, where it goes back up through the face); the separating axis test over the
/// triangle's face, the polyhedron's faces and the crosses of their edges, only axes that do
/// not point behind the triangle; the triangle's face, a face of the polyhedron, or an edge
/// of the triangle.
pub(crate) fn hull_triangle(
    hull: &Poly<'_>,
    tri: &[Point3; 3],
    n: &Vector3,
    margin: Real,
    solid_below: bool,
) -> Option<TriangleContact> {
    let height = (hull.centre - tri[0]).dot(n);
    if height < 0.0 && !solid_below {
        return None;
    }
    let triangle = Poly::of_triangle(tri, n);
    let chosen = if height < 0.0 {
        let separation = (hull.support(&-n) - tri[0]).dot(n);
        (Chosen::FaceA(0), separation, None)
    } else {
        sat(&triangle, hull, margin, &|l: &Vector3| l.dot(n) >= 0.0)?
    };
    let feature = match &chosen.0 {
        Chosen::FaceA(_) => Feature::Face,
        Chosen::FaceB(_) => Feature::BoxFace,
        Chosen::Edge(e) => Feature::Edge(e.edge_a.min(2) as u8),
    };
    let contact = contact_of(&triangle, hull, chosen, margin)?;
    Some(TriangleContact {
        normal: contact.normal,
        points: contact
            .points
            .iter()
            .map(|p| ContactPoint {
                // The polyhedron's id folded into the local id's ten bits.
                id: crate::FeatureId(local_id(2, (p.id.0 ^ p.id.0 >> 10 ^ p.id.0 >> 20) & 0x3ff)),
                ..*p
            })
            .collect(),
        feature,
        distance_sq: 0.0,
    })
}

/// A vertex of a polygon being clipped, with the labels of its two edges.
#[derive(Debug, Clone, Copy)]
struct ClipVertex {
    p: Point3,
    labels: (u8, u8),
}

/// `polygon` clipped to the half space `(x - origin) . inward >= 0`; new vertices get `label`
/// for the clipping plane's side.
fn clip(
    polygon: &ArrayVec<ClipVertex, 8>,
    origin: &Point3,
    inward: &Vector3,
    label: u8,
) -> ArrayVec<ClipVertex, 8> {
    let mut out = ArrayVec::new();
    let len = polygon.len();
    for i in 0..len {
        let (current, next) = (&polygon[i], &polygon[(i + 1) % len]);
        let (f, g) = (
            (current.p - origin).dot(inward),
            (next.p - origin).dot(inward),
        );
        if f >= 0.0 && !out.is_full() {
            out.push(*current);
        }
        if (f >= 0.0) != (g >= 0.0) && !out.is_full() {
            let s = f / (f - g);
            let labels = if f >= 0.0 {
                (current.labels.1, label)
            } else {
                (label, current.labels.1)
            };
            out.push(ClipVertex {
                p: current.p + (next.p - current.p) * s,
                labels,
            });
        }
    }
    out
}

/// The id bits of two clip labels (each below 9), smaller first.
fn labels_id((x, y): (u8, u8)) -> u32 {
    let (lo, hi) = (x.min(y), x.max(y));
    u32::from(lo) * 9 + u32::from(hi)
}

/// The contact points of a clipped polygon against the reference plane through `origin` with
/// unit normal `normal` (pointing toward the polygon's shape): each vertex up to `margin`
/// above it, midway between the vertex and the plane, its id from its clip labels.
fn clipped_points(
    polygon: &ArrayVec<ClipVertex, 8>,
    origin: &Point3,
    normal: &Vector3,
    margin: Real,
    id: impl Fn((u8, u8)) -> u32,
) -> ArrayVec<ContactPoint, 8> {
    polygon
        .iter()
        .filter_map(|v| {
            let s = (v.p - origin).dot(normal);
            (s <= margin).then(|| ContactPoint {
                position: v.p - normal * (0.5 * s),
                depth: -s,
                id: crate::FeatureId(id(v.labels)),
            })
        })
        .collect()
}

/// A separating axis: unit, from the triangle toward the box, with the box's separation along
/// it (negative when they overlap).
#[derive(Debug, Clone, Copy)]
struct Axis {
    normal: Vector3,
    separation: Real,
    kind: AxisKind,
}

#[derive(Debug, Clone, Copy)]
enum AxisKind {
    Face,
    BoxFace(usize),
    Edge(usize, usize),
}

/// A box against triangle `tri` (unit front normal `n`): the separating axis test over the
/// triangle's normal, the box's three axes and the nine crosses of their edges; then the
/// box's face most against the triangle clipped by the triangle's sides (the triangle's face
/// chosen), the triangle clipped by the box face's sides (a box face chosen), or the closest
/// points of two edges. Faces are preferred unless an edge separates by [`FACE_BIAS`] more;
/// only axes that do not point behind the triangle may be chosen. With `solid_below` (the
/// triangle tops solid ground) a box whose centre is behind the plane is still tested, and
/// the triangle's face pushes it back up.
pub(crate) fn box_triangle(
    obb: &Obb,
    tri: &[Point3; 3],
    n: &Vector3,
    margin: Real,
    solid_below: bool,
) -> Option<TriangleContact> {
    let c = obb.center;
    if (c - tri[0]).dot(n) < 0.0 && !solid_below {
        return None;
    }
    let u = obb.axes();
    let h = obb.half_extents;
    let radius = |l: &Vector3| (0..3).map(|k| h[k] * u[k].dot(l).abs()).sum::<Real>();
    // The separation along unit axis `l`, oriented from the triangle toward the box.
    let oriented = |l: Vector3| -> (Vector3, Real) {
        let (mut lo, mut hi) = (Real::INFINITY, Real::NEG_INFINITY);
        for v in tri {
            let t = v.coords.dot(&l);
            lo = lo.min(t);
            hi = hi.max(t);
        }
        let (centre, r) = (c.coords.dot(&l), radius(&l));
        let (above, below) = (centre - r - hi, lo - (centre + r));
        if above >= below {
            (l, above)
        } else {
            (-l, below)
        }
    };
    let face = Axis {
        normal: *n,
        separation: (c - tri[0]).dot(n) - radius(n),
        kind: AxisKind::Face,
    };
    if face.separation > margin {
        return None;
    }
    let mut best = face;
    // A box whose centre is under solid ground goes back up through the face: no other axis
    // separates it or pushes it.
    let buried = solid_below && (c - tri[0]).dot(n) < 0.0;
    let mut consider = |axis: Axis, bias: Real| -> bool {
        if buried {
            return true;
        }
        if axis.separation > margin {
            return false;
        }
        if axis.normal.dot(n) >= 0.0 && axis.separation > best.separation + bias {
            best = axis;
        }
        true
    };
    for (k, uk) in u.iter().enumerate() {
        let (normal, separation) = oriented(*uk);
        let axis = Axis {
            normal,
            separation,
            kind: AxisKind::BoxFace(k),
        };
        if !consider(axis, FACE_BIAS) {
            return None;
        }
    }
    for (k, uk) in u.iter().enumerate() {
        for j in 0..3 {
            let edge = tri[(j + 1) % 3] - tri[j];
            let cross = uk.cross(&edge);
            let length = cross.norm();
            if length <= 1e-6 * edge.norm() {
                continue;
            }
            let (normal, separation) = oriented(cross / length);
            let axis = Axis {
                normal,
                separation,
                kind: AxisKind::Edge(k, j),
            };
            if !consider(axis, 2.0 * FACE_BIAS) {
                return None;
            }
        }
    }
    let l = best.normal;
    let points: ArrayVec<ContactPoint, 8>;
    let feature = match best.kind {
        AxisKind::Face => {
            // The box face most against the triangle, clipped by the triangle's sides.
            let dots = [u[0].dot(n), u[1].dot(n), u[2].dot(n)];
            let m = (0..3)
                .reduce(|a, b| if dots[b].abs() > dots[a].abs() { b } else { a })
                .unwrap_or(0);
            let sign = if dots[m] > 0.0 { -1.0 } else { 1.0 };
            let face_id = 2 * m as u32 + u32::from(sign < 0.0);
            let (m1, m2) = ((m + 1) % 3, (m + 2) % 3);
            let fc = c + u[m] * (sign * h[m]);
            let (e1, e2) = (u[m1] * h[m1], u[m2] * h[m2]);
            let corners = [fc + e1 + e2, fc - e1 + e2, fc - e1 - e2, fc + e1 - e2];
            let mut polygon: ArrayVec<ClipVertex, 8> = (0..4)
                .map(|i| ClipVertex {
                    p: corners[i],
                    labels: (((i + 3) % 4) as u8, i as u8),
                })
                .collect();
            for k in 0..3 {
                let (from, to) = (tri[k], tri[(k + 1) % 3]);
                polygon = clip(&polygon, &from, &n.cross(&(to - from)), 4 + k as u8);
            }
            points = clipped_points(&polygon, &tri[0], n, margin, |labels| {
                local_id(0, face_id << 7 | labels_id(labels))
            });
            Feature::Face
        }
        AxisKind::BoxFace(k) => {
            // The triangle clipped by the sides of the box face facing it.
            let f = -l;
            let face_id = 2 * k as u32 + u32::from(f.dot(&u[k]) < 0.0);
            let fc = c + f * h[k];
            let mut polygon: ArrayVec<ClipVertex, 8> = (0..3)
                .map(|i| ClipVertex {
                    p: tri[i],
                    labels: (((i + 2) % 3) as u8, i as u8),
                })
                .collect();
            for (side, &(axis, sign)) in [
                ((k + 1) % 3, 1.0),
                ((k + 1) % 3, -1.0),
                ((k + 2) % 3, 1.0),
                ((k + 2) % 3, -1.0),
            ]
            .iter()
            .enumerate()
            {
                let inward: Vector3 = u[axis] * -sign;
                let origin = c + u[axis] * (sign * h[axis]);
                polygon = clip(&polygon, &origin, &inward, 3 + side as u8);
            }
            points = clipped_points(&polygon, &fc, &f, margin, |labels| {
                local_id(1, face_id << 7 | labels_id(labels))
            });
            Feature::BoxFace
        }
        AxisKind::Edge(k, j) => {
            // The box edge along u_k nearest the triangle, against triangle edge j.
            let mut corner = c;
            let mut which = 0;
            for (bit, i) in [(k + 1) % 3, (k + 2) % 3].into_iter().enumerate() {
                let toward = if u[i].dot(&l) > 0.0 { -1.0 } else { 1.0 };
                corner += u[i] * (toward * h[i]);
                which |= u32::from(toward > 0.0) << bit;
            }
            let (p, q) = (corner - u[k] * h[k], corner + u[k] * h[k]);
            let (on_box, on_tri) = closest_points_on_segments(&p, &q, &tri[j], &tri[(j + 1) % 3]);
            points = [ContactPoint {
                position: Point3::from((on_box.coords + on_tri.coords) * 0.5),
                depth: -best.separation,
                id: crate::FeatureId(local_id(2, (4 * k as u32 + which) * 3 + j as u32)),
            }]
            .into_iter()
            .collect();
            Feature::Edge(j as u8)
        }
    };
    if points.is_empty() {
        return None;
    }
    Some(TriangleContact {
        normal: l,
        points,
        feature,
        distance_sq: 0.0,
    })
}
