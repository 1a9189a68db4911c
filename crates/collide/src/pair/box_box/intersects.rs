//! The boolean box-box test: the 15 axes unrolled, each with the projections written out
//! without cross products (Ericson 4.4.1, seed 001), returning at the first separating axis.

use geom::{Obb, Real};

/// Added to `|R|` in the boolean test: when two edges are nearly parallel their cross product is
/// nearly zero and rounding could report a separation that is not there (Ericson 4.4.1). The
/// price: boxes closer than about `1e-6` times their size may be reported as touching.
const PARALLEL_EPSILON: Real = 1e-6;

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
