//! Checks for user data, shared by every crate that takes it: each returns the value or a
//! [`GeomError`] naming the field and the value. `field` is how the caller names its input, e.g.
//! `"desc.half_extents"`; vector checks append `.x`, `.y`, `.z`.

use crate::{
    GeomError, Isometry3, Point2, Point3, Quaternion, Real, UnitQuaternion, Vector2, Vector3,
};

/// How far a quaternion's norm may stray from 1 and still be accepted (then renormalised).
pub const UNIT_TOLERANCE: Real = 1e-3;

/// Lengths below this are "zero" for directions and quaternions.
pub const ZERO_LENGTH: Real = 1e-12;

// Field names are only formatted on the error path: these checks run on every `set_pose`.

fn check_finite(value: Real, field: impl FnOnce() -> String) -> Result<Real, GeomError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(GeomError::NonFinite {
            field: field(),
            value,
        })
    }
}

fn check_positive(value: Real, field: impl FnOnce() -> String + Clone) -> Result<Real, GeomError> {
    check_finite(value, field.clone())?;
    if value > 0.0 {
        Ok(value)
    } else {
        Err(GeomError::NonPositive {
            field: field(),
            value,
        })
    }
}

/// `value` if finite.
pub fn finite(field: &str, value: Real) -> Result<Real, GeomError> {
    check_finite(value, || field.to_owned())
}

/// `value` if finite and strictly positive (a size: half extent, radius).
pub fn positive(field: &str, value: Real) -> Result<Real, GeomError> {
    check_positive(value, || field.to_owned())
}

const AXES: [&str; 3] = ["x", "y", "z"];

/// `v` if every component is finite.
pub fn finite_vector3(field: &str, v: &Vector3) -> Result<Vector3, GeomError> {
    for (i, name) in AXES.iter().enumerate() {
        check_finite(v[i], || format!("{field}.{name}"))?;
    }
    Ok(*v)
}

/// `p` if every coordinate is finite.
pub fn finite_point3(field: &str, p: &Point3) -> Result<Point3, GeomError> {
    finite_vector3(field, &p.coords).map(Point3::from)
}

/// `v` if every component is finite and strictly positive (half extents).
pub fn positive_vector3(field: &str, v: &Vector3) -> Result<Vector3, GeomError> {
    for (i, name) in AXES.iter().enumerate() {
        check_positive(v[i], || format!("{field}.{name}"))?;
    }
    Ok(*v)
}

/// `v` if every component is finite.
pub fn finite_vector2(field: &str, v: &Vector2) -> Result<Vector2, GeomError> {
    for (i, name) in AXES.iter().take(2).enumerate() {
        check_finite(v[i], || format!("{field}.{name}"))?;
    }
    Ok(*v)
}

/// `p` if every coordinate is finite.
pub fn finite_point2(field: &str, p: &Point2) -> Result<Point2, GeomError> {
    finite_vector2(field, &p.coords).map(Point2::from)
}

/// `v` if every component is finite and strictly positive (half extents).
pub fn positive_vector2(field: &str, v: &Vector2) -> Result<Vector2, GeomError> {
    for (i, name) in AXES.iter().take(2).enumerate() {
        check_positive(v[i], || format!("{field}.{name}"))?;
    }
    Ok(*v)
}

/// `v` if finite and of non-zero length (it is not normalised: the length is kept).
pub fn direction3(field: &str, v: &Vector3) -> Result<Vector3, GeomError> {
    finite_vector3(field, v)?;
    let length = v.norm();
    if length > ZERO_LENGTH && length.is_finite() {
        Ok(*v)
    } else {
        Err(GeomError::ZeroLength {
            field: field.to_owned(),
            length,
        })
    }
}

/// Checks a rotation handed in as `UnitQuaternion` (which may have been built unchecked): finite,
/// norm within [`UNIT_TOLERANCE`] of 1. Returns it renormalised.
pub fn rotation(field: &str, q: &UnitQuaternion) -> Result<UnitQuaternion, GeomError> {
    let q = q.quaternion();
    for (i, name) in ["i", "j", "k", "w"].iter().enumerate() {
        check_finite(q.coords[i], || format!("{field}.{name}"))?;
    }
    let norm = q.norm();
    if norm <= ZERO_LENGTH {
        return Err(GeomError::ZeroLength {
            field: field.to_owned(),
            length: norm,
        });
    }
    if (norm - 1.0).abs() > UNIT_TOLERANCE {
        return Err(GeomError::NotUnit {
            field: field.to_owned(),
            norm,
        });
    }
    Ok(UnitQuaternion::new_normalize(*q))
}

/// Turns any finite, non-zero quaternion into a rotation (normalising it); names `field` when it
/// cannot. Use it where users hand in raw quaternions, e.g. from a file or a UI.
pub fn unit_quaternion(field: &str, q: &Quaternion) -> Result<UnitQuaternion, GeomError> {
    for (i, name) in ["i", "j", "k", "w"].iter().enumerate() {
        check_finite(q.coords[i], || format!("{field}.{name}"))?;
    }
    let norm = q.norm();
    if norm > ZERO_LENGTH && norm.is_finite() {
        Ok(UnitQuaternion::new_normalize(*q))
    } else {
        Err(GeomError::ZeroLength {
            field: field.to_owned(),
            length: norm,
        })
    }
}

/// A rotation of `angle` radians about `axis` (any non-zero length); names the field when the axis
/// is zero or a number is not finite.
pub fn rotation_from_axis_angle(axis: &Vector3, angle: Real) -> Result<UnitQuaternion, GeomError> {
    let axis = direction3("axis", axis)?;
    finite("angle", angle)?;
    Ok(UnitQuaternion::from_axis_angle(
        &nalgebra::Unit::new_normalize(axis),
        angle,
    ))
}

/// Every point finite, and at least `needed` of them; errors name `field[i].x` and so on.
pub fn points3(field: &str, points: &[Point3], needed: usize) -> Result<(), GeomError> {
    finite_points(field, points, needed)
}

/// [`points3`] in 2D.
pub fn points2(field: &str, points: &[Point2], needed: usize) -> Result<(), GeomError> {
    finite_points(field, points, needed)
}

fn finite_points<const D: usize>(
    field: &str,
    points: &[nalgebra::Point<Real, D>],
    needed: usize,
) -> Result<(), GeomError> {
    if points.len() < needed {
        return Err(GeomError::TooFew {
            field: field.to_owned(),
            needed,
            got: points.len(),
        });
    }
    for (i, p) in points.iter().enumerate() {
        for (k, name) in AXES.iter().take(D).enumerate() {
            check_finite(p[k], || format!("{field}[{i}].{name}"))?;
        }
    }
    Ok(())
}

/// A rigid motion if its translation is finite and its rotation a valid unit quaternion
/// (renormalised); errors name `field.translation.x` or `field.rotation`.
pub fn isometry(field: &str, iso: &Isometry3) -> Result<Isometry3, GeomError> {
    let t = &iso.translation.vector;
    for (i, name) in AXES.iter().enumerate() {
        check_finite(t[i], || format!("{field}.translation.{name}"))?;
    }
    let q = iso.rotation.quaternion();
    let unit = q.coords.iter().all(|c| c.is_finite()) && (q.norm() - 1.0).abs() <= UNIT_TOLERANCE;
    let rotation = if unit {
        UnitQuaternion::new_normalize(*q)
    } else {
        rotation(&format!("{field}.rotation"), &iso.rotation)?
    };
    Ok(Isometry3::from_parts((*t).into(), rotation))
}
