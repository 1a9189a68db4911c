//! Sphere-sphere. World space; the normal points from the first sphere toward the second.

use crate::contact::{Contact, FeatureId};
use geom::{Real, Sphere, Vector3};

/// The contact of two spheres, or `None` when apart (touching gives depth 0). Concentric spheres
/// have no preferred direction: the normal is then +x.
pub fn sphere_sphere_contact(a: &Sphere, b: &Sphere) -> Option<Contact> {
    sphere_sphere_contact_within(a, b, 0.0)
}

/// [`sphere_sphere_contact`] with a speculative `margin >= 0`: spheres up to `margin` apart get
/// a contact whose depth is minus the gap.
pub fn sphere_sphere_contact_within(a: &Sphere, b: &Sphere, margin: Real) -> Option<Contact> {
    let d = b.center - a.center;
    let dist_sq = d.norm_squared();
    let radii = a.radius + b.radius;
    let reach = radii + margin;
    if dist_sq > reach * reach {
        return None;
    }
    let dist = dist_sq.sqrt();
    let normal = if dist > Real::EPSILON * radii {
        d / dist
    } else {
        Vector3::x()
    };
    let depth = radii - dist;
    // Midway between the two surfaces: a's surface point moved back by half the depth.
    let position = a.center + normal * (a.radius - 0.5 * depth);
    Some(Contact::single(normal, depth, position, FeatureId::ROUND))
}

#[cfg(test)]
mod tests {
    use super::*;
    use geom::Point3;

    #[test]
    fn overlapping_touching_and_apart() {
        let a = Sphere::new(Point3::origin(), 1.0);
        let b = Sphere::new(Point3::new(1.5, 0.0, 0.0), 1.0);
        let c = sphere_sphere_contact(&a, &b).unwrap();
        assert_eq!(c.normal, Vector3::x());
        assert_eq!(c.depth, 0.5);
        assert_eq!(c.points[0].position, Point3::new(0.75, 0.0, 0.0));
        let touching = Sphere::new(Point3::new(2.0, 0.0, 0.0), 1.0);
        assert_eq!(sphere_sphere_contact(&a, &touching).unwrap().depth, 0.0);
        let apart = Sphere::new(Point3::new(2.0001, 0.0, 0.0), 1.0);
        assert!(sphere_sphere_contact(&a, &apart).is_none());
        let same = sphere_sphere_contact(&a, &a).unwrap();
        assert_eq!((same.normal, same.depth), (Vector3::x(), 2.0));
    }
}
