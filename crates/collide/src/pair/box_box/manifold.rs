//! The box-box contact manifold: the incident face clipped against the reference face's side
//! planes (Sutherland-Hodgman) and reduced to at most 4 points, or the single point of an edge
//! contact. Frames as in the parent module: world space in and out, the clipping done in the
//! reference face's frame.

use super::sat::{Pair, SatAxis, SatResult};
use crate::contact::{Contact, ContactPoint, FeatureId};
use crate::segment::closest_points_on_segments;
use arrayvec::ArrayVec;
use geom::{Matrix3, Obb, Real, Vector3};

impl Pair<'_> {
    /// The contact points on `axis`: the clipped incident face (points up to `margin` above the
    /// reference face) for a face axis, one point for an edge axis.
    pub(super) fn points_of(
        &self,
        axis: &SatResult,
        margin: Real,
        slop: Real,
    ) -> ArrayVec<ContactPoint, 4> {
        let (a, b, n) = (self.a, self.b, &axis.normal);
        let clip = Clip { margin, slop };
        match axis.axis {
            SatAxis::FaceA(i) => face_points(a, &self.ma, i as usize, n, b, &self.mb, false, clip),
            SatAxis::FaceB(j) => face_points(b, &self.mb, j as usize, &-n, a, &self.ma, true, clip),
            SatAxis::Edge(i, j) => edge_point(self, i as usize, j as usize, n, -axis.separation),
        }
    }
}

/// A vertex of the clipped incident face, in the reference face's frame (`x`, `y` along its
/// sides, `z` the height above it), with the labels of its two polygon edges: incident edges
/// are 0..4, reference side planes 4..8.
#[derive(Clone, Copy)]
struct ClipVertex {
    local: Vector3,
    in_label: u8,
    out_label: u8,
}

/// The most vertices a clipped incident face has: a quad clipped by four planes gains at most
/// one vertex per plane.
const CAPACITY: usize = 8;

/// The incident face as it is clipped: a convex polygon of at most [`CAPACITY`] vertices, in
/// a fixed array rather than a growable one, with one slot more, into which a vertex not
/// kept is written: a pass writes every candidate and counts those it keeps, without a
/// branch on which (which vertices lie inside a side plane follows no pattern a branch
/// predictor can learn). Not `Copy`: the clipping swaps its two buffers rather than copying
/// one.
struct Polygon {
    vertices: [ClipVertex; CAPACITY + 1],
    len: usize,
}

impl Polygon {
    const EMPTY: Self = Self {
        vertices: [ClipVertex {
            local: Vector3::new(0.0, 0.0, 0.0),
            in_label: 0,
            out_label: 0,
        }; CAPACITY + 1],
        len: 0,
    };

    fn vertices(&self) -> &[ClipVertex] {
        &self.vertices[..self.len]
    }

    /// Appends `vertex` if `keep`; one past [`CAPACITY`] is dropped (a convex quad never
    /// makes one, see above). Written in any case, past the last kept vertex.
    #[inline(always)]
    fn push_if(&mut self, vertex: ClipVertex, keep: bool) {
        self.vertices[self.len.min(CAPACITY)] = vertex;
        self.len += usize::from(keep & (self.len < CAPACITY));
    }

    /// Appends `vertex` (see [`Polygon::push_if`]).
    #[inline]
    fn push(&mut self, vertex: ClipVertex) {
        self.push_if(vertex, true);
    }
}

/// How a face contact is clipped: points up to `margin` above the reference face are kept, and
/// the side planes are moved `slop` outward.
#[derive(Debug, Clone, Copy)]
pub(super) struct Clip {
    margin: Real,
    slop: Real,
}

/// The solver manifold's clipping slop, times the boxes' size: an incident corner that lies
/// on a side plane of the reference face (two equal boxes stacked flush, a pyramid's rows) is
/// kept as the corner, with its feature id, instead of flipping between the corner and a
/// clipped point as rounding moves it across the plane. Ids that flip lose their warm start
/// every step (measured: 115 loaded points a step in a pyramid of base 40, which then slid
/// apart), since the solver matches impulses by id. Points may lie up to this far outside
/// the reference face.
pub(super) const CLIP_SLOP: Real = 0.005;

/// Contact points of a face contact: `reference` owns the face whose outward normal is
/// `reference_normal` (the SAT axis, oriented from `reference` toward `incident`), clipped as
/// `clip` says.
#[allow(clippy::too_many_arguments)]
fn face_points(
    reference: &Obb,
    reference_axes: &Matrix3,
    k: usize,
    reference_normal: &Vector3,
    incident: &Obb,
    incident_axes: &Matrix3,
    reference_is_b: bool,
    Clip { margin, slop }: Clip,
) -> ArrayVec<ContactPoint, 4> {
    let (k1, k2) = ((k + 1) % 3, (k + 2) % 3);
    let n = *reference_normal;
    let (u, v) = (reference_axes.column(k1), reference_axes.column(k2));
    let face_center = reference.center + n * reference.half_extents[k];
    let limits = [
        reference.half_extents[k1] + slop,
        reference.half_extents[k2] + slop,
    ];
    let reference_face = (k as u8) * 2 + u8::from(n.dot(&reference_axes.column(k)) < 0.0);

    // The incident face: the other box's face most anti-parallel to n.
    let dots = incident_axes.tr_mul(&n);
    let m = dots.iamax();
    let m_sign = if dots[m] > 0.0 { -1.0 } else { 1.0 };
    let incident_face = (m as u8) * 2 + u8::from(m_sign < 0.0);
    let (m1, m2) = ((m + 1) % 3, (m + 2) % 3);
    // Its centre and half edges in the reference face's frame, and from them its corners: three
    // vectors taken to the frame instead of four corners.
    let to_local = |d: &Vector3| Vector3::new(d.dot(&u), d.dot(&v), d.dot(&n));
    let center = to_local(
        &(incident.center + incident_axes.column(m) * (m_sign * incident.half_extents[m])
            - face_center),
    );
    let e1 = to_local(&(incident_axes.column(m1) * incident.half_extents[m1]));
    let e2 = to_local(&(incident_axes.column(m2) * incident.half_extents[m2]));
    let corners = [
        center + e1 + e2,
        center - e1 + e2,
        center - e1 - e2,
        center + e1 - e2,
    ];
    let mut polygon = Polygon::EMPTY;
    polygon.len = 4;
    for (index, (vertex, local)) in polygon.vertices.iter_mut().zip(corners).enumerate() {
        *vertex = ClipVertex {
            local,
            in_label: ((index + 3) % 4) as u8,
            out_label: index as u8,
        };
    }

    // Clip against the side planes x <= hu, -x <= hu, y <= hv, -y <= hv, from one buffer into
    // the other and back.
    let mut scratch = Polygon::EMPTY;
    let (mut polygon, mut scratch) = (&mut polygon, &mut scratch);
    for (plane, (coordinate, side)) in [(0, 1.0), (0, -1.0), (1, 1.0), (1, -1.0)]
        .into_iter()
        .enumerate()
    {
        if clip(
            polygon,
            coordinate,
            side,
            limits[coordinate],
            4 + plane as u8,
            scratch,
        ) {
            std::mem::swap(&mut polygon, &mut scratch);
            if polygon.len == 0 {
                break;
            }
        }
    }

    let scale = reference.half_extents.max() + incident.half_extents.max();
    let tolerance = 1e-6 * scale;
    let mut kept = Polygon::EMPTY;
    for &c in polygon.vertices() {
        kept.push_if(c, c.local.z <= margin + tolerance);
    }
    if kept.len == 0 {
        if let Some(lowest) = polygon
            .vertices()
            .iter()
            .min_by(|p, q| p.local.z.total_cmp(&q.local.z))
        {
            // Rounding at a touching contact can leave every point a hair above the face:
            // keep the lowest.
            kept.push(*lowest);
        } else {
            // Clipping left nothing: the incident box's deepest corner, held to the face.
            let deepest = corners
                .into_iter()
                .min_by(|p, q| p.z.total_cmp(&q.z))
                .unwrap_or_default();
            let [hu, hv] = limits;
            kept.push(ClipVertex {
                local: Vector3::new(
                    deepest.x.clamp(-hu, hu),
                    deepest.y.clamp(-hv, hv),
                    deepest.z,
                ),
                in_label: FeatureId::CLIPPED_AWAY,
                out_label: FeatureId::CLIPPED_AWAY,
            });
        }
    }
    let kept = kept.vertices();
    let mut points = ArrayVec::new();
    for &index in &reduce_to_four(kept) {
        let c = &kept[index as usize];
        points.push(ContactPoint {
            position: face_center + u * c.local.x + v * c.local.y + n * (0.5 * c.local.z),
            depth: (-c.local.z).max(-margin),
            id: FeatureId::box_face(
                reference_is_b,
                reference_face,
                incident_face,
                (c.in_label, c.out_label),
            ),
        });
    }
    points
}

/// One Sutherland-Hodgman pass: `out` becomes the part of the convex `polygon` where
/// `side * local[coordinate] <= limit`; new vertices take the plane's `label`. Returns false,
/// leaving `out` as it was, when the whole polygon is inside (the pass would copy it).
#[inline]
fn clip(
    polygon: &Polygon,
    coordinate: usize,
    side: Real,
    limit: Real,
    label: u8,
    out: &mut Polygon,
) -> bool {
    // How far each vertex lies beyond the plane (inside when <= 0), and whether any is not
    // inside (a NaN counts as outside, as the pass below treats it).
    let mut beyond = [0.0; CAPACITY];
    let mut outside = false;
    for (f, c) in beyond.iter_mut().zip(polygon.vertices()) {
        *f = side * c.local[coordinate] - limit;
        outside |= *f > 0.0 || f.is_nan();
    }
    if !outside {
        return false;
    }
    out.len = 0;
    let len = polygon.len;
    for i in 0..len {
        // Each vertex with the one after it (the last with the first): the vertex if inside,
        // then where the edge crosses the plane if it does (worked out in any case, kept only
        // then).
        let next = if i + 1 == len { 0 } else { i + 1 };
        let (current, f_current, f_next) = (polygon.vertices[i], beyond[i], beyond[next]);
        let inside = f_current <= 0.0;
        out.push_if(current, inside);
        let s = f_current / (f_current - f_next);
        let local = current.local + (polygon.vertices[next].local - current.local) * s;
        let (in_label, out_label) = if inside {
            (current.out_label, label)
        } else {
            (label, current.out_label)
        };
        let vertex = ClipVertex {
            local,
            in_label,
            out_label,
        };
        out.push_if(vertex, inside != (f_next <= 0.0));
    }
    true
}

/// The indices of at most 4 of the points (all of them when there are at most 4), chosen to
/// keep the manifold stable and wide: the deepest, the one farthest from it, the one making the
/// largest triangle with those, then the one that adds the most area outside that triangle.
fn reduce_to_four(points: &[ClipVertex]) -> ArrayVec<u8, 4> {
    let mut out = ArrayVec::new();
    if points.len() <= 4 {
        for index in 0..points.len() {
            out.push(index as u8);
        }
        return out;
    }
    let flat = |c: &ClipVertex| Vector3::new(c.local.x, c.local.y, 0.0);
    let area = |a: &ClipVertex, b: &ClipVertex, c: &ClipVertex| {
        let (a, b, c) = (flat(a), flat(b), flat(c));
        let (ab, ac) = (b - a, c - a);
        ab.x * ac.y - ab.y * ac.x
    };
    let argmax = |score: &dyn Fn(&ClipVertex) -> Real| {
        (0..points.len())
            .max_by(|&p, &q| score(&points[p]).total_cmp(&score(&points[q])))
            .unwrap_or(0)
    };
    let i0 = argmax(&|c| -c.local.z);
    let p0 = points[i0];
    let i1 = argmax(&|c| (flat(c) - flat(&p0)).norm_squared());
    let p1 = points[i1];
    let i2 = argmax(&|c| area(&p0, &p1, c).abs());
    let p2 = points[i2];
    let s = if area(&p0, &p1, &p2) < 0.0 { -1.0 } else { 1.0 };
    let gain = |c: &ClipVertex| {
        (-s * area(&p0, &p1, c))
            .max(-s * area(&p1, &p2, c))
            .max(-s * area(&p2, &p0, c))
    };
    let i3 = argmax(&gain);
    out.push(i0 as u8);
    out.push(i1 as u8);
    out.push(i2 as u8);
    if gain(&points[i3]) > 0.0 {
        out.push(i3 as u8);
    }
    out
}

/// The single point of an edge-edge contact on axis `A_i x B_j`.
fn edge_point(
    pair: &Pair<'_>,
    i: usize,
    j: usize,
    normal: &Vector3,
    depth: Real,
) -> ArrayVec<ContactPoint, 4> {
    // A's supporting edge is parallel to A_i, on the side of A facing B; B's the reverse.
    let (mut on_a, mut edge_a) = (pair.a.center, 0u32);
    for k in (0..3).filter(|&k| k != i) {
        let positive = pair.ma.column(k).dot(normal) >= 0.0;
        let s = if positive { 1.0 } else { -1.0 };
        on_a += pair.ma.column(k) * (s * pair.a.half_extents[k]);
        edge_a = edge_a * 2 + u32::from(positive);
    }
    let (mut on_b, mut edge_b) = (pair.b.center, 0u32);
    for k in (0..3).filter(|&k| k != j) {
        let positive = pair.mb.column(k).dot(normal) < 0.0;
        let s = if positive { 1.0 } else { -1.0 };
        on_b += pair.mb.column(k) * (s * pair.b.half_extents[k]);
        edge_b = edge_b * 2 + u32::from(positive);
    }
    let da = pair.ma.column(i) * pair.a.half_extents[i];
    let db = pair.mb.column(j) * pair.b.half_extents[j];
    let (ca, cb) =
        closest_points_on_segments(&(on_a - da), &(on_a + da), &(on_b - db), &(on_b + db));
    let id = FeatureId::box_edge(i as u32 * 4 + edge_a, j as u32 * 4 + edge_b);
    Contact::single(*normal, depth, geom::na::center(&ca, &cb), id).points
}
