//! Two circles.

use super::{Contact2, ContactPoint2};
use crate::contact::FeatureId;
use arrayvec::ArrayVec;
use geom::d2::Circle;
use geom::{Real, Vector2};

/// The contact of two circles; concentric circles get the normal +x.
pub fn circle_circle_contact(a: &Circle, b: &Circle) -> Option<Contact2> {
    let d = b.center - a.center;
    let radii = a.radius + b.radius;
    if d.norm_squared() > radii * radii {
        return None;
    }
    let dist = d.norm();
    let normal = if dist > Real::EPSILON * radii {
        d / dist
    } else {
        Vector2::x()
    };
    let depth = radii - dist;
    let mut points = ArrayVec::new();
    points.push(ContactPoint2 {
        position: a.center + normal * (a.radius - 0.5 * depth),
        depth,
        id: FeatureId::ROUND,
    });
    Some(Contact2 {
        normal,
        depth,
        points,
    })
}
