//! The one validator of joints: insertion, the setters and snapshot restore all call it, so that
//! a world never holds a joint one of them would refuse. Whether its bodies exist and differ is
//! the world's check (`joint/world.rs`), which knows them.

use super::{Axis, Joint, JointKind, Spring};
use crate::body::check_pose;
use crate::error::WorldError;
use crate::limits::{self, Range, components_within, within};
use geom::Real;

/// The largest hinge or twist limit in magnitude (rad): Box3D's `0.99 pi`, so that a limit
/// never sits on the angle's wrap.
pub const MAX_JOINT_ANGLE: Real = 0.99 * std::f32::consts::PI;

/// The stiffest spring or joint softness accepted (Hz).
pub const MAX_JOINT_HERTZ: Real = 1e6;

/// Checks every field of a joint but its bodies, naming the first bad one under `prefix`
/// (e.g. `joints[3]`).
pub(crate) fn check_joint(prefix: &str, joint: &Joint) -> Result<(), WorldError> {
    for (side, frame) in ["a", "b"].iter().zip(&joint.frames) {
        let field = format!("{prefix}.frame_{side}");
        check_pose(&field, frame)?;
        components_within(
            || format!("{field}.translation"),
            &frame.translation.vector,
            Range::AtMost(limits::MAX_SIZE, "m"),
        )?;
    }
    check_kind(&format!("{prefix}.kind"), &joint.kind)?;
    check_spring(&format!("{prefix}.softness"), &joint.softness)?;
    if let Some(force) = joint.break_force {
        non_negative(&format!("{prefix}.break_force"), force, "N")?;
    }
    if let Some(torque) = joint.break_torque {
        non_negative(&format!("{prefix}.break_torque"), torque, "N m")?;
    }
    let i = &joint.impulses;
    let impulse = Range::AtMost(limits::MAX_IMPULSE, "N s");
    for (name, v) in [
        ("linear", &i.linear),
        ("angular", &i.angular),
        ("friction", &i.friction),
    ] {
        components_within(|| format!("{prefix}.impulses.{name}"), v, impulse)?;
    }
    for (name, x) in [
        ("spring", i.spring),
        ("motor", i.motor),
        ("lower", i.lower),
        ("upper", i.upper),
        ("cone", i.cone),
    ] {
        within(&format!("{prefix}.impulses.{name}"), x, impulse)?;
    }
    let force = Range::AtMost(limits::MAX_IMPULSE, "N");
    components_within(|| format!("{prefix}.force"), &joint.force, force)?;
    components_within(|| format!("{prefix}.torque"), &joint.torque, force)
}

/// A kind's settings: limits in order and in range, springs, motors and friction.
pub(crate) fn check_kind(field: &str, kind: &JointKind) -> Result<(), WorldError> {
    match kind {
        JointKind::Spherical {
            cone,
            twist,
            friction,
            spring,
        } => {
            if let Some(spring) = spring {
                check_spring(&format!("{field}.spring"), spring)?;
            }
            if let Some(cone) = cone {
                within(
                    &format!("{field}.cone"),
                    *cone,
                    Range::Between(1e-3, std::f32::consts::PI, "rad"),
                )?;
            }
            if let Some(twist) = twist {
                check_limits(&format!("{field}.twist"), twist, angle_range())?;
            }
            non_negative(&format!("{field}.friction"), *friction, "N m")
        }
        JointKind::Revolute(axis) => check_axis(field, axis, angle_range(), "N m"),
        JointKind::Prismatic(axis) => check_axis(field, axis, length_range(), "N"),
        JointKind::Weld { linear, angular } => {
            if let Some(spring) = linear {
                check_spring(&format!("{field}.linear"), spring)?;
            }
            if let Some(spring) = angular {
                check_spring(&format!("{field}.angular"), spring)?;
            }
            Ok(())
        }
        JointKind::Distance {
            length,
            min,
            max,
            spring,
        } => {
            within(
                &format!("{field}.length"),
                *length,
                Range::Between(limits::MIN_SIZE, limits::MAX_SIZE, "m"),
            )?;
            check_limits(
                &format!("{field}.min"),
                &[*min, *max],
                Range::Between(0.0, limits::MAX_SIZE, "m"),
            )?;
            if let Some(spring) = spring {
                check_spring(&format!("{field}.spring"), spring)?;
            }
            Ok(())
        }
    }
}

fn angle_range() -> Range {
    Range::AtMost(MAX_JOINT_ANGLE, "rad")
}

fn length_range() -> Range {
    Range::AtMost(limits::MAX_SIZE, "m")
}

fn check_axis(
    field: &str,
    axis: &Axis,
    range: Range,
    unit: &'static str,
) -> Result<(), WorldError> {
    if let Some(limits) = &axis.limits {
        check_limits(&format!("{field}.limits"), limits, range)?;
    }
    if let Some(spring) = &axis.spring {
        check_spring(&format!("{field}.spring"), spring)?;
    }
    within(&format!("{field}.target"), axis.target, range)?;
    if let Some(motor) = &axis.motor {
        within(
            &format!("{field}.motor.speed"),
            motor.speed,
            Range::AtMost(limits::MAX_ANGULAR_SPEED, "per second"),
        )?;
        non_negative(&format!("{field}.motor.max_force"), motor.max_force, unit)?;
    }
    non_negative(&format!("{field}.friction"), axis.friction, unit)
}

/// `[lower, upper]`, each in `range`, `lower <= upper`.
fn check_limits(field: &str, limits: &[Real; 2], range: Range) -> Result<(), WorldError> {
    within(&format!("{field}[0]"), limits[0], range)?;
    within(&format!("{field}[1]"), limits[1], range)?;
    if limits[0] > limits[1] {
        return Err(WorldError::LimitsOutOfOrder {
            field: field.to_owned(),
            lower: limits[0],
            upper: limits[1],
        });
    }
    Ok(())
}

pub(crate) fn check_spring(field: &str, spring: &Spring) -> Result<(), WorldError> {
    within(
        &format!("{field}.hertz"),
        spring.hertz,
        Range::Between(0.0, MAX_JOINT_HERTZ, "Hz"),
    )?;
    within(
        &format!("{field}.damping_ratio"),
        spring.damping_ratio,
        Range::Between(0.0, 1e6, ""),
    )?;
    Ok(())
}

fn non_negative(field: &str, value: Real, unit: &'static str) -> Result<(), WorldError> {
    within(field, value, Range::Between(0.0, limits::MAX_IMPULSE, unit))?;
    Ok(())
}
