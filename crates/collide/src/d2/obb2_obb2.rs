//! Two oriented rectangles: the 4-axis separating axis test (seed 000), the projective test
//! (seed 002), and their contact through the polygon test.

use super::{Contact2, polygon_contact};
use geom::d2::{ConvexPolygon, Obb2};
use geom::{Point2, Real, Vector2};

/// The four candidate axes of two rectangles and the gap along each: what a debugging view draws.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Obb2Sat {
    /// `[A0, A1, B0, B1]`: the rectangles' unit axes.
    pub axes: [Vector2; 4],
    /// Along each axis, `|d . L| - (r_A + r_B)` (seed 000): positive means separated there.
    pub gaps: [Real; 4],
}

impl Obb2Sat {
    /// The first axis along which the rectangles are separated. `strict` follows seed 000,
    /// where touching (a gap of 0) already separates.
    pub fn separating_axis(&self, strict: bool) -> Option<usize> {
        self.gaps
            .iter()
            .position(|&g| if strict { g >= 0.0 } else { g > 0.0 })
    }
}

/// The separating axis test of two rectangles on their 4 axes, with every gap (seed 000).
pub fn obb2_sat(a: &Obb2, b: &Obb2) -> Obb2Sat {
    let [a0, a1] = a.axes();
    let [b0, b1] = b.axes();
    let axes = [a0, a1, b0, b1];
    let d = b.center - a.center;
    let gaps = axes.map(|l| d.dot(&l).abs() - (a.projection_radius(&l) + b.projection_radius(&l)));
    Obb2Sat { axes, gaps }
}

/// Whether two rectangles intersect (touching counts): 4 axes, early out.
pub fn obb2_intersects(a: &Obb2, b: &Obb2) -> bool {
    let d = b.center - a.center;
    a.axes()
        .iter()
        .chain(b.axes().iter())
        .all(|l| d.dot(l).abs() <= a.projection_radius(l) + b.projection_radius(l))
}

/// Whether two rectangles intersect, by seed 002's projective test (after Gottschalk): each
/// rectangle's edge axes are scaled by `1 / |edge|^2`, so the other rectangle's corners project
/// into `[origin, origin + 1]` exactly when they fall within that edge's span. Agrees with
/// [`obb2_intersects`] up to rounding.
pub fn obb2_intersects_projective(a: &Obb2, b: &Obb2) -> bool {
    overlaps_one_way(&a.corners(), &b.corners()) && overlaps_one_way(&b.corners(), &a.corners())
}

fn overlaps_one_way(own: &[Point2; 4], other: &[Point2; 4]) -> bool {
    for edge_end in [1, 3] {
        let edge = own[edge_end] - own[0];
        let axis = edge / edge.norm_squared();
        let origin = own[0].coords.dot(&axis);
        let (lo, hi) = other.iter().fold((Real::MAX, Real::MIN), |(lo, hi), p| {
            let t = p.coords.dot(&axis);
            (lo.min(t), hi.max(t))
        });
        if lo > origin + 1.0 || hi < origin {
            return false;
        }
    }
    true
}

/// The contact of two rectangles, through their polygons.
pub fn obb2_contact(a: &Obb2, b: &Obb2) -> Option<Contact2> {
    polygon_contact(&ConvexPolygon::from_obb2(a), &ConvexPolygon::from_obb2(b))
}
