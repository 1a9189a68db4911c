//! What a renderer draws for a body.

use geom::{Point3, Real, Shape, Vector3};
use serde::{Deserialize, Serialize};

/// What a renderer draws for a body, in the body's frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum VisualShape {
    /// A box of these half extents, centred on the body.
    Cuboid {
        /// Half extents (metres).
        half_extents: Vector3,
    },
    /// A sphere about the body's origin.
    Ball {
        /// Radius (metres).
        radius: Real,
    },
    /// The body's collider drawn as it is: a triangle mesh's triangles, a heightfield's
    /// cells (what a surface body is drawn as by default).
    Collider,
    /// A mesh's vertex list (seed 003's render object), body frame.
    Mesh {
        /// The vertices.
        vertices: Vec<Point3>,
    },
    /// A capsule along the body's y axis (see [`Shape::Capsule`]).
    Capsule {
        /// Half the inner segment's length (metres).
        half_height: Real,
        /// Radius (metres).
        radius: Real,
    },
}

/// A body's look: a shape and a colour.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Visual {
    /// What to draw, body frame.
    pub shape: VisualShape,
    /// Linear RGB, each in [0, 1].
    pub color: [Real; 3],
}

impl Visual {
    /// The visual matching a collider shape, in grey.
    pub fn of_shape(shape: &Shape) -> Self {
        let shape = match *shape {
            Shape::Cuboid { half_extents } => VisualShape::Cuboid { half_extents },
            Shape::Ball { radius } => VisualShape::Ball { radius },
            Shape::Capsule {
                half_height,
                radius,
            } => VisualShape::Capsule {
                half_height,
                radius,
            },
            Shape::ConvexHull { .. }
            | Shape::Compound { .. }
            | Shape::TriMesh { .. }
            | Shape::HeightField { .. } => VisualShape::Collider,
        };
        Self {
            shape,
            color: [0.7, 0.7, 0.7],
        }
    }
}
