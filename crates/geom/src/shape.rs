//! Collider shapes in their local frame, and the world-space volume of a posed shape.

use crate::mesh::Surface;
use crate::{
    Aabb, Capsule, Compound, ConvexHull, GeomError, HeightField, Isometry3, Obb, Part, Point3,
    Real, Sphere, TriMesh, Vector3, validate,
};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The shape of a collider in its local frame. A box, a ball and a capsule are centred on the
/// local origin; a triangle mesh and a heightfield are surfaces (no volume, no mass: for static and
/// kinematic bodies) whose data is shared, so that cloning the shape or placing the same mesh
/// on many bodies copies a pointer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// A triangle mesh ([`TriMesh`]), one-sided.
    TriMesh {
        /// The mesh, checked when it was built.
        #[serde(with = "crate::mesh::shared::mesh")]
        mesh: Arc<TriMesh>,
    },
    /// A heightfield ([`HeightField`]), facing +y.
    HeightField {
        /// The field, checked when it was built.
        #[serde(with = "crate::mesh::shared::heightfield")]
        field: Arc<HeightField>,
    },
    /// A capsule: the points within `radius` of the segment from `(0, -half_height, 0)` to
    /// `(0, half_height, 0)` (along local y, as rapier's and Jolt's).
    Capsule {
        /// Half the inner segment's length (metres), positive.
        half_height: Real,
        /// The radius (metres), positive.
        radius: Real,
    },
    /// A convex polyhedron ([`ConvexHull`]) in its own frame (its centre of mass need not be
    /// at the origin), shared by the bodies that use it; saved as its vertices.
    ConvexHull {
        /// The hull, checked when it was built.
        #[serde(with = "crate::hull::as_vertices")]
        hull: Arc<ConvexHull>,
    },
    /// Several solid shapes as one ([`Compound`]): what a body of several colliders is; its
    /// parts carry their own densities. Saved as its parts.
    Compound {
        /// The compound, checked when it was built.
        #[serde(with = "crate::compound::as_parts")]
        compound: Arc<Compound>,
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

    /// A capsule along local y of the given half height (of its inner segment) and radius,
    /// checked: both finite and positive.
    pub fn capsule(half_height: Real, radius: Real) -> Result<Self, GeomError> {
        let half_height = validate::positive("half_height", half_height)?;
        let radius = validate::positive("radius", radius)?;
        Ok(Self::Capsule {
            half_height,
            radius,
        })
    }

    /// The convex hull of `points` (see [`ConvexHull::new`] for what is checked).
    pub fn convex_hull(points: &[Point3]) -> Result<Self, GeomError> {
        Ok(Self::ConvexHull {
            hull: Arc::new(ConvexHull::new(points)?),
        })
    }

    /// The compound of `parts` (see [`Compound::new`] for what is checked).
    pub fn compound(parts: Vec<Part>) -> Result<Self, GeomError> {
        Ok(Self::Compound {
            compound: Arc::new(Compound::new(parts)?),
        })
    }

    /// A triangle mesh (see [`TriMesh::new`] for what is checked).
    pub fn trimesh(vertices: Vec<Point3>, triangles: Vec<[u32; 3]>) -> Result<Self, GeomError> {
        Ok(Self::TriMesh {
            mesh: Arc::new(TriMesh::new(vertices, triangles)?),
        })
    }

    /// A heightfield (see [`HeightField::new`] for what is checked).
    pub fn heightfield(
        rows: u32,
        columns: u32,
        heights: Vec<Real>,
        scale: Vector3,
    ) -> Result<Self, GeomError> {
        Ok(Self::HeightField {
            field: Arc::new(HeightField::new(rows, columns, heights, scale)?),
        })
    }

    /// Checks a shape built by hand or read from a file; the error names the bad field. A
    /// mesh or heightfield was checked when it was built, and is returned as it is.
    pub fn validate(&self) -> Result<Self, GeomError> {
        match self {
            Self::Cuboid { half_extents } => Self::cuboid(*half_extents),
            Self::Ball { radius } => Self::ball(*radius),
            Self::Capsule {
                half_height,
                radius,
            } => Self::capsule(*half_height, *radius),
            Self::ConvexHull { .. }
            | Self::Compound { .. }
            | Self::TriMesh { .. }
            | Self::HeightField { .. } => Ok(self.clone()),
        }
    }

    /// Whether the shape is a surface (a mesh or a heightfield): no volume, no mass.
    #[inline]
    pub fn is_surface(&self) -> bool {
        matches!(self, Self::TriMesh { .. } | Self::HeightField { .. })
    }

    /// The shape's bounding box in its own frame.
    #[inline]
    pub fn local_aabb(&self) -> Aabb {
        let half = match self {
            Self::Cuboid { half_extents } => *half_extents,
            Self::Ball { radius } => Vector3::repeat(*radius),
            Self::Capsule {
                half_height,
                radius,
            } => Vector3::new(*radius, half_height + radius, *radius),
            Self::ConvexHull { hull } => return hull.local_aabb(),
            Self::Compound { compound } => return compound.local_aabb(),
            Self::TriMesh { mesh } => return mesh.local_aabb(),
            Self::HeightField { field } => return field.local_aabb(),
        };
        Aabb::from_center_half_extents(Point3::origin(), half)
    }

    /// The radius of the smallest sphere about the local origin that holds the shape.
    #[inline]
    pub fn bounding_radius(&self) -> Real {
        match self {
            Self::Cuboid { half_extents } => half_extents.norm(),
            Self::Ball { radius } => *radius,
            Self::Capsule {
                half_height,
                radius,
            } => half_height + radius,
            Self::ConvexHull { hull } => hull.bounding_radius(),
            Self::Compound { .. } | Self::TriMesh { .. } | Self::HeightField { .. } => {
                let b = self.local_aabb();
                b.mins.coords.abs().sup(&b.maxs.coords.abs()).norm()
            }
        }
    }

    /// The shape placed at `pose` in world space.
    #[inline]
    pub fn world(&self, pose: &Isometry3) -> Volume {
        match self {
            Self::Cuboid { half_extents } => Volume::Obb(Obb::from_pose(pose, *half_extents)),
            Self::Ball { radius } => {
                Volume::Sphere(Sphere::new(pose.translation.vector.into(), *radius))
            }
            Self::Capsule {
                half_height,
                radius,
            } => {
                let half = pose.rotation * Vector3::new(0.0, *half_height, 0.0);
                let c = Point3::from(pose.translation.vector);
                Volume::Capsule(Capsule::new(c - half, c + half, *radius))
            }
            Self::ConvexHull { hull } => Volume::Hull(PosedHull {
                hull: Arc::clone(hull),
                pose: *pose,
            }),
            Self::Compound { compound } => Volume::Compound(PosedCompound {
                compound: Arc::clone(compound),
                pose: *pose,
            }),
            Self::TriMesh { mesh } => Volume::TriMesh(PosedSurface::new(mesh, pose)),
            Self::HeightField { field } => Volume::HeightField(PosedSurface::new(field, pose)),
        }
    }

    /// The world-space bounding box of the shape placed at `pose` (tight for a box and a
    /// ball; a surface's local box turned and boxed again).
    #[inline]
    pub fn aabb(&self, pose: &Isometry3) -> Aabb {
        self.world(pose).aabb()
    }

    /// The volume (cubic metres): zero for a surface.
    #[inline]
    pub fn volume(&self) -> Real {
        match self {
            Self::Cuboid { half_extents } => 8.0 * half_extents.x * half_extents.y * half_extents.z,
            Self::Ball { radius } => 4.0 / 3.0 * std::f32::consts::PI * radius.powi(3),
            Self::Capsule {
                half_height,
                radius,
            } => std::f32::consts::PI * radius * radius * (2.0 * half_height + 4.0 / 3.0 * radius),
            Self::ConvexHull { hull } => hull.volume(),
            Self::Compound { compound } => compound.volume(),
            Self::TriMesh { .. } | Self::HeightField { .. } => 0.0,
        }
    }
}

/// A surface (mesh or heightfield) placed in world space: the shared data and its pose (no
/// larger than an [`Obb`], so that a [`Volume`] stays as small as it was without surfaces).
#[derive(Debug, Clone, PartialEq)]
pub struct PosedSurface<S> {
    /// The surface, in its own frame.
    pub surface: Arc<S>,
    /// Where its frame is.
    pub pose: Isometry3,
}

impl<S: Surface> PosedSurface<S> {
    /// `surface` placed at `pose`.
    #[inline]
    pub fn new(surface: &Arc<S>, pose: &Isometry3) -> Self {
        Self {
            surface: Arc::clone(surface),
            pose: *pose,
        }
    }

    /// Its world box: its local box turned and boxed again.
    #[inline]
    pub fn aabb(&self) -> Aabb {
        self.surface.local_aabb().transformed(&self.pose)
    }
}

/// A convex hull placed in world space: the shared hull and its pose.
#[derive(Debug, Clone, PartialEq)]
pub struct PosedHull {
    /// The hull, in its own frame.
    pub hull: Arc<ConvexHull>,
    /// Where its frame is.
    pub pose: Isometry3,
}

impl PosedHull {
    /// Its tightest world box: of its vertices placed.
    #[inline]
    pub fn aabb(&self) -> Aabb {
        let (mut lo, mut hi) = (
            Vector3::repeat(Real::INFINITY),
            Vector3::repeat(Real::NEG_INFINITY),
        );
        // Turned by a matrix (half the operations of the quaternion), shifted once after (the
        // least of shifted values is the shifted least, to the bit: rounding is monotone).
        let turn = self.pose.rotation.to_rotation_matrix();
        for v in self.hull.vertices() {
            let w = turn * v.coords;
            lo = lo.inf(&w);
            hi = hi.sup(&w);
        }
        let shift = self.pose.translation.vector;
        Aabb::new(Point3::from(lo + shift), Point3::from(hi + shift))
    }
}

/// A compound placed in world space: the shared compound and its pose.
#[derive(Debug, Clone, PartialEq)]
pub struct PosedCompound {
    /// The compound, in its own frame.
    pub compound: Arc<Compound>,
    /// Where its frame is.
    pub pose: Isometry3,
}

impl PosedCompound {
    /// Part `i` placed in world space.
    #[inline]
    pub fn part(&self, i: usize) -> Volume {
        let part = &self.compound.parts()[i];
        part.shape.world(&(self.pose * part.offset))
    }

    /// Its world box: its own box turned and boxed again (looser than its parts' placed
    /// boxes merged, but found at once: a drum of 40 parts is boxed every step).
    #[inline]
    pub fn aabb(&self) -> Aabb {
        self.compound.local_aabb().transformed(&self.pose)
    }
}

/// A shape placed in world space: what the narrow phase tests.
#[derive(Debug, Clone, PartialEq)]
pub enum Volume {
    /// An oriented box.
    Obb(Obb),
    /// A sphere.
    Sphere(Sphere),
    /// A triangle mesh.
    TriMesh(PosedSurface<TriMesh>),
    /// A heightfield.
    HeightField(PosedSurface<HeightField>),
    /// A capsule.
    Capsule(Capsule),
    /// A convex hull.
    Hull(PosedHull),
    /// A compound of solid shapes.
    Compound(PosedCompound),
}

impl Volume {
    /// The tightest axis-aligned box around the volume.
    #[inline]
    pub fn aabb(&self) -> Aabb {
        match self {
            Self::Obb(obb) => obb.aabb(),
            Self::Sphere(sphere) => sphere.aabb(),
            Self::TriMesh(posed) => posed.aabb(),
            Self::HeightField(posed) => posed.aabb(),
            Self::Capsule(capsule) => capsule.aabb(),
            Self::Hull(posed) => posed.aabb(),
            Self::Compound(posed) => posed.aabb(),
        }
    }

    /// A sphere holding the volume (the first stage of seed 004's staged filter).
    #[inline]
    pub fn bounding_sphere(&self) -> Sphere {
        match self {
            Self::Obb(obb) => obb.bounding_sphere(),
            Self::Sphere(sphere) => *sphere,
            Self::TriMesh(posed) => posed.aabb().bounding_sphere(),
            Self::HeightField(posed) => posed.aabb().bounding_sphere(),
            Self::Capsule(capsule) => capsule.bounding_sphere(),
            Self::Hull(posed) => posed.aabb().bounding_sphere(),
            Self::Compound(posed) => posed.aabb().bounding_sphere(),
        }
    }

    /// Whether `point` lies in the volume (its surface included); never in a surface, which
    /// has no inside.
    #[inline]
    pub fn contains_point(&self, point: &Point3) -> bool {
        match self {
            Self::Obb(obb) => obb.contains_point(point),
            Self::Sphere(sphere) => sphere.contains_point(point),
            Self::Capsule(capsule) => capsule.contains_point(point),
            Self::Hull(posed) => {
                let local = posed.pose.inverse_transform_point(point);
                posed
                    .hull
                    .faces()
                    .iter()
                    .all(|f| f.normal.dot(&local.coords) <= f.offset)
            }
            Self::Compound(posed) => {
                (0..posed.compound.parts().len()).any(|i| posed.part(i).contains_point(point))
            }
            Self::TriMesh(_) | Self::HeightField(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_surface_volume_is_no_larger_than_a_box() {
        assert!(size_of::<PosedSurface<TriMesh>>() <= size_of::<Obb>());
        assert!(size_of::<Volume>() <= 48, "{}", size_of::<Volume>());
    }

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
