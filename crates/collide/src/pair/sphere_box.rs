//! Sphere-box: the closest point of the box to the sphere's centre (Ericson, Real-Time Collision
//! Detection, 5.1.4 and 5.2.5). World space; the normal points from the sphere toward the box.

use crate::contact::{Contact, FeatureId};
use geom::{Aabb, Obb, Real, Sphere, Vector3};

/// The contact of a sphere and a box, or `None` when apart (touching gives depth 0).
///
/// With the centre outside the box, the normal runs from the centre to the closest point of the
/// box. With the centre inside, the sphere leaves through the nearest face: the normal is that
/// face's inward normal and the depth the radius plus the centre's distance to the face.
pub fn sphere_obb_contact(sphere: &Sphere, obb: &Obb) -> Option<Contact> {
    sphere_obb_contact_within(sphere, obb, 0.0)
}

/// [`sphere_obb_contact`] with a speculative `margin >= 0`: a sphere up to `margin` from the
/// box gets a contact whose depth is minus the gap.
pub fn sphere_obb_contact_within(sphere: &Sphere, obb: &Obb, margin: Real) -> Option<Contact> {
    let local = obb.to_local(&sphere.center).coords;
    let h = obb.half_extents;
    let clamped = local.sup(&-h).inf(&h);
    let d = clamped - local;
    let dist_sq = d.norm_squared();
    let r = sphere.radius;
    let reach = r + margin;
    if dist_sq > reach * reach {
        return None;
    }
    if dist_sq > 0.0 {
        // Outside: the feature touched is the face, edge or vertex the clamp landed on.
        let dist = dist_sq.sqrt();
        let normal = obb.rotation * (d / dist);
        let depth = r - dist;
        let on_box = obb.center + obb.rotation * clamped;
        let position = on_box - normal * (0.5 * depth);
        let id = (0..3).fold(0u32, |acc, i| {
            acc * 3
                + if clamped[i] >= h[i] {
                    2
                } else {
                    u32::from(clamped[i] > -h[i])
                }
        });
        return Some(Contact::single(
            normal,
            depth,
            position,
            FeatureId::sphere_box_region(id),
        ));
    }
    // Inside (or on the surface): the face of least penetration.
    let gaps = h - local.abs();
    let k = gaps.imin();
    let outward = if local[k] < 0.0 { -1.0 } else { 1.0 };
    let mut axis = Vector3::zeros();
    axis[k] = outward;
    let normal = obb.rotation * -axis;
    let depth = r + gaps[k];
    // The sphere's deepest point is r beyond the face; the face point is straight out from the
    // centre. Midway between them.
    let mut on_face = local;
    on_face[k] = outward * h[k];
    let face_point = obb.center + obb.rotation * on_face;
    let position = face_point + normal * (0.5 * depth);
    Some(Contact::single(
        normal,
        depth,
        position,
        FeatureId::sphere_box_inside(k as u32 * 2 + u32::from(outward < 0.0)),
    ))
}

/// [`sphere_obb_contact`] for an axis-aligned box.
pub fn sphere_aabb_contact(sphere: &Sphere, aabb: &Aabb) -> Option<Contact> {
    sphere_obb_contact(sphere, &Obb::from_aabb(aabb))
}

/// Whether a sphere and a box intersect (touching counts): no square root.
pub fn sphere_obb_intersects(sphere: &Sphere, obb: &Obb) -> bool {
    let local = obb.to_local(&sphere.center).coords;
    let clamped = local.sup(&-obb.half_extents).inf(&obb.half_extents);
    (clamped - local).norm_squared() <= sphere.radius * sphere.radius
}

#[cfg(test)]
mod tests {
    use super::*;
    use geom::{Point3, UnitQuaternion};

    fn unit_box() -> Obb {
        Obb::new(
            Point3::origin(),
            UnitQuaternion::identity(),
            Vector3::repeat(1.0),
        )
    }

    #[test]
    fn face_edge_vertex_and_inside() {
        let b = unit_box();
        // Face: sphere above +y.
        let c = sphere_obb_contact(&Sphere::new(Point3::new(0.2, 1.5, 0.0), 1.0), &b).unwrap();
        assert_eq!(c.normal, -Vector3::y());
        assert!((c.depth - 0.5).abs() < 1e-6);
        assert!((c.points[0].position - Point3::new(0.2, 1.25, 0.0)).norm() < 1e-6);
        // Vertex: sphere off the (+1,+1,+1) corner, just touching, then just missing.
        let dir = Vector3::repeat(1.0).normalize();
        let touching = Sphere::new(Point3::from(Vector3::repeat(1.0) + dir * 0.5), 0.5);
        let c = sphere_obb_contact(&touching, &b).unwrap();
        assert!(c.depth.abs() < 1e-6 && (c.normal + dir).norm() < 1e-6);
        let missing = Sphere::new(Point3::from(Vector3::repeat(1.0) + dir * 0.5001), 0.5);
        assert!(sphere_obb_contact(&missing, &b).is_none());
        // Inside, nearest face -x: pushed out through it.
        let c = sphere_obb_contact(&Sphere::new(Point3::new(-0.8, 0.1, 0.0), 0.5), &b).unwrap();
        assert_eq!(c.normal, Vector3::x());
        assert!((c.depth - 0.7).abs() < 1e-6);
    }
}
