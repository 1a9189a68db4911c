//! Integration for the responses that move bodies by whole steps (`Reflect`, `None`):
//! gravity into velocities before the contacts, velocities into poses after them.

use crate::body::{BodyHandle, BodyKind, RigidBody};
use crate::limits;
use geom::{Real, UnitQuaternion, Vector3};
use slotmap::SlotMap;

/// Adds `gravity * dt` to the velocity of every dynamic body of `live` (the bodies that can
/// move: nothing sleeps with these responses), or for a body with a control state, damps its
/// velocities and adds its scaled gravity, force and torque as the solver does (one substep).
pub(crate) fn velocities(
    bodies: &mut SlotMap<BodyHandle, RigidBody>,
    live: &[BodyHandle],
    gravity: Vector3,
    dt: Real,
) {
    let dv = gravity * dt;
    for &handle in live {
        let body = &mut bodies[handle];
        if body.kind != BodyKind::Dynamic {
            continue;
        }
        if !body.control.acts() {
            body.linvel += dv;
            continue;
        }
        let control = body.control;
        let accelerations = [
            control.force * body.mass_properties.inverse_mass,
            body.world_inverse_inertia() * control.torque,
        ];
        crate::body::accelerate(
            [&mut body.linvel, &mut body.angvel],
            &gravity,
            control.gravity_scale,
            accelerations,
            [control.linear_damping, control.angular_damping],
            dt,
        );
    }
}

/// Moves every non-static body of `live` by its velocities over `dt`. Speeds are held to the
/// world's limits first, so that no state a step produces can overflow in the next.
pub(crate) fn positions(
    bodies: &mut SlotMap<BodyHandle, RigidBody>,
    live: &[BodyHandle],
    dt: Real,
) {
    for &handle in live {
        let body = &mut bodies[handle];
        if body.kind == BodyKind::Static {
            continue;
        }
        let locks = body.control.locks;
        locks.apply(&mut body.linvel, &mut body.angvel);
        body.linvel = limits::clamp_length(body.linvel, limits::MAX_SPEED);
        body.angvel = limits::clamp_length(body.angvel, limits::MAX_ANGULAR_SPEED);
        body.pose.translation.vector += body.linvel * dt;
        if body.angvel != Vector3::zeros() {
            let turn = UnitQuaternion::from_scaled_axis(body.angvel * dt);
            body.pose.rotation =
                UnitQuaternion::new_normalize((turn * body.pose.rotation).into_inner());
        }
    }
}
