//! The 2D convex hull, shared by `ConvexPolygon::from_points` and the OBB fit.

use nalgebra as na;

type P = na::Point2<f64>;

/// `> 0` when `a, b, c` turn left (counter-clockwise), `< 0` right, `0` collinear.
#[inline]
pub(crate) fn orient(a: &P, b: &P, c: &P) -> f64 {
    (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
}

/// Indices of the convex hull's vertices, counter-clockwise, with no collinear or repeated
/// vertex. Fewer than 3 indices when the points are all equal or collinear (then the two
/// extremes, or one point).
///
/// Algorithm: A. M. Andrew, "Another efficient algorithm for convex hulls in two dimensions",
/// 1979 (the monotone chain), O(n log n).
pub(crate) fn convex_hull(points: &[P]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&i, &j| {
        points[i]
            .x
            .total_cmp(&points[j].x)
            .then(points[i].y.total_cmp(&points[j].y))
    });
    order.dedup_by(|a, b| points[*a] == points[*b]);
    if order.len() < 3 {
        return order;
    }
    let mut hull: Vec<usize> = Vec::with_capacity(order.len() + 1);
    // Lower chain left to right, then upper chain right to left; the last point of each chain is
    // the first of the other, so it is dropped.
    push_chain(points, order.iter().copied(), &mut hull);
    hull.pop();
    push_chain(points, order.iter().rev().copied(), &mut hull);
    hull.pop();
    if hull.len() < 3 {
        // All collinear: the chains collapse to the two extremes.
        return vec![order[0], order[order.len() - 1]];
    }
    hull
}

/// Appends one monotone chain to `hull`, popping any point that does not turn strictly left,
/// so collinear points are dropped.
fn push_chain(points: &[P], indices: impl Iterator<Item = usize>, hull: &mut Vec<usize>) {
    let start = hull.len();
    for i in indices {
        while hull.len() >= start + 2
            && orient(
                &points[hull[hull.len() - 2]],
                &points[hull[hull.len() - 1]],
                &points[i],
            ) <= 0.0
        {
            hull.pop();
        }
        hull.push(i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_with_inner_and_edge_points() {
        let pts = [
            P::new(0.0, 0.0),
            P::new(1.0, 0.0),
            P::new(2.0, 0.0),
            P::new(2.0, 2.0),
            P::new(1.0, 1.0),
            P::new(0.0, 2.0),
            P::new(0.0, 2.0),
        ];
        let hull = convex_hull(&pts);
        assert_eq!(hull, vec![0, 2, 3, 5]);
    }

    #[test]
    fn collinear_and_single() {
        let pts = [P::new(0.0, 0.0), P::new(2.0, 2.0), P::new(1.0, 1.0)];
        assert_eq!(convex_hull(&pts), vec![0, 1]);
        assert_eq!(convex_hull(&[P::new(3.0, 3.0); 4]).len(), 1);
    }
}
