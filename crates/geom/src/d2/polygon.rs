use super::{Aabb2, Obb2, perp_dot};
use crate::hull2::{convex_hull, orient};
use crate::{GeomError, Point2, Real, Vector2, validate};
use serde::{Deserialize, Serialize};

/// A strictly convex polygon, world space: at least 3 vertices, counter-clockwise, every turn
/// strictly to the left, winding once. Edge `i` runs from vertex `i` to vertex `i + 1`; its unit
/// outward normal is `normals()[i]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Vec<Point2>", into = "Vec<Point2>")]
pub struct ConvexPolygon {
    vertices: Vec<Point2>,
    normals: Vec<Vector2>,
}

impl ConvexPolygon {
    /// A polygon from its vertices in counter-clockwise order, checked: at least 3, finite,
    /// strictly convex (no repeated or collinear vertex) and winding once. The error names the
    /// first vertex where that fails.
    pub fn try_new(vertices: Vec<Point2>) -> Result<Self, GeomError> {
        validate::points2("vertices", &vertices, 3)?;
        let n = vertices.len();
        let mut turning = 0.0f64;
        for i in 0..n {
            let (a, b, c) = (
                vertices[(i + n - 1) % n].cast::<f64>(),
                vertices[i].cast::<f64>(),
                vertices[(i + 1) % n].cast::<f64>(),
            );
            if orient(&a, &b, &c) <= 0.0 {
                return Err(GeomError::NotConvex {
                    field: "vertices".into(),
                    index: i,
                });
            }
            let (u, v) = (b - a, c - b);
            turning += (u.x * v.y - u.y * v.x).atan2(u.dot(&v));
        }
        // Left turns only, but a star (a pentagram) winds twice: its turning adds up to 4 pi.
        if (turning - std::f64::consts::TAU).abs() > 1e-3 {
            return Err(GeomError::NotConvex {
                field: "vertices".into(),
                index: 0,
            });
        }
        Ok(Self::from_ccw_unchecked(vertices))
    }

    /// The convex hull of the points (any order; interior, repeated and collinear points are
    /// dropped). The error names a non-finite point, too few points, or points that span no area.
    pub fn from_points(points: &[Point2]) -> Result<Self, GeomError> {
        validate::points2("points", points, 3)?;
        let cloud: Vec<_> = points.iter().map(|p| p.cast::<f64>()).collect();
        let hull = convex_hull(&cloud);
        if hull.len() < 3 {
            return Err(GeomError::Degenerate {
                field: "points".into(),
                why: "all equal or collinear, so they bound no area",
            });
        }
        Ok(Self::from_ccw_unchecked(
            hull.into_iter().map(|i| points[i]).collect(),
        ))
    }

    /// The rectangle as a polygon.
    pub fn from_obb2(obb: &Obb2) -> Self {
        Self::from_ccw_unchecked(obb.corners().to_vec())
    }

    fn from_ccw_unchecked(vertices: Vec<Point2>) -> Self {
        let n = vertices.len();
        let normals = (0..n)
            .map(|i| {
                let edge = vertices[(i + 1) % n] - vertices[i];
                Vector2::new(edge.y, -edge.x).normalize()
            })
            .collect();
        Self { vertices, normals }
    }

    /// The vertices, counter-clockwise.
    #[inline]
    pub fn vertices(&self) -> &[Point2] {
        &self.vertices
    }

    /// The unit outward normal of each edge (edge `i` from vertex `i` to `i + 1`).
    #[inline]
    pub fn normals(&self) -> &[Vector2] {
        &self.normals
    }

    /// The interval `[min, max]` of the vertices projected onto `axis`.
    #[inline]
    pub fn project(&self, axis: &Vector2) -> (Real, Real) {
        self.vertices
            .iter()
            .fold((Real::MAX, Real::MIN), |(lo, hi), v| {
                let d = v.coords.dot(axis);
                (lo.min(d), hi.max(d))
            })
    }

    /// Whether `point` lies in the polygon (its edges included).
    pub fn contains_point(&self, point: &Point2) -> bool {
        let n = self.vertices.len();
        (0..n).all(|i| {
            let a = self.vertices[i];
            let b = self.vertices[(i + 1) % n];
            perp_dot(&(b - a), &(point - a)) >= 0.0
        })
    }

    /// The bounding rectangle.
    pub fn aabb(&self) -> Aabb2 {
        let first = Aabb2::new(self.vertices[0], self.vertices[0]);
        self.vertices[1..]
            .iter()
            .fold(first, |acc, p| Aabb2::new(acc.mins.inf(p), acc.maxs.sup(p)))
    }

    /// The signed area (positive: counter-clockwise).
    pub fn area(&self) -> Real {
        let n = self.vertices.len();
        0.5 * (0..n)
            .map(|i| perp_dot(&self.vertices[i].coords, &self.vertices[(i + 1) % n].coords))
            .sum::<Real>()
    }
}

impl TryFrom<Vec<Point2>> for ConvexPolygon {
    type Error = GeomError;
    fn try_from(vertices: Vec<Point2>) -> Result<Self, GeomError> {
        Self::try_new(vertices)
    }
}

impl From<ConvexPolygon> for Vec<Point2> {
    fn from(polygon: ConvexPolygon) -> Self {
        polygon.vertices
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square() -> Vec<Point2> {
        vec![
            Point2::new(0.0, 0.0),
            Point2::new(1.0, 0.0),
            Point2::new(1.0, 1.0),
            Point2::new(0.0, 1.0),
        ]
    }

    #[test]
    fn accepts_a_square_and_computes_normals() {
        let p = ConvexPolygon::try_new(square()).unwrap();
        assert_eq!(p.normals()[0], Vector2::new(0.0, -1.0));
        assert_eq!(p.normals()[1], Vector2::new(1.0, 0.0));
        assert_eq!(p.area(), 1.0);
        assert!(p.contains_point(&Point2::new(1.0, 0.5)));
        assert!(!p.contains_point(&Point2::new(1.001, 0.5)));
        assert_eq!(p.project(&Vector2::new(1.0, 1.0)), (0.0, 2.0));
    }

    #[test]
    fn rejects_clockwise_collinear_repeated_and_star() {
        let mut cw = square();
        cw.reverse();
        assert!(matches!(
            ConvexPolygon::try_new(cw),
            Err(GeomError::NotConvex { .. })
        ));
        let mut collinear = square();
        collinear.insert(1, Point2::new(0.5, 0.0));
        assert!(matches!(
            ConvexPolygon::try_new(collinear),
            Err(GeomError::NotConvex { index: 1, .. })
        ));
        let mut repeated = square();
        repeated.insert(1, Point2::new(0.0, 0.0));
        assert!(ConvexPolygon::try_new(repeated).is_err());
        // A pentagram: every turn is to the left, but it winds twice.
        let star: Vec<Point2> = (0..5)
            .map(|i| {
                let t = (i * 2) as Real * std::f32::consts::TAU / 5.0;
                Point2::new(t.cos(), t.sin())
            })
            .collect();
        let e = ConvexPolygon::try_new(star).unwrap_err();
        assert!(e.to_string().contains("not strictly convex"), "{e}");
        let e = ConvexPolygon::try_new(square()[..2].to_vec()).unwrap_err();
        assert!(e.to_string().contains("vertices"), "{e}");
        let mut nan = square();
        nan[2].y = Real::NAN;
        let e = ConvexPolygon::try_new(nan).unwrap_err();
        assert!(e.to_string().contains("vertices[2].y"), "{e}");
    }

    #[test]
    fn hull_of_points() {
        let mut pts = square();
        pts.push(Point2::new(0.5, 0.5));
        pts.push(Point2::new(0.5, 0.0));
        pts.reverse();
        let p = ConvexPolygon::from_points(&pts).unwrap();
        assert_eq!(p.vertices().len(), 4);
        assert_eq!(p.area(), 1.0);
        let line = [
            Point2::new(0.0, 0.0),
            Point2::new(1.0, 1.0),
            Point2::new(2.0, 2.0),
        ];
        assert!(matches!(
            ConvexPolygon::from_points(&line),
            Err(GeomError::Degenerate { .. })
        ));
    }

    #[test]
    fn serde_round_trip_validates() {
        let p = ConvexPolygon::try_new(square()).unwrap();
        let json = serde_json::to_string(&p).unwrap();
        let back: ConvexPolygon = serde_json::from_str(&json).unwrap();
        assert_eq!(back, p);
        let bad = "[[0.0,0.0],[1.0,1.0],[2.0,2.0]]";
        assert!(serde_json::from_str::<ConvexPolygon>(bad).is_err());
    }
}
