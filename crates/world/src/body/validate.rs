//! The one validator of bodies and their parts: `World::insert`, the setters and snapshot
//! restore all call it, so that a world never holds a value one of them would refuse.

use super::{BodyKind, Collider, Material, RigidBody, Visual, VisualShape};
use crate::error::WorldError;
use crate::limits::{self, components_within, within};
use geom::validate;
use geom::{Isometry3, Real, Shape, Vector3};

/// Checks every field of a body, naming the first bad one under `prefix` (e.g. `bodies[3]`).
pub(crate) fn check_body(prefix: &str, body: &RigidBody) -> Result<(), WorldError> {
    check_pose(&format!("{prefix}.pose"), &body.pose)?;
    check_linvel(&format!("{prefix}.linvel"), &body.linvel)?;
    check_angvel(&format!("{prefix}.angvel"), &body.angvel)?;
    match body.kind {
        BodyKind::Dynamic => {
            validate::positive(&format!("{prefix}.mass"), body.mass)?;
            within(
                &format!("{prefix}.mass"),
                body.mass,
                limits::MIN_MASS,
                limits::MAX_MASS,
                "in [1e-9, 1e12] kg",
            )?;
        }
        BodyKind::Static | BodyKind::Kinematic => {
            if body.mass != 0.0 {
                return Err(WorldError::OutOfRange {
                    field: format!("{prefix}.mass"),
                    value: body.mass,
                    range: "0 (standing for infinite) for static and kinematic bodies",
                });
            }
        }
    }
    check_material(prefix, &body.material)?;
    check_collider(prefix, &body.collider)?;
    check_visual(prefix, &body.visual)?;
    Ok(())
}

/// A pose: finite, a unit rotation, within [`limits::MAX_COORDINATE`] of the origin. Returns
/// it with the rotation renormalised.
pub(crate) fn check_pose(field: &str, pose: &Isometry3) -> Result<Isometry3, WorldError> {
    let pose = validate::isometry(field, pose)?;
    components_within(
        || format!("{field}.translation"),
        &pose.translation.vector,
        limits::MAX_COORDINATE,
        "within 1e18 m of the origin",
    )?;
    Ok(pose)
}

/// A linear velocity: finite, each component within [`limits::MAX_SPEED`].
pub(crate) fn check_linvel(field: &str, linvel: &Vector3) -> Result<(), WorldError> {
    validate::finite_vector3(field, linvel)?;
    components_within(
        || field.to_owned(),
        linvel,
        limits::MAX_SPEED,
        "at most 1e5 m/s",
    )
}

/// An angular velocity: finite, each component within [`limits::MAX_ANGULAR_SPEED`].
pub(crate) fn check_angvel(field: &str, angvel: &Vector3) -> Result<(), WorldError> {
    validate::finite_vector3(field, angvel)?;
    components_within(
        || field.to_owned(),
        angvel,
        limits::MAX_ANGULAR_SPEED,
        "at most 1e5 rad/s",
    )
}

pub(crate) fn check_color(field: &str, color: &[Real; 3]) -> Result<(), WorldError> {
    for (i, c) in color.iter().enumerate() {
        if !(0.0..=1.0).contains(c) {
            return Err(WorldError::OutOfRange {
                field: format!("{field}[{i}]"),
                value: *c,
                range: "[0, 1]",
            });
        }
    }
    Ok(())
}

pub(crate) fn check_material(prefix: &str, material: &Material) -> Result<(), WorldError> {
    if !(0.0..=1.0).contains(&material.restitution) {
        return Err(WorldError::OutOfRange {
            field: format!("{prefix}.restitution"),
            value: material.restitution,
            range: "[0, 1]",
        });
    }
    if !(material.friction >= 0.0 && material.friction.is_finite()) {
        return Err(WorldError::OutOfRange {
            field: format!("{prefix}.friction"),
            value: material.friction,
            range: "[0, infinity)",
        });
    }
    Ok(())
}

pub(crate) fn check_size(field: &str, size: Real) -> Result<(), WorldError> {
    validate::positive(field, size)?;
    within(
        field,
        size,
        limits::MIN_SIZE,
        limits::MAX_SIZE,
        "in [1e-6, 1e6] m",
    )?;
    Ok(())
}

pub(crate) fn check_collider(prefix: &str, collider: &Collider) -> Result<(), WorldError> {
    match collider.shape {
        Shape::Cuboid { half_extents } => {
            for (i, axis) in ["x", "y", "z"].iter().enumerate() {
                check_size(
                    &format!("{prefix}.shape.half_extents.{axis}"),
                    half_extents[i],
                )?;
            }
        }
        Shape::Ball { radius } => check_size(&format!("{prefix}.shape.radius"), radius)?,
    }
    validate::isometry(&format!("{prefix}.collider_offset"), &collider.offset)?;
    components_within(
        || format!("{prefix}.collider_offset.translation"),
        &collider.offset.translation.vector,
        limits::MAX_SIZE,
        "within 1e6 m of the body",
    )?;
    Ok(())
}

pub(crate) fn check_visual(prefix: &str, visual: &Visual) -> Result<(), WorldError> {
    match &visual.shape {
        VisualShape::Cuboid { half_extents } => {
            validate::positive_vector3(&format!("{prefix}.visual.half_extents"), half_extents)?;
        }
        VisualShape::Ball { radius } => {
            validate::positive(&format!("{prefix}.visual.radius"), *radius)?;
        }
        VisualShape::Mesh { vertices } => {
            validate::points3(&format!("{prefix}.visual.vertices"), vertices, 1)?;
            for (i, v) in vertices.iter().enumerate() {
                components_within(
                    || format!("{prefix}.visual.vertices[{i}]"),
                    &v.coords,
                    limits::MAX_SIZE,
                    "within 1e6 m of the body",
                )?;
            }
        }
    }
    check_color(&format!("{prefix}.visual.color"), &visual.color)
}
