//! The box-box separating axis query: the gap along each of the 15 axes, the axis of least
//! penetration with a bias toward faces, and the best axis of each kind. Computed in box A's
//! frame, where `R[i][j] = A_i . B_j` and `t = A^T (c_B - c_A)`.

use geom::{Matrix3, Obb, Real, Vector3};
use std::fmt;

/// In the contact test, an edge axis `A_i x B_j` with `|A_i x B_j|^2` below this (edges within
/// about 1e-3 rad of parallel) is skipped: normalising it would amplify rounding, and the face
/// axes already cover parallel edges.
pub(super) const DEGENERATE_EDGE_SQ: Real = 1e-6;

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
    /// axis of least penetration (with the face bias described at [`crate::obb_obb_contact`]).
    pub axis: SatAxis,
    /// That axis as a unit vector in world space, pointing from A toward B.
    pub normal: Vector3,
    /// The gap between the boxes' projections on the axis: positive when separated, minus the
    /// penetration depth when overlapping (0 when touching).
    pub separation: Real,
}

/// What the SAT found, axis kind by kind (their normals computed on demand, [`Pair::result`]).
pub(super) struct SatKinds {
    /// The axis [`obb_obb_sat`] reports: the separating one, or the least penetration with the
    /// bias toward faces.
    pub(super) best: Kept,
    /// The best of A's faces and of B's faces; `None` when an axis separated early.
    pub(super) faces: Option<(Kept, Kept)>,
    /// The best edge axis, if any was not degenerate.
    pub(super) edge: Option<Kept>,
}

impl SatKinds {
    fn separated(axis: Kept) -> Self {
        Self {
            best: axis,
            faces: None,
            edge: None,
        }
    }
}

/// What the solver's manifold ([`crate::obb_obb_contact_within`]) needs of the SAT when no
/// axis separates the boxes by more than its margin ([`Pair::query_within`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct WithinAxes {
    /// The best of A's faces (the largest gap, the first of equals).
    pub(super) face_a: Kept,
    /// The best of B's faces.
    pub(super) face_b: Kept,
    /// The best edge axis, if any was not degenerate.
    pub(super) edge: Option<Kept>,
}

/// The two boxes seen from A's frame, shared by the SAT and the manifold.
pub(super) struct Pair<'a> {
    pub(super) a: &'a Obb,
    pub(super) b: &'a Obb,
    /// Columns: the boxes' axes in world space.
    pub(super) ma: Matrix3,
    pub(super) mb: Matrix3,
}

impl<'a> Pair<'a> {
    pub(super) fn new(a: &'a Obb, b: &'a Obb) -> Self {
        Self {
            a,
            b,
            ma: a.rotation_matrix(),
            mb: b.rotation_matrix(),
        }
    }

    /// The gap along each of the 15 axes; the chosen axis is the one with the largest, where a
    /// later axis (B's faces after A's, edges after faces) must beat the best by a margin.
    /// With `early_out = Some(margin)`, returns at the first axis whose gap exceeds `margin`.
    pub(super) fn query(&self, early_out: Option<Real>) -> SatResult {
        self.result(&self.query_kinds(early_out).best)
    }

    /// [`Pair::query`], also keeping the best axis of each kind (A's faces, B's faces, edges),
    /// for the solver's manifold, which prefers faces. The axes are chosen by their gaps
    /// alone; the caller computes the normals of those it uses ([`Pair::result`]: an edge's
    /// is a cross product normalised).
    pub(super) fn query_kinds(&self, early_out: Option<Real>) -> SatKinds {
        // `R[i][j] = A_i . B_j`, and `t = c_B - c_A` in A's frame.
        let r = &self.ma.tr_mul(&self.mb);
        let t = &self.ma.tr_mul(&(self.b.center - self.a.center));
        let (ha, hb) = (&self.a.half_extents, &self.b.half_extents);
        let abs_r = r.abs();
        let margin_abs = BIAS_ABSOLUTE * (ha.max() + hb.max());
        let (early_out, margin) = (early_out.is_some(), early_out.unwrap_or(0.0));

        // L = A_i: A's faces. No bias among them. Until one has a gap above minus infinity,
        // the best is A0 with a zero normal.
        let mut best = Kept {
            axis: SatAxis::FaceA(0),
            separation: Real::NEG_INFINITY,
            dist: None,
        };
        for i in 0..3 {
            let rb = hb.dot(&abs_r.row(i).transpose());
            let separation = t[i].abs() - (ha[i] + rb);
            if separation > best.separation {
                best = Kept {
                    axis: SatAxis::FaceA(i as u8),
                    separation,
                    dist: Some(t[i]),
                };
            }
            if early_out && separation > margin {
                return SatKinds::separated(best);
            }
        }
        let face_a = best;
        let mut face_b: Option<Kept> = None;
        let mut edge: Option<Kept> = None;
        let better =
            |separation: Real, kept: &Option<Kept>| kept.is_none_or(|k| separation > k.separation);
        let beats = |challenger: Real, best: Real| {
            challenger > best + BIAS_RELATIVE * best.abs() + margin_abs
        };
        // L = B_j: B's faces.
        for j in 0..3 {
            let ra = ha.dot(&abs_r.column(j));
            let dist = t.dot(&r.column(j));
            let separation = dist.abs() - (ra + hb[j]);
            let candidate = Kept {
                axis: SatAxis::FaceB(j as u8),
                separation,
                dist: Some(dist),
            };
            if early_out && separation > margin {
                return SatKinds::separated(candidate);
            }
            if beats(separation, best.separation) {
                best = candidate;
            }
            if better(separation, &face_b) {
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
                let candidate = Kept {
                    axis: SatAxis::Edge(i as u8, j as u8),
                    separation,
                    dist: Some(dist),
                };
                if early_out && separation > margin {
                    return SatKinds::separated(candidate);
                }
                if beats(separation, best.separation) {
                    best = candidate;
                }
                if better(separation, &edge) {
                    edge = Some(candidate);
                }
            }
        }
        SatKinds {
            best,
            faces: Some((face_a, face_b.unwrap_or(face_a))),
            edge,
        }
    }

    /// What the solver's manifold needs of [`Pair::query_kinds`] with early out at `margin`:
    /// `None` when an axis separates the boxes by more than `margin`, else the best axis of
    /// each kind. (The query's overall best is not needed: it comes from axes whose gap is at
    /// most `margin`, since a larger one returns early.)
    pub(super) fn query_within(&self, margin: Real) -> Option<WithinAxes> {
        let kinds = self.query_kinds(Some(margin));
        let (face_a, face_b) = kinds.faces?;
        Some(WithinAxes {
            face_a,
            face_b,
            edge: kinds.edge,
        })
    }

    /// The [`SatResult`] of an axis the query kept: its normal, pointing from A toward B
    /// (the sign of the centres' offset along the axis, `dist`; zero without one).
    pub(super) fn result(&self, kept: &Kept) -> SatResult {
        let sign = |x: Real| if x < 0.0 { -1.0 } else { 1.0 };
        let normal = kept
            .dist
            .map_or_else(Vector3::zeros, |dist| match kept.axis {
                SatAxis::FaceA(i) => self.ma.column(i as usize) * sign(dist),
                SatAxis::FaceB(j) => self.mb.column(j as usize) * sign(dist),
                SatAxis::Edge(i, j) => {
                    let l = self
                        .ma
                        .column(i as usize)
                        .cross(&self.mb.column(j as usize));
                    l / l.norm() * sign(dist)
                }
            });
        SatResult {
            axis: kept.axis,
            normal,
            separation: kept.separation,
        }
    }
}

/// An axis the query keeps while it looks at the others: which, its gap, and the offset of
/// the centres along it (whose sign orients its normal; `None` for the zero normal the query
/// starts from).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Kept {
    axis: SatAxis,
    pub(super) separation: Real,
    dist: Option<Real>,
}

impl Kept {
    pub(super) fn new(axis: SatAxis, separation: Real, dist: Option<Real>) -> Self {
        Self {
            axis,
            separation,
            dist,
        }
    }
}
