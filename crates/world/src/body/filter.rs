//! Which bodies collide (Box2D's filter) and which only sense: a body's collider carries a
//! [`CollisionFilter`] and a sensor flag.
//!
//! Two colliders collide when Box2D's rule says so ([`CollisionFilter::collides`]): the same
//! non-zero group always collides (positive) or never (negative); otherwise each one's mask
//! must take the other's category. The broad phase drops a pair that does not collide before
//! any narrow phase, so it makes no contact and no event. A sensor's pairs are found by the
//! narrow phase as any others, but never become constraints: they push nothing, and give
//! [`crate::SensorEvent`]s when they begin and end to overlap. Two sensors never sense each
//! other (Box3D's rule). A collider may also ask for hit events (Box3D's contact hit events):
//! the contacts it begins with an approach speed above its threshold. All of it is state,
//! saved and hashed with the body.

use geom::{Real, Vector3};
use serde::{Deserialize, Serialize};

/// Collision categories, masks and a group (Box2D's `b2Filter`). The default collides with
/// everything: category 1, every mask bit, group 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CollisionFilter {
    /// The categories this collider is in (usually one bit).
    pub category: u64,
    /// The categories it collides with.
    pub mask: u64,
    /// Colliders of the same positive group always collide, of the same negative group never
    /// (whatever their categories and masks); 0 is no group.
    pub group: i32,
}

impl Default for CollisionFilter {
    fn default() -> Self {
        Self {
            category: 1,
            mask: u64::MAX,
            group: 0,
        }
    }
}

impl CollisionFilter {
    /// Box2D's rule (`b2ShouldShapesCollide`): the same non-zero group decides by its sign;
    /// otherwise both masks must take the other's category.
    #[inline]
    pub fn collides(&self, other: &Self) -> bool {
        if self.group == other.group && self.group != 0 {
            return self.group > 0;
        }
        (self.mask & other.category) != 0 && (self.category & other.mask) != 0
    }
}

/// What a body's collider saves besides its shape and offset: its filter, whether it is a
/// sensor, and whether it reports hits (saved beside the bodies in snapshots, so that format 8
/// bodies still read).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ColliderFlags {
    /// Which colliders it collides with.
    pub filter: CollisionFilter,
    /// Whether it only senses (see the module documentation).
    pub sensor: bool,
    /// Opt-in hit events: a contact of this collider that begins with its bodies approaching
    /// faster than this (m/s) gives a [`crate::HitEvent`]; `None` (the default) gives none.
    /// A pair whose colliders both ask takes the lower speed.
    pub hit_speed: Option<Real>,
    /// This surface's rolling resistance (see `SolverConfig::rolling_resistance`); `None` (the
    /// default) takes the world's. A pair takes the larger of its two (Box3D's rule).
    pub rolling_resistance: Option<Real>,
    /// The surface's own speed along itself, in the body's frame (m/s): a conveyor belt. A
    /// pair's friction drives the other body toward it (Box3D's tangent velocity); the
    /// component along the contact normal is ignored. Default zero.
    pub tangent_velocity: Vector3,
}

impl Default for ColliderFlags {
    fn default() -> Self {
        Self {
            filter: CollisionFilter::default(),
            sensor: false,
            hit_speed: None,
            rolling_resistance: None,
            tangent_velocity: Vector3::zeros(),
        }
    }
}
