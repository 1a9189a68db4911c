//! A body's mass properties, derived once from its kind, mass and collider: what the solver
//! reads. Never saved: a restored body derives them again from the same inputs, bit for bit.

use super::{BodyKind, Collider};
use geom::{Matrix3, Point3, Real, Vector3};

/// Inverse mass, centre of mass and inertia of a body, in the body's frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct BodyMass {
    /// `1 / mass`; 0 for static and kinematic bodies.
    pub(crate) inverse_mass: Real,
    /// The centre of mass in the body's frame (the collider's centre; a dynamic hull's centroid).
    pub(crate) local_center: Point3,
    /// The inertia tensor about the centre of mass, body axes (kg m^2); zero unless dynamic.
    pub(crate) inertia: Matrix3,
    /// Its inverse; zero unless dynamic.
    pub(crate) inverse_inertia: Matrix3,
}

impl Default for BodyMass {
    fn default() -> Self {
        Self {
            inverse_mass: 0.0,
            local_center: Point3::origin(),
            inertia: Matrix3::zeros(),
            inverse_inertia: Matrix3::zeros(),
        }
    }
}

impl BodyMass {
    /// The properties of a body of `kind` and `mass` (kilograms, used only when dynamic) whose
    /// collider is `collider`: a uniform solid filling the collider, so the centre of mass is
    /// the collider's centre (a hull's: its centroid, placed by the offset) and the tensor the
    /// collider shape's, turned by its offset (a hull's by its principal axes too) and scaled
    /// to `mass` (which is how `BodyDesc::mass` scales the inertia).
    ///
    /// The inverse is built from the shape's principal moments (`R diag(1/I_k) R^T`), never by
    /// a general 3x3 inversion, whose determinant underflows for millimetre bodies.
    pub(crate) fn derive(kind: BodyKind, mass: Real, collider: &Collider) -> Self {
        let local_center = Point3::from(collider.offset.translation.vector);
        if kind != BodyKind::Dynamic {
            return Self {
                local_center,
                ..Self::default()
            };
        }
        let unit = collider.shape.mass_properties(1.0);
        let scale = mass / unit.mass;
        if let geom::Shape::ConvexHull { .. } | geom::Shape::Compound { .. } = collider.shape {
            // A hull's or a compound's centre of mass is where it is and its tensor full: its
            // principal frame gives the moments and the axes.
            let (axes, moments) = unit.principal();
            let moments = moments * scale;
            let r = (collider.offset.rotation * axes).to_rotation_matrix();
            let r = r.matrix();
            let turn = |diagonal: Vector3| r * Matrix3::from_diagonal(&diagonal) * r.transpose();
            return Self {
                inverse_mass: 1.0 / mass,
                local_center: collider.offset * unit.center,
                inertia: turn(moments),
                inverse_inertia: turn(moments.map(|m| 1.0 / m)),
            };
        }
        let moments: Vector3 = unit.inertia.diagonal() * scale;
        let r = collider.offset.rotation.to_rotation_matrix();
        let r = r.matrix();
        let turn = |diagonal: Vector3| r * Matrix3::from_diagonal(&diagonal) * r.transpose();
        Self {
            inverse_mass: 1.0 / mass,
            local_center,
            inertia: turn(moments),
            inverse_inertia: turn(moments.map(|m| 1.0 / m)),
        }
    }
}
