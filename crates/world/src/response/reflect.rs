//! `Response::Reflect`: seed 003's bounce, made general.

use crate::body::{BodyHandle, BodyKind, RigidBody};
use crate::contact::ContactPair;
use geom::Vector3;
use slotmap::SlotMap;

/// `Response::Reflect`: for each contact, in handle order,
/// - if the bodies approach along the normal, an elastic, frictionless exchange along it:
///   `j = -2 v_n / (1/m_a + 1/m_b)`, `v_a -= j n / m_a`, `v_b += j n / m_b`. Against a static or
///   kinematic body (inverse mass 0) this is the reflection `v' = v - 2 (v . n) n` relative to
///   it, which is seed 003's negated x velocity when hitting a wall along x;
/// - then a push apart along the minimum translation, split by inverse mass (seed 004: "pushed
///   apart in proportion").
///
/// Contacts between two dynamic bodies are resolved first, those against static and kinematic
/// bodies last, so that a push between bodies cannot leave one inside a wall.
///
/// Kinetic energy is conserved in exact arithmetic; rounding could add a few ulps, so an
/// exchange that would raise the pair's energy is scaled back until it does not (unless a
/// kinematic body, which may add energy, is involved).
pub(crate) fn reflect(bodies: &mut SlotMap<BodyHandle, RigidBody>, contacts: &[ContactPair]) {
    let both_dynamic = |pair: &ContactPair| {
        let dynamic = |h| bodies.get(h).is_some_and(|b| b.kind == BodyKind::Dynamic);
        dynamic(pair.a) && dynamic(pair.b)
    };
    let (between, against): (Vec<&ContactPair>, Vec<&ContactPair>) =
        contacts.iter().partition(|pair| both_dynamic(pair));
    for pair in between.into_iter().chain(against) {
        let (Some(a), Some(b)) = (bodies.get(pair.a), bodies.get(pair.b)) else {
            continue;
        };
        let (inv_a, inv_b) = (a.inverse_mass(), b.inverse_mass());
        let inv_sum = inv_a + inv_b;
        if inv_sum <= 0.0 {
            continue;
        }
        let velocity = |body: &RigidBody| match body.kind {
            BodyKind::Static => Vector3::zeros(),
            BodyKind::Dynamic | BodyKind::Kinematic => body.linvel,
        };
        let (va, vb) = (velocity(a), velocity(b));
        let kinematic = a.kind == BodyKind::Kinematic || b.kind == BodyKind::Kinematic;
        let (mass_a, mass_b) = (a.mass, b.mass);
        let n = pair.contact.normal;
        let normal_speed = (vb - va).dot(&n);
        let (mut new_va, mut new_vb) = (va, vb);
        if normal_speed < 0.0 {
            let j = -2.0 * normal_speed / inv_sum;
            new_va = va - n * (j * inv_a);
            new_vb = vb + n * (j * inv_b);
            if !kinematic {
                let energy = |v_a: &Vector3, v_b: &Vector3| {
                    let part = |inv: f32, mass: f32, v: &Vector3| {
                        if inv > 0.0 {
                            f64::from(mass) * v.cast::<f64>().norm_squared()
                        } else {
                            0.0
                        }
                    };
                    part(inv_a, mass_a, v_a) + part(inv_b, mass_b, v_b)
                };
                let before = energy(&va, &vb);
                let mut tries = 0;
                while energy(&new_va, &new_vb) > before {
                    let scale = (before / energy(&new_va, &new_vb)).sqrt() as f32;
                    new_va *= scale.min(1.0 - f32::EPSILON);
                    new_vb *= scale.min(1.0 - f32::EPSILON);
                    tries += 1;
                    if tries > 8 {
                        (new_va, new_vb) = (va, vb);
                        break;
                    }
                }
            }
        }
        let push = pair.contact.depth;
        if let Some(a) = bodies.get_mut(pair.a)
            && a.kind == BodyKind::Dynamic
        {
            a.linvel = new_va;
            a.pose.translation.vector -= n * (push * inv_a / inv_sum);
        }
        if let Some(b) = bodies.get_mut(pair.b)
            && b.kind == BodyKind::Dynamic
        {
            b.linvel = new_vb;
            b.pose.translation.vector += n * (push * inv_b / inv_sum);
        }
    }
}
