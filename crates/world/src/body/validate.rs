//! The one validator of bodies and their parts: `World::insert`, the setters and snapshot
//! restore all call it, so that a world never holds a value one of them would refuse. Each
//! field has one check; the ranges and their wording come from [`crate::limits`].

use super::{BodyKind, Collider, Material, RigidBody, Visual, VisualShape};
use crate::error::WorldError;
use crate::limits::{self, Range, components_within, within};
use geom::validate;
use geom::{Isometry3, Real, Shape, Vector3};

/// Checks every field of a body, naming the first bad one under `prefix` (e.g. `bodies[3]`).
pub(crate) fn check_body(prefix: &str, body: &RigidBody) -> Result<(), WorldError> {
    check_pose(&format!("{prefix}.pose"), &body.pose)?;
    check_linvel(&format!("{prefix}.linvel"), &body.linvel)?;
    check_angvel(&format!("{prefix}.angvel"), &body.angvel)?;
    check_collider(prefix, &body.collider)?;
    check_kind_fits(prefix, body.kind, &body.collider.shape)?;
    check_mass(prefix, body.kind, body.mass)?;
    check_material(prefix, &body.material)?;
    check_visual(prefix, &body.visual)?;
    super::check_control(prefix, body.kind, &body.control)
}

/// A pose: finite, a unit rotation, within [`limits::MAX_COORDINATE`] of the origin. Returns
/// it with the rotation renormalised.
pub(crate) fn check_pose(field: &str, pose: &Isometry3) -> Result<Isometry3, WorldError> {
    let pose = validate::isometry(field, pose)?;
    components_within(
        || format!("{field}.translation"),
        &pose.translation.vector,
        Range::Around(limits::MAX_COORDINATE, "m", "the origin"),
    )?;
    Ok(pose)
}

/// A linear velocity: finite, each component within [`limits::MAX_SPEED`].
pub(crate) fn check_linvel(field: &str, linvel: &Vector3) -> Result<(), WorldError> {
    validate::finite_vector3(field, linvel)?;
    components_within(
        || field.to_owned(),
        linvel,
        Range::AtMost(limits::MAX_SPEED, "m/s"),
    )
}

/// An angular velocity: finite, each component within [`limits::MAX_ANGULAR_SPEED`].
pub(crate) fn check_angvel(field: &str, angvel: &Vector3) -> Result<(), WorldError> {
    validate::finite_vector3(field, angvel)?;
    components_within(
        || field.to_owned(),
        angvel,
        Range::AtMost(limits::MAX_ANGULAR_SPEED, "rad/s"),
    )
}

/// A triangle mesh or heightfield belongs to a static or kinematic body: a surface has no
/// volume, so no mass or inertia to be pushed with.
pub(crate) fn check_kind_fits(
    prefix: &str,
    kind: BodyKind,
    shape: &Shape,
) -> Result<(), WorldError> {
    if shape.is_surface() && kind == BodyKind::Dynamic {
        return Err(WorldError::SurfaceNotFixed {
            field: format!("{prefix}.shape"),
        });
    }
    Ok(())
}

/// A dynamic body's mass is positive and within the limits; a static or kinematic body's is 0.
pub(crate) fn check_mass(prefix: &str, kind: BodyKind, mass: Real) -> Result<(), WorldError> {
    let field = format!("{prefix}.mass");
    match kind {
        BodyKind::Dynamic => {
            validate::positive(&field, mass)?;
            within(
                &field,
                mass,
                Range::Between(limits::MIN_MASS, limits::MAX_MASS, "kg"),
            )?;
        }
        BodyKind::Static | BodyKind::Kinematic => {
            if mass != 0.0 {
                return Err(WorldError::OutOfRange {
                    field,
                    value: mass,
                    range: "0 (standing for infinite) for static and kinematic bodies".into(),
                });
            }
        }
    }
    Ok(())
}

/// Each channel in [0, 1].
pub(crate) fn check_color(field: &str, color: &[Real; 3]) -> Result<(), WorldError> {
    for (i, c) in color.iter().enumerate() {
        within(&format!("{field}[{i}]"), *c, Range::Between(0.0, 1.0, ""))?;
    }
    Ok(())
}

/// Restitution in [0, 1], friction finite and non-negative.
pub(crate) fn check_material(prefix: &str, material: &Material) -> Result<(), WorldError> {
    within(
        &format!("{prefix}.restitution"),
        material.restitution,
        Range::Between(0.0, 1.0, ""),
    )?;
    if !(material.friction >= 0.0 && material.friction.is_finite()) {
        return Err(WorldError::OutOfRange {
            field: format!("{prefix}.friction"),
            value: material.friction,
            range: "finite and at least 0".into(),
        });
    }
    Ok(())
}

/// A half extent or radius: positive, within the limits.
fn check_size(field: &str, size: Real) -> Result<(), WorldError> {
    validate::positive(field, size)?;
    within(
        field,
        size,
        Range::Between(limits::MIN_SIZE, limits::MAX_SIZE, "m"),
    )?;
    Ok(())
}

/// The collider's shape and offset. Returns it with the offset's rotation renormalised.
pub(crate) fn check_collider(prefix: &str, collider: &Collider) -> Result<Collider, WorldError> {
    match &collider.shape {
        &Shape::Cuboid { half_extents } => {
            for (i, axis) in ["x", "y", "z"].iter().enumerate() {
                check_size(
                    &format!("{prefix}.shape.half_extents.{axis}"),
                    half_extents[i],
                )?;
            }
        }
        &Shape::Ball { radius } => check_size(&format!("{prefix}.shape.radius"), radius)?,
        &Shape::Capsule {
            half_height,
            radius,
        } => {
            check_size(&format!("{prefix}.shape.half_height"), half_height)?;
            check_size(&format!("{prefix}.shape.radius"), radius)?;
        }
        Shape::ConvexHull { .. }
        | Shape::Compound { .. }
        | Shape::TriMesh { .. }
        | Shape::HeightField { .. } => {
            // Checked when built; its extent must be within the limits like a box's.
            let local = collider.shape.local_aabb();
            for corner in [local.mins, local.maxs] {
                components_within(
                    || format!("{prefix}.shape"),
                    &corner.coords,
                    Range::Around(limits::MAX_SIZE, "m", "the body"),
                )?;
            }
        }
    }
    let offset = validate::isometry(&format!("{prefix}.collider_offset"), &collider.offset)?;
    components_within(
        || format!("{prefix}.collider_offset.translation"),
        &offset.translation.vector,
        Range::Around(limits::MAX_SIZE, "m", "the body"),
    )?;
    check_hit_speed(&format!("{prefix}.hit_speed"), collider.flags.hit_speed)?;
    check_surface_motion(prefix, &collider.flags)?;
    Ok(Collider {
        shape: collider.shape.clone(),
        offset,
        flags: collider.flags,
        user_data: collider.user_data,
    })
}

/// The visual's shape (positive sizes; mesh vertices finite and near the body) and colour.
pub(crate) fn check_visual(prefix: &str, visual: &Visual) -> Result<(), WorldError> {
    match &visual.shape {
        VisualShape::Cuboid { half_extents } => {
            validate::positive_vector3(&format!("{prefix}.visual.half_extents"), half_extents)?;
        }
        VisualShape::Ball { radius } => {
            validate::positive(&format!("{prefix}.visual.radius"), *radius)?;
        }
        VisualShape::Capsule {
            half_height,
            radius,
        } => {
            validate::positive(&format!("{prefix}.visual.half_height"), *half_height)?;
            validate::positive(&format!("{prefix}.visual.radius"), *radius)?;
        }
        VisualShape::Collider => {}
        VisualShape::Mesh { vertices } => {
            validate::points3(&format!("{prefix}.visual.vertices"), vertices, 1)?;
            for (i, v) in vertices.iter().enumerate() {
                components_within(
                    || format!("{prefix}.visual.vertices[{i}]"),
                    &v.coords,
                    Range::Around(limits::MAX_SIZE, "m", "the body"),
                )?;
            }
        }
    }
    check_color(&format!("{prefix}.visual.color"), &visual.color)
}

/// A collider's hit-event speed: none, or in `[0, MAX_SPEED]` m/s.
pub(crate) fn check_hit_speed(field: &str, speed: Option<Real>) -> Result<(), WorldError> {
    if let Some(speed) = speed {
        within(field, speed, Range::Between(0.0, limits::MAX_SPEED, "m/s"))?;
    }
    Ok(())
}

/// A collider's rolling resistance (none, or in `[0, MAX_ROLLING_RESISTANCE]`) and tangent
/// velocity (each component within the speed limit).
pub(crate) fn check_surface_motion(
    prefix: &str,
    flags: &super::ColliderFlags,
) -> Result<(), WorldError> {
    if let Some(resistance) = flags.rolling_resistance {
        within(
            &format!("{prefix}.rolling_resistance"),
            resistance,
            Range::Between(0.0, limits::MAX_ROLLING_RESISTANCE, ""),
        )?;
    }
    validate::finite_vector3(
        &format!("{prefix}.tangent_velocity"),
        &flags.tangent_velocity,
    )?;
    components_within(
        || format!("{prefix}.tangent_velocity"),
        &flags.tangent_velocity,
        Range::AtMost(limits::MAX_SPEED, "m/s"),
    )
}
