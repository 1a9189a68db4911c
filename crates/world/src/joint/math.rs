//! Angles between two joint frames, shared by the solver and the readings.

use geom::{Real, UnitQuaternion, Vector3};

/// `b`'s rotation relative to `a`'s, `a^-1 b`, in `a`'s frame, its scalar part made
/// non-negative (a turn of at most half a revolution, so that angles lie in `[-pi, pi]`).
#[inline]
pub(crate) fn relative(a: &UnitQuaternion, b: &UnitQuaternion) -> UnitQuaternion {
    let q = a.inverse() * b;
    if q.w < 0.0 {
        UnitQuaternion::new_unchecked(-q.into_inner())
    } else {
        q
    }
}

/// The twist of a relative rotation about its frame's z axis (swing-twist decomposition),
/// in `[-pi, pi]`.
#[inline]
pub(crate) fn twist_angle(q: &UnitQuaternion) -> Real {
    2.0 * q.k.atan2(q.w)
}

/// The angle between two unit axes, in `[0, pi]`, accurate near zero (unlike `acos`).
#[inline]
pub(crate) fn swing_angle(a: &Vector3, b: &Vector3) -> Real {
    a.cross(b).norm().atan2(a.dot(b))
}

/// The rotation vector taking `a` to `b` in world space (the axis of `b a^-1` times its
/// angle, the shorter way round).
#[inline]
pub(crate) fn rotation_error(a: &UnitQuaternion, b: &UnitQuaternion) -> Vector3 {
    let q = b * a.inverse();
    let q = if q.w < 0.0 {
        UnitQuaternion::new_unchecked(-q.into_inner())
    } else {
        q
    };
    q.scaled_axis()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn angles_of_known_turns() {
        let a = UnitQuaternion::from_euler_angles(0.3, -0.2, 1.0);
        let turn = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), 0.7);
        let b = a * turn;
        assert!((twist_angle(&relative(&a, &b)) - 0.7).abs() < 1e-5);
        // Past half a turn the angle wraps to the other side.
        let far = a * UnitQuaternion::from_axis_angle(&Vector3::z_axis(), 3.5);
        let wrapped = 3.5 - std::f32::consts::TAU;
        assert!((twist_angle(&relative(&a, &far)) - wrapped).abs() < 1e-4);
        let tilted = UnitQuaternion::from_axis_angle(&Vector3::x_axis(), 0.4);
        assert!((swing_angle(&Vector3::z(), &(tilted * Vector3::z())) - 0.4).abs() < 1e-6);
        let error = rotation_error(&a, &(tilted * a));
        assert!((error - Vector3::x() * 0.4).norm() < 1e-5);
    }
}
