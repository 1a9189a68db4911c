//! Collider shapes in their local frame, and the world-space volume of a posed shape.

use crate::{Aabb, GeomError, Isometry3, Obb, Point3, Real, Sphere, Vector3, validate};
use serde::{Deserialize, Serialize};

/// The shape of a collider in its local frame, centred on the local origin.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Shape {
    /// A box: `|p_i| <= half_extents_i` in the local frame.
    Cuboid {
        /// Half the size along each local axis (metres), all positive.
        half_extents: Vector3,
    },
    /// A solid sphere about the local origin.
    Ball {
        /// The radius (metres), positive.
        radius: Real,
    },
}

impl Shape {
    /// A box of the given half extents, checked: finite and positive, the error names the axis.
    pub fn cuboid(half_extents: Vector3) -> Result<Self, GeomError> {
        let half_extents = validate::positive_vector3("half_extents", &half_extents)?;
        Ok(Self::Cuboid { half_extents })
    }

    /// A ball of the given radius, checked: finite and positive.
    pub fn ball(radius: Real) -> Result<Self, GeomError> {
        let radius = validate::positive("radius", radius)?;
        Ok(Self::Ball { radius })
    }

    /// Checks a shape built by hand or read from a file; the error names the bad field.
    pub fn validate(&self) -> Result<Self, GeomError> {
        match *self {
            Self::Cuboid { half_extents } => Self::cuboid(half_extents),
            Self::Ball { radius } => Self::ball(radius),
        }
    }

    /// The shape's bounding box in its own frame.
    #[inline]
    pub fn local_aabb(&self) -> Aabb {
        let half = match *self {
            Self::Cuboid { half_extents } => half_extents,
            Self::Ball { radius } => Vector3::repeat(radius),
        };
        Aabb::from_center_half_extents(Point3::origin(), half)
    }

    /// The radius of the smallest sphere about the local origin that holds the shape.
    #[inline]
    pub fn bounding_radius(&self) -> Real {
        match *self {
            Self::Cuboid { half_extents } => half_extents.norm(),
            Self::Ball { radius } => radius,
        }
    }

    /// The shape placed at `pose` in world space.
    #[inline]
    pub fn world(&self, pose: &Isometry3) -> Volume {
        match *self {
            Self::Cuboid { half_extents } => Volume::Obb(Obb::from_pose(pose, half_extents)),
            Self::Ball { radius } => {
                Volume::Sphere(Sphere::new(pose.translation.vector.into(), radius))
            }
        }
    }

    /// The world-space bounding box of the shape placed at `pose` (tight for both shapes).
    #[inline]
    pub fn aabb(&self, pose: &Isometry3) -> Aabb {
        self.world(pose).aabb()
    }

    /// The volume (cubic metres).
    #[inline]
    pub fn volume(&self) -> Real {
        match *self {
            Self::Cuboid { half_extents } => 8.0 * half_extents.x * half_extents.y * half_extents.z,
            Self::Ball { radius } => 4.0 / 3.0 * std::f32::consts::PI * radius.powi(3),
        }
    }
}

/// A shape placed in world space: what the narrow phase tests.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Volume {
    /// An oriented box.
    Obb(Obb),
    /// A sphere.
    Sphere(Sphere),
}

impl Volume {
    /// The tightest axis-aligned box around the volume.
    #[inline]
    pub fn aabb(&self) -> Aabb {
        match self {
            Self::Obb(obb) => obb.aabb(),
            Self::Sphere(sphere) => sphere.aabb(),
        }
    }

    /// A sphere holding the volume (the first stage of seed 004's staged filter).
    #[inline]
    pub fn bounding_sphere(&self) -> Sphere {
        match self {
            Self::Obb(obb) => obb.bounding_sphere(),
            Self::Sphere(sphere) => *sphere,
        }
    }

    /// Whether `point` lies in the volume (its surface included).
    #[inline]
    pub fn contains_point(&self, point: &Point3) -> bool {
        match self {
            Self::Obb(obb) => obb.contains_point(point),
            Self::Sphere(sphere) => sphere.contains_point(point),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn world_volume_follows_the_pose() {
        let pose = Isometry3::new(Vector3::new(1.0, 2.0, 3.0), Vector3::z() * 0.5);
        let cube = Shape::cuboid(Vector3::new(1.0, 2.0, 0.5)).unwrap();
        let Volume::Obb(obb) = cube.world(&pose) else {
            panic!("a cuboid gives an OBB")
        };
        assert_eq!(obb.center, Point3::new(1.0, 2.0, 3.0));
        assert_eq!(obb.rotation, pose.rotation);
        let ball = Shape::ball(0.5).unwrap();
        assert_eq!(
            ball.aabb(&pose),
            Aabb::from_center_half_extents(Point3::new(1.0, 2.0, 3.0), Vector3::repeat(0.5))
        );
        assert_eq!(
            cube.local_aabb().half_extents(),
            Vector3::new(1.0, 2.0, 0.5)
        );
    }

    #[test]
    fn constructors_name_the_bad_field() {
        let e = Shape::cuboid(Vector3::new(1.0, 1.0, 0.0)).unwrap_err();
        assert!(e.to_string().contains("half_extents.z"), "{e}");
        let e = Shape::ball(Real::NEG_INFINITY).unwrap_err();
        assert!(e.to_string().contains("radius"), "{e}");
        let hand_made = Shape::Ball { radius: -1.0 };
        assert!(hand_made.validate().is_err());
    }
}
