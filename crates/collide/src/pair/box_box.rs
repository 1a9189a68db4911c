//! Box-box: the separating axis test, as a boolean and with the minimum translation, and the
//! contact manifold (up to 4 points).
//!
//! Frames: arguments and results are in world space; the tests themselves run in box A's local
//! frame, where `R[i][j] = A_i . B_j` and `t = A^T (c_B - c_A)`. The contact normal points from A
//! toward B.
//!
//! Source: S. Gottschalk, "Collision Queries using Oriented Bounding Boxes", PhD thesis, UNC,
//! 1999; C. Ericson, Real-Time Collision Detection, 2005, 4.4.1 (the 15 axes, the `|R| + epsilon`
//! guard, the projections without explicit cross products, as in seed 001).

use crate::contact::{Contact, ContactPoint, FeatureId};
use arrayvec::ArrayVec;
use geom::{Matrix3, Obb, Point3, Real, Vector3};
use std::fmt;

/// Added to `|R|` in the boolean test: when two edges are nearly parallel their cross product is
/// nearly zero and rounding could report a separation that is not there (Ericson 4.4.1). The
/// price: boxes closer than about `1e-6` times their size may be reported as touching.
const PARALLEL_EPSILON: Real = 1e-6;

/// In the contact test, an edge axis `A_i x B_j` with `|A_i x B_j|^2` below this (edges within
/// about 1e-3 rad of parallel) is skipped: normalising it would amplify rounding, and the face
/// axes already cover parallel edges.
const DEGENERATE_EDGE_SQ: Real = 1e-6;

/// A challenger axis must beat the best separation so far by this fraction of it, plus
/// [`BIAS_ABSOLUTE`] times the boxes' size, to win: faces win near-ties over edges, and A's faces
/// over B's, so that resting contacts keep the same reference face from step to step.
const BIAS_RELATIVE: Real = 1e-3;
/// See [`BIAS_RELATIVE`].
const BIAS_ABSOLUTE: Real = 1e-5;

/// One of the 15 candidate separating axes of two boxes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SatAxis {
    /// The normal of A's faces along its local axis `i` (`A0`, `A1`, `A2`).
    FaceA(u8),
    /// The normal of B's faces along its local axis `j` (`B0`, `B1`, `B2`).
    FaceB(u8),
    /// The cross product `A_i x B_j` of an edge direction of each box.
    Edge(u8, u8),
}

impl fmt::Display for SatAxis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::FaceA(i) => write!(f, "A{i}"),
            Self::FaceB(j) => write!(f, "B{j}"),
            Self::Edge(i, j) => write!(f, "A{i} x B{j}"),
        }
    }
}

/// What the separating axis test found for two boxes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SatResult {
    /// With `separation > 0`: the axis along which the boxes are farthest apart. Otherwise the
    /// axis of least penetration (with the face bias described at [`obb_obb_contact`]).
    pub axis: SatAxis,
    /// That axis as a unit vector in world space, pointing from A toward B.
    pub normal: Vector3,
    /// The gap between the boxes' projections on the axis: positive when separated, minus the
    /// penetration depth when overlapping (0 when touching).
    pub separation: Real,
}

/// Whether two boxes intersect (touching counts): the 15-axis separating axis test in A's frame,
/// returning at the first separating axis. No allocation, no square root.
pub fn obb_obb_intersects(a: &Obb, b: &Obb) -> bool {
    let ma = a.rotation_matrix();
    let mb = b.rotation_matrix();
    // R[i][j] = A_i . B_j: B's axes in A's frame.
    let r = ma.tr_mul(&mb);
    let abs_r = r.abs().add_scalar(PARALLEL_EPSILON);
    let t = ma.tr_mul(&(b.center - a.center));
    let (ha, hb) = (&a.half_extents, &b.half_extents);

    // L = A0, A1, A2
    for i in 0..3 {
        let ra = ha[i];
        let rb = hb[0] * abs_r[(i, 0)] + hb[1] * abs_r[(i, 1)] + hb[2] * abs_r[(i, 2)];
        if t[i].abs() > ra + rb {
            return false;
        }
    }
    // L = B0, B1, B2
    for j in 0..3 {
        let ra = ha[0] * abs_r[(0, j)] + ha[1] * abs_r[(1, j)] + ha[2] * abs_r[(2, j)];
        let rb = hb[j];
        let dist = t[0] * r[(0, j)] + t[1] * r[(1, j)] + t[2] * r[(2, j)];
        if dist.abs() > ra + rb {
            return false;
        }
    }
    // The nine edge axes, T . (A_i x B_j) written without the cross product (seed 001).
    let separated = |ra: Real, rb: Real, dist: Real| dist.abs() > ra + rb;
    // L = A0 x B0
    if separated(
        ha[1] * abs_r[(2, 0)] + ha[2] * abs_r[(1, 0)],
        hb[1] * abs_r[(0, 2)] + hb[2] * abs_r[(0, 1)],
        t[2] * r[(1, 0)] - t[1] * r[(2, 0)],
    ) {
        return false;
    }
    // L = A0 x B1
    if separated(
        ha[1] * abs_r[(2, 1)] + ha[2] * abs_r[(1, 1)],
        hb[0] * abs_r[(0, 2)] + hb[2] * abs_r[(0, 0)],
        t[2] * r[(1, 1)] - t[1] * r[(2, 1)],
    ) {
        return false;
    }
    // L = A0 x B2
    if separated(
        ha[1] * abs_r[(2, 2)] + ha[2] * abs_r[(1, 2)],
        hb[0] * abs_r[(0, 1)] + hb[1] * abs_r[(0, 0)],
        t[2] * r[(1, 2)] - t[1] * r[(2, 2)],
    ) {
        return false;
    }
    // L = A1 x B0
    if separated(
        ha[0] * abs_r[(2, 0)] + ha[2] * abs_r[(0, 0)],
        hb[1] * abs_r[(1, 2)] + hb[2] * abs_r[(1, 1)],
        t[0] * r[(2, 0)] - t[2] * r[(0, 0)],
    ) {
        return false;
    }
    // L = A1 x B1
    if separated(
        ha[0] * abs_r[(2, 1)] + ha[2] * abs_r[(0, 1)],
        hb[0] * abs_r[(1, 2)] + hb[2] * abs_r[(1, 0)],
        t[0] * r[(2, 1)] - t[2] * r[(0, 1)],
    ) {
        return false;
    }
    // L = A1 x B2
    if separated(
        ha[0] * abs_r[(2, 2)] + ha[2] * abs_r[(0, 2)],
        hb[0] * abs_r[(1, 1)] + hb[1] * abs_r[(1, 0)],
        t[0] * r[(2, 2)] - t[2] * r[(0, 2)],
    ) {
        return false;
    }
    // L = A2 x B0
    if separated(
        ha[0] * abs_r[(1, 0)] + ha[1] * abs_r[(0, 0)],
        hb[1] * abs_r[(2, 2)] + hb[2] * abs_r[(2, 1)],
        t[1] * r[(0, 0)] - t[0] * r[(1, 0)],
    ) {
        return false;
    }
    // L = A2 x B1
    if separated(
        ha[0] * abs_r[(1, 1)] + ha[1] * abs_r[(0, 1)],
        hb[0] * abs_r[(2, 2)] + hb[2] * abs_r[(2, 0)],
        t[1] * r[(0, 1)] - t[0] * r[(1, 1)],
    ) {
        return false;
    }
    // L = A2 x B2
    !separated(
        ha[0] * abs_r[(1, 2)] + ha[1] * abs_r[(0, 2)],
        hb[0] * abs_r[(2, 1)] + hb[1] * abs_r[(2, 0)],
        t[1] * r[(0, 2)] - t[0] * r[(1, 2)],
    )
}

/// What the SAT found, axis kind by kind.
struct SatKinds {
    /// The axis [`obb_obb_sat`] reports: the separating one, or the least penetration with the
    /// bias toward faces.
    best: SatResult,
    /// The best of A's faces and of B's faces; `None` when an axis separated early.
    faces: Option<(SatResult, SatResult)>,
    /// The best edge axis, if any was not degenerate.
    edge: Option<SatResult>,
}

impl SatKinds {
    fn separated(axis: SatResult) -> Self {
        Self {
            best: axis,
            faces: None,
            edge: None,
        }
    }
}

/// The two boxes seen from A's frame, shared by the SAT and the manifold.
struct Pair<'a> {
    a: &'a Obb,
    b: &'a Obb,
    /// Columns: the boxes' axes in world space.
    ma: Matrix3,
    mb: Matrix3,
    /// `R[i][j] = A_i . B_j`.
    r: Matrix3,
    /// `c_B - c_A` in A's frame.
    t: Vector3,
}

impl<'a> Pair<'a> {
    fn new(a: &'a Obb, b: &'a Obb) -> Self {
        let ma = a.rotation_matrix();
        let mb = b.rotation_matrix();
        Self {
            a,
            b,
            r: ma.tr_mul(&mb),
            t: ma.tr_mul(&(b.center - a.center)),
            ma,
            mb,
        }
    }

    /// The gap along each of the 15 axes; the chosen axis is the one with the largest, where a
    /// later axis (B's faces after A's, edges after faces) must beat the best by a margin.
    /// With `early_out = Some(margin)`, returns at the first axis whose gap exceeds `margin`.
    fn query(&self, early_out: Option<Real>) -> SatResult {
        self.query_kinds(early_out).best
    }

    /// The contact points on `axis`: the clipped incident face (points up to `margin` above the
    /// reference face) for a face axis, one point for an edge axis.
    fn points_of(&self, axis: &SatResult, margin: Real, slop: Real) -> ArrayVec<ContactPoint, 4> {
        let (a, b, n) = (self.a, self.b, &axis.normal);
        let clip = Clip { margin, slop };
        match axis.axis {
            SatAxis::FaceA(i) => face_points(a, &self.ma, i as usize, n, b, &self.mb, false, clip),
            SatAxis::FaceB(j) => face_points(b, &self.mb, j as usize, &-n, a, &self.ma, true, clip),
            SatAxis::Edge(i, j) => edge_point(self, i as usize, j as usize, n, -axis.separation),
        }
    }

    /// [`Pair::query`], also keeping the best axis of each kind (A's faces, B's faces, edges),
    /// for the solver's manifold, which prefers faces.
    fn query_kinds(&self, early_out: Option<Real>) -> SatKinds {
        let (ha, hb, r, t) = (&self.a.half_extents, &self.b.half_extents, &self.r, &self.t);
        let abs_r = r.abs();
        let margin_abs = BIAS_ABSOLUTE * (ha.max() + hb.max());
        let sign = |x: Real| if x < 0.0 { -1.0 } else { 1.0 };
        let (early_out, margin) = (early_out.is_some(), early_out.unwrap_or(0.0));

        // L = A_i: A's faces. No bias among them.
        let mut best = SatResult {
            axis: SatAxis::FaceA(0),
            normal: Vector3::zeros(),
            separation: Real::NEG_INFINITY,
        };
        for i in 0..3 {
            let rb = hb.dot(&abs_r.row(i).transpose());
            let separation = t[i].abs() - (ha[i] + rb);
            if separation > best.separation {
                best = SatResult {
                    axis: SatAxis::FaceA(i as u8),
                    normal: self.ma.column(i) * sign(t[i]),
                    separation,
                };
            }
            if early_out && separation > margin {
                return SatKinds::separated(best);
            }
        }
        let face_a = best;
        let mut face_b: Option<SatResult> = None;
        let mut edge: Option<SatResult> = None;
        let better = |candidate: &SatResult, kept: &Option<SatResult>| {
            kept.is_none_or(|k| candidate.separation > k.separation)
        };
        let beats = |challenger: Real, best: Real| {
            challenger > best + BIAS_RELATIVE * best.abs() + margin_abs
        };
        // L = B_j: B's faces.
        for j in 0..3 {
            let ra = ha.dot(&abs_r.column(j));
            let dist = t.dot(&r.column(j));
            let separation = dist.abs() - (ra + hb[j]);
            let candidate = SatResult {
                axis: SatAxis::FaceB(j as u8),
                normal: self.mb.column(j) * sign(dist),
                separation,
            };
            if early_out && separation > margin {
                return SatKinds::separated(candidate);
            }
            if beats(separation, best.separation) {
                best = candidate;
            }
            if better(&candidate, &face_b) {
                face_b = Some(candidate);
            }
        }
        // L = A_i x B_j: in A's frame L = e_i x R_j, so L[i1] = -R[i2][j], L[i2] = R[i1][j] with
        // (i, i1, i2) cyclic; likewise for B. Gaps are divided by |L| to be distances.
        for i in 0..3 {
            let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
            for j in 0..3 {
                let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
                let length_sq = r[(i1, j)] * r[(i1, j)] + r[(i2, j)] * r[(i2, j)];
                if length_sq < DEGENERATE_EDGE_SQ {
                    continue;
                }
                let ra = ha[i1] * abs_r[(i2, j)] + ha[i2] * abs_r[(i1, j)];
                let rb = hb[j1] * abs_r[(i, j2)] + hb[j2] * abs_r[(i, j1)];
                let dist = t[i2] * r[(i1, j)] - t[i1] * r[(i2, j)];
                let length = length_sq.sqrt();
                let separation = (dist.abs() - (ra + rb)) / length;
                let axis = SatAxis::Edge(i as u8, j as u8);
                let normal = || {
                    let l = self.ma.column(i).cross(&self.mb.column(j));
                    l / l.norm() * sign(dist)
                };
                if early_out && separation > margin {
                    return SatKinds::separated(SatResult {
                        axis,
                        normal: normal(),
                        separation,
                    });
                }
                let wins = beats(separation, best.separation);
                let best_edge = edge.is_none_or(|e| separation > e.separation);
                if wins || best_edge {
                    let candidate = SatResult {
                        axis,
                        normal: normal(),
                        separation,
                    };
                    if wins {
                        best = candidate;
                    }
                    if best_edge {
                        edge = Some(candidate);
                    }
                }
            }
        }
        SatKinds {
            best,
            faces: Some((face_a, face_b.unwrap_or(face_a))),
            edge,
        }
    }
}

/// The separating axis test over all 15 axes, without early out: which axis separates the boxes
/// (the one with the largest gap), or which gives the minimum translation. For tools and
/// debugging views; [`obb_obb_intersects`] and [`obb_obb_contact`] are faster.
pub fn obb_obb_sat(a: &Obb, b: &Obb) -> SatResult {
    Pair::new(a, b).query(None)
}

/// The contact of two boxes, or `None` when they are apart (touching gives a contact of depth 0).
///
/// Algorithm:
/// 1. SAT over the 15 axes (edge axes normalised, near-parallel ones skipped), keeping the axis
///    of least penetration. Near-ties go to faces over edges and to A's faces over B's: a later
///    axis wins only by 0.1% of the depth (plus 1e-5 of the boxes' size), so the
///    reported depth is within that of the exact minimum.
/// 2. Face axis: the reference face is the face of the owning box along the normal; the incident
///    face is the other box's face most anti-parallel to it. The incident face is clipped against
///    the reference face's four side planes (Sutherland-Hodgman) and the points behind the
///    reference face kept, each placed midway between the two surfaces. More than 4 are reduced
///    to 4: the deepest, the farthest from it, then the two that add the most area.
/// 3. Edge axis: one point, midway between the closest points of the two supporting edges.
pub fn obb_obb_contact(a: &Obb, b: &Obb) -> Option<Contact> {
    let pair = Pair::new(a, b);
    let sat = pair.query(Some(0.0));
    if sat.separation > 0.0 {
        return None;
    }
    Some(Contact {
        normal: sat.normal,
        depth: -sat.separation,
        points: pair.points_of(&sat, 0.0, 0.0),
    })
}

/// The contact manifold a solver wants, with a speculative `margin >= 0` (metres): boxes up to
/// `margin` apart get a contact too, with a negative depth (minus the gap along the normal),
/// and the manifold keeps the clipped points up to `margin` above the reference face, each with
/// its own (possibly negative) depth, so that a solver sees a contact one step before it closes.
///
/// Unlike [`obb_obb_contact`], which reports the exact minimum translation, this one prefers
/// faces, as Box3D does (`convex_manifold.c`): a box resting on another, slightly tilted, has an
/// edge axis (`A0 x B2` of two flat boxes is vertical too) whose penetration can be a hair less
/// than the faces', and a single edge point there lets the upper box sink and tip. So:
/// 1. the face contact of A's best face, or of B's when it is better by a quarter percent of
///    the boxes' size;
/// 2. an edge contact only when the clipped face contact is empty or the edge axis is clearly
///    better: `s_edge > 0.9 s_face + 0.0025 size`, with `s_face` the clipped points' deepest
///    separation.
///
/// A face contact's `depth` is its deepest point's.
pub fn obb_obb_contact_within(a: &Obb, b: &Obb, margin: Real) -> Option<Contact> {
    debug_assert!(margin >= 0.0, "margin {margin}");
    let pair = Pair::new(a, b);
    let kinds = pair.query_kinds(Some(margin));
    let (face_a, face_b) = kinds.faces?;
    if kinds.best.separation > margin {
        return None;
    }
    let size = a.half_extents.max() + b.half_extents.max();
    let tolerance = FACE_TOLERANCE * size;
    let face = if face_b.separation > face_a.separation + tolerance {
        face_b
    } else {
        face_a
    };
    let points = pair.points_of(&face, margin, CLIP_SLOP * size);
    // The face contact's separation: its deepest clipped point.
    let clipped = points
        .iter()
        .map(|p| -p.depth)
        .fold(Real::INFINITY, Real::min);
    if let Some(edge) = kinds.edge
        && (points.is_empty() || edge.separation > 0.9 * clipped + tolerance)
        && edge.separation <= margin
    {
        return Some(Contact {
            normal: edge.normal,
            depth: -edge.separation,
            points: pair.points_of(&edge, margin, 0.0),
        });
    }
    if points.is_empty() {
        return None;
    }
    Some(Contact {
        normal: face.normal,
        depth: -clipped,
        points,
    })
}

/// How much a face must beat another to be preferred, and an edge the faces, as a fraction of
/// the boxes' size (Box3D uses half its linear slop, 2.5 mm, for metre-sized boxes).
const FACE_TOLERANCE: Real = 0.0025;

/// A vertex of the clipped incident face, in the reference face's frame (`x`, `y` along its
/// sides, `z` the height above it), with the labels of its two polygon edges: incident edges
/// are 0..4, reference side planes 4..8.
#[derive(Clone, Copy)]
struct ClipVertex {
    local: Vector3,
    in_label: u8,
    out_label: u8,
}

fn face_feature_id(
    reference_is_b: bool,
    reference_face: u8,
    incident_face: u8,
    v: &ClipVertex,
) -> FeatureId {
    let (lo, hi) = if v.in_label < v.out_label {
        (v.in_label, v.out_label)
    } else {
        (v.out_label, v.in_label)
    };
    FeatureId(
        u32::from(lo)
            | u32::from(hi) << 4
            | u32::from(reference_face) << 8
            | u32::from(incident_face) << 12
            | u32::from(reference_is_b) << 16,
    )
}

/// How a face contact is clipped: points up to `margin` above the reference face are kept, and
/// the side planes are moved `slop` outward.
#[derive(Debug, Clone, Copy)]
struct Clip {
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
const CLIP_SLOP: Real = 0.005;

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
    let (hu, hv) = (
        reference.half_extents[k1] + slop,
        reference.half_extents[k2] + slop,
    );
    let reference_face = (k as u8) * 2 + u8::from(n.dot(&reference_axes.column(k)) < 0.0);

    // The incident face: the other box's face most anti-parallel to n.
    let dots = incident_axes.tr_mul(&n);
    let m = dots.iamax();
    let m_sign = if dots[m] > 0.0 { -1.0 } else { 1.0 };
    let incident_face = (m as u8) * 2 + u8::from(m_sign < 0.0);
    let (m1, m2) = ((m + 1) % 3, (m + 2) % 3);
    let inc_center =
        incident.center + incident_axes.column(m) * (m_sign * incident.half_extents[m]);
    let e1 = incident_axes.column(m1) * incident.half_extents[m1];
    let e2 = incident_axes.column(m2) * incident.half_extents[m2];
    let to_local = |p: Point3| {
        let d = p - face_center;
        Vector3::new(d.dot(&u), d.dot(&v), d.dot(&n))
    };
    let corners = [
        inc_center + e1 + e2,
        inc_center - e1 + e2,
        inc_center - e1 - e2,
        inc_center + e1 - e2,
    ];
    let mut polygon: ArrayVec<ClipVertex, 8> = corners
        .iter()
        .enumerate()
        .map(|(index, p)| ClipVertex {
            local: to_local(*p),
            in_label: ((index + 3) % 4) as u8,
            out_label: index as u8,
        })
        .collect();

    // Clip against the side planes x <= hu, -x <= hu, y <= hv, -y <= hv, from one buffer into
    // the other and back (returning a polygon by value copies it through memcpy every time).
    let mut scratch = ArrayVec::new();
    let (mut polygon, mut scratch) = (&mut polygon, &mut scratch);
    for (plane, (coordinate, side, limit)) in
        [(0, 1.0, hu), (0, -1.0, hu), (1, 1.0, hv), (1, -1.0, hv)]
            .into_iter()
            .enumerate()
    {
        clip(polygon, coordinate, side, limit, 4 + plane as u8, scratch);
        std::mem::swap(&mut polygon, &mut scratch);
        if polygon.is_empty() {
            break;
        }
    }

    let scale = reference.half_extents.max() + incident.half_extents.max();
    let tolerance = 1e-6 * scale;
    let mut kept: ArrayVec<ClipVertex, 8> = polygon
        .iter()
        .filter(|c| c.local.z <= margin + tolerance)
        .copied()
        .collect();
    if kept.is_empty() {
        // Rounding at a touching contact can leave every point a hair above the face: keep the
        // lowest, or the incident box's deepest corner when clipping left nothing.
        if let Some(lowest) = polygon
            .iter()
            .min_by(|p, q| p.local.z.total_cmp(&q.local.z))
        {
            kept.push(*lowest);
        } else {
            let deepest = corners
                .iter()
                .map(|p| to_local(*p))
                .min_by(|p, q| p.z.total_cmp(&q.z))
                .unwrap_or_default();
            kept.push(ClipVertex {
                local: Vector3::new(
                    deepest.x.clamp(-hu, hu),
                    deepest.y.clamp(-hv, hv),
                    deepest.z,
                ),
                in_label: 15,
                out_label: 15,
            });
        }
    }
    let kept = reduce_to_four(&kept);
    kept.iter()
        .map(|c| ContactPoint {
            position: face_center + u * c.local.x + v * c.local.y + n * (0.5 * c.local.z),
            depth: (-c.local.z).max(-margin),
            id: face_feature_id(reference_is_b, reference_face, incident_face, c),
        })
        .collect()
}

/// One Sutherland-Hodgman pass: `out` becomes the part of the convex `polygon` where
/// `side * local[coordinate] <= limit`; new vertices take the plane's `label`.
fn clip(
    polygon: &[ClipVertex],
    coordinate: usize,
    side: Real,
    limit: Real,
    label: u8,
    out: &mut ArrayVec<ClipVertex, 8>,
) {
    out.clear();
    let count = polygon.len();
    for index in 0..count {
        let current = polygon[index];
        let next = polygon[(index + 1) % count];
        let f_current = side * current.local[coordinate] - limit;
        let f_next = side * next.local[coordinate] - limit;
        if f_current <= 0.0 {
            out.push(current);
        }
        if (f_current <= 0.0) != (f_next <= 0.0) {
            let s = f_current / (f_current - f_next);
            let local = current.local + (next.local - current.local) * s;
            let (in_label, out_label) = if f_current <= 0.0 {
                (current.out_label, label)
            } else {
                (label, current.out_label)
            };
            if !out.is_full() {
                out.push(ClipVertex {
                    local,
                    in_label,
                    out_label,
                });
            }
        }
    }
}

/// At most 4 of the points, chosen to keep the manifold stable and wide: the deepest, the one
/// farthest from it, the one making the largest triangle with those, then the one that adds the
/// most area outside that triangle.
fn reduce_to_four(points: &[ClipVertex]) -> ArrayVec<ClipVertex, 4> {
    if points.len() <= 4 {
        return points.iter().copied().collect();
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
    let mut out = ArrayVec::new();
    out.push(p0);
    out.push(p1);
    out.push(p2);
    if gain(&points[i3]) > 0.0 {
        out.push(points[i3]);
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
    let id = FeatureId(1 << 20 | (i as u32 * 4 + edge_a) << 4 | (j as u32 * 4 + edge_b));
    Contact::single(*normal, depth, nalgebra_center(&ca, &cb), id).points
}

fn nalgebra_center(a: &Point3, b: &Point3) -> Point3 {
    Point3::from((a.coords + b.coords) * 0.5)
}

/// The closest points of segments `p1 q1` and `p2 q2` (Ericson, Real-Time Collision Detection,
/// 5.1.9), robust to degenerate and parallel segments.
pub(crate) fn closest_points_on_segments(
    p1: &Point3,
    q1: &Point3,
    p2: &Point3,
    q2: &Point3,
) -> (Point3, Point3) {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let a = d1.norm_squared();
    let e = d2.norm_squared();
    let f = d2.dot(&r);
    let tiny = Real::EPSILON * Real::EPSILON;
    let (s, t) = if a <= tiny && e <= tiny {
        (0.0, 0.0)
    } else if a <= tiny {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = d1.dot(&r);
        if e <= tiny {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = d1.dot(&d2);
            let denom = a * e - b * b;
            let mut s = if denom > 0.0 {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let mut t = (b * s + f) / e;
            if t < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            }
            (s, t)
        }
    };
    (p1 + d1 * s, p2 + d2 * t)
}
