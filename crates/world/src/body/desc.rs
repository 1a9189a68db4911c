//! Body descriptions: everything needed to create a body, filled with builder methods.

use super::validate::{
    check_angvel, check_collider, check_kind_fits, check_linvel, check_mass, check_material,
    check_pose, check_visual,
};
use super::{
    BodyControl, BodyKind, BodyMass, Collider, ColliderFlags, CollisionFilter, Locks, Material,
    RigidBody, SleepState, Visual, VisualShape,
};
use crate::error::WorldError;
use geom::validate;
use geom::{Aabb, Isometry3, Obb, Part, Point3, Real, Shape, Sphere, UnitQuaternion, Vector3};

/// How [`BodyDesc::from_mesh`] fits a collider to a vertex list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColliderFit {
    /// The axis-aligned box of the vertices (seed 003).
    Aabb,
    /// A tight oriented box ([`geom::Obb::from_points`]).
    Obb,
    /// The minimal bounding sphere ([`geom::Sphere::from_points`]).
    Sphere,
}

/// Everything needed to create a body; fill it with the builder methods, then hand it to
/// [`crate::World::insert`], which checks every field.
///
/// The default is a dynamic unit cube (half extents 0.5) at the origin, at rest, density 1,
/// friction 0.6, restitution 0 (Box2D's material defaults).
#[derive(Debug, Clone, PartialEq)]
pub struct BodyDesc {
    /// Static, dynamic or kinematic.
    pub kind: BodyKind,
    /// The body's frame in world space.
    pub pose: Isometry3,
    /// Linear velocity (metres per second).
    pub linvel: Vector3,
    /// Angular velocity (radians per second).
    pub angvel: Vector3,
    /// The collider's shape.
    pub shape: Shape,
    /// The collider's frame in the body's frame.
    pub collider_offset: Isometry3,
    /// The mass (kilograms) of a dynamic body; `None` to compute it from `density`.
    pub mass: Option<Real>,
    /// Kilograms per cubic metre, used when `mass` is `None`.
    pub density: Real,
    /// Surface properties.
    pub material: Material,
    /// What to draw; `None` draws the collider's shape.
    pub visual: Option<Visual>,
    /// The colour used when `visual` is `None`.
    pub color: [Real; 3],
    /// Colliders added with [`BodyDesc::part`]: when there are any, the body's shape is their
    /// compound (and `shape` is not used).
    pub parts: Vec<Part>,
    /// The collider's filter and sensor flag ([`ColliderFlags`]).
    pub collider_flags: ColliderFlags,
    /// A word for the user on the collider (see `RigidBody::set_collider_user_data`).
    pub collider_user_data: u64,
    /// Damping, gravity scale, locks and user data ([`BodyControl`]; its force, torque and
    /// target are left at rest by `World::insert`: they are given through the body's setters).
    pub control: BodyControl,
}

impl Default for BodyDesc {
    fn default() -> Self {
        Self {
            kind: BodyKind::Dynamic,
            pose: Isometry3::identity(),
            linvel: Vector3::zeros(),
            angvel: Vector3::zeros(),
            shape: Shape::Cuboid {
                half_extents: Vector3::repeat(0.5),
            },
            collider_offset: Isometry3::identity(),
            mass: None,
            density: 1.0,
            material: Material::default(),
            visual: None,
            color: [0.7, 0.7, 0.7],
            parts: Vec::new(),
            control: BodyControl::default(),
            collider_flags: ColliderFlags::default(),
            collider_user_data: 0,
        }
    }
}

impl BodyDesc {
    /// A dynamic body (the default).
    pub fn dynamic() -> Self {
        Self::default()
    }
    /// A static body: never moves.
    pub fn fixed() -> Self {
        Self {
            kind: BodyKind::Static,
            ..Self::default()
        }
    }
    /// A kinematic body: moves by its velocity, never pushed.
    pub fn kinematic() -> Self {
        Self {
            kind: BodyKind::Kinematic,
            ..Self::default()
        }
    }

    /// A body drawn as the mesh of `vertices` (body frame), with a collider fitted to them
    /// (seed 003: the collider comes from the render object's vertices). A flat mesh gets a box
    /// of thickness `1e-4` times its size. The error names an empty list or a non-finite vertex.
    pub fn from_mesh(vertices: &[Point3], fit: ColliderFit) -> Result<Self, WorldError> {
        validate::points3("vertices", vertices, 1)?;
        let (shape, offset) = match fit {
            ColliderFit::Aabb => {
                let aabb = Aabb::try_from_points(vertices)?;
                let half = thickened(aabb.half_extents());
                (
                    Shape::Cuboid { half_extents: half },
                    Isometry3::from_parts(aabb.center().coords.into(), UnitQuaternion::identity()),
                )
            }
            ColliderFit::Obb => {
                let obb = Obb::try_from_points(vertices)?;
                let half = thickened(obb.half_extents);
                (Shape::Cuboid { half_extents: half }, obb.pose())
            }
            ColliderFit::Sphere => {
                let sphere = Sphere::try_from_points(vertices)?;
                let radius = sphere.radius.max(Real::MIN_POSITIVE);
                (
                    Shape::Ball { radius },
                    Isometry3::from_parts(sphere.center.coords.into(), UnitQuaternion::identity()),
                )
            }
        };
        Ok(Self {
            shape,
            collider_offset: offset,
            visual: Some(Visual {
                shape: VisualShape::Mesh {
                    vertices: vertices.to_vec(),
                },
                color: [0.7, 0.7, 0.7],
            }),
            ..Self::default()
        })
    }

    /// Makes it static.
    pub fn into_static(mut self) -> Self {
        self.kind = BodyKind::Static;
        self
    }
    /// Makes it kinematic.
    pub fn into_kinematic(mut self) -> Self {
        self.kind = BodyKind::Kinematic;
        self
    }
    /// Places the body's origin at `position` (metres, world space).
    pub fn position(mut self, position: Vector3) -> Self {
        self.pose.translation.vector = position;
        self
    }
    /// Sets the body's whole pose.
    pub fn pose(mut self, pose: Isometry3) -> Self {
        self.pose = pose;
        self
    }
    /// Sets the body's orientation.
    pub fn rotation(mut self, rotation: UnitQuaternion) -> Self {
        self.pose.rotation = rotation;
        self
    }
    /// Sets the linear velocity (metres per second).
    pub fn linvel(mut self, linvel: Vector3) -> Self {
        self.linvel = linvel;
        self
    }
    /// Sets the angular velocity (radians per second).
    pub fn angvel(mut self, angvel: Vector3) -> Self {
        self.angvel = angvel;
        self
    }
    /// Sets the collider's shape.
    pub fn shape(mut self, shape: Shape) -> Self {
        self.shape = shape;
        self
    }
    /// A box collider of these half extents (metres).
    pub fn cuboid(self, half_extents: Vector3) -> Self {
        self.shape(Shape::Cuboid { half_extents })
    }
    /// A ball collider of this radius (metres).
    pub fn ball(self, radius: Real) -> Self {
        self.shape(Shape::Ball { radius })
    }
    /// A capsule collider along the body's y axis: an inner segment of half length
    /// `half_height` and a radius (metres).
    pub fn capsule(self, half_height: Real, radius: Real) -> Self {
        self.shape(Shape::Capsule {
            half_height,
            radius,
        })
    }
    /// Adds a collider: `shape` (a box, a ball, a capsule or a hull) at `offset` in the body's
    /// frame, of `density` (kg/m^3). A body with parts is their compound ([`Shape::Compound`]):
    /// its mass the parts' (unless [`BodyDesc::mass`] sets it), its centre of mass their
    /// weighted mean. `World::insert` checks them and names the bad one (`parts[2].density`).
    pub fn part(mut self, shape: Shape, offset: Isometry3, density: Real) -> Self {
        self.parts.push(Part {
            shape,
            offset,
            density,
        });
        self
    }
    /// Sets the mass (kilograms) of a dynamic body; its inertia scales to match (a uniform solid
    /// of this mass filling the collider).
    pub fn mass(mut self, mass: Real) -> Self {
        self.mass = Some(mass);
        self
    }
    /// Sets the density (kilograms per cubic metre); the mass is then density times volume.
    pub fn density(mut self, density: Real) -> Self {
        self.density = density;
        self.mass = None;
        self
    }
    /// Sets the restitution, in [0, 1].
    pub fn restitution(mut self, restitution: Real) -> Self {
        self.material.restitution = restitution;
        self
    }
    /// Sets the friction coefficient, `>= 0`.
    pub fn friction(mut self, friction: Real) -> Self {
        self.material.friction = friction;
        self
    }
    /// Sets the linear damping (1/s, in `[0, 1e6]`; see [`BodyControl`]).
    pub fn linear_damping(mut self, damping: Real) -> Self {
        self.control.linear_damping = damping;
        self
    }
    /// Sets the angular damping (1/s, in `[0, 1e6]`).
    pub fn angular_damping(mut self, damping: Real) -> Self {
        self.control.angular_damping = damping;
        self
    }
    /// Sets gravity's factor on the body (0 floats; default 1).
    pub fn gravity_scale(mut self, scale: Real) -> Self {
        self.control.gravity_scale = scale;
        self
    }
    /// Locks axes of motion (world axes; [`Locks::ROTATION`] keeps a character upright).
    pub fn locks(mut self, locks: Locks) -> Self {
        self.control.locks = locks;
        self
    }
    /// Sets which colliders this body's collides with (Box2D's categories, masks and groups).
    pub fn filter(mut self, filter: CollisionFilter) -> Self {
        self.collider_flags.filter = filter;
        self
    }
    /// Makes the collider a sensor: it pushes nothing and reports `SensorEvent`s when bodies
    /// begin and end to overlap it.
    pub fn sensor(mut self) -> Self {
        self.collider_flags.sensor = true;
        self
    }
    /// Asks for hit events: the contacts the collider begins with the bodies approaching faster
    /// than `speed` (m/s) are reported by `World::hit_events`.
    pub fn hit_events(mut self, speed: Real) -> Self {
        self.collider_flags.hit_speed = Some(speed);
        self
    }
    /// Gives the collider its own rolling resistance (instead of the world's).
    pub fn rolling_resistance(mut self, resistance: Real) -> Self {
        self.collider_flags.rolling_resistance = Some(resistance);
        self
    }
    /// Gives the collider's surface a speed of its own along itself, in the body's frame
    /// (m/s): a conveyor belt carries what rests on it.
    pub fn tangent_velocity(mut self, velocity: Vector3) -> Self {
        self.collider_flags.tangent_velocity = velocity;
        self
    }
    /// Stores a word for the user, saved with the body and never read by the engine.
    pub fn user_data(mut self, data: u64) -> Self {
        self.control.user_data = data;
        self
    }
    /// Stores a word for the user on the collider, saved with it and never read by the engine.
    pub fn collider_user_data(mut self, data: u64) -> Self {
        self.collider_user_data = data;
        self
    }
    /// Sets what a renderer draws.
    pub fn visual(mut self, visual: Visual) -> Self {
        self.visual = Some(visual);
        self
    }
    /// Sets the colour (linear RGB in [0, 1]).
    pub fn color(mut self, color: [Real; 3]) -> Self {
        self.color = color;
        if let Some(visual) = &mut self.visual {
            visual.color = color;
        }
        self
    }

    /// Checks every field once and builds the body; the error names the first bad field as
    /// `desc.<field>`. Rotations are renormalised.
    pub(crate) fn build(&self) -> Result<RigidBody, WorldError> {
        if !self.parts.is_empty() {
            let desc = Self {
                shape: Shape::compound(self.parts.clone())?,
                parts: Vec::new(),
                ..self.clone()
            };
            return desc.build();
        }
        let pose = check_pose("desc.pose", &self.pose)?;
        check_linvel("desc.linvel", &self.linvel)?;
        check_angvel("desc.angvel", &self.angvel)?;
        // The shape first: the mass may be computed from its volume.
        let collider = check_collider(
            "desc",
            &Collider {
                shape: self.shape.clone(),
                offset: self.collider_offset,
                flags: self.collider_flags,
                user_data: self.collider_user_data,
            },
        )?;
        let mass = match (self.kind, self.mass) {
            (BodyKind::Dynamic, Some(mass)) => mass,
            // A compound's parts carry their own densities.
            (BodyKind::Dynamic, None) if matches!(self.shape, Shape::Compound { .. }) => {
                self.shape.mass_properties(1.0).mass
            }
            (BodyKind::Dynamic, None) => {
                let density = validate::positive("desc.density", self.density)?;
                let mass = density * self.shape.volume();
                if !(mass.is_finite() && mass > 0.0) {
                    return Err(WorldError::OutOfRange {
                        field: "desc.density".into(),
                        value: density,
                        range: "a value whose mass (density times volume) is finite and positive"
                            .into(),
                    });
                }
                mass
            }
            (BodyKind::Static | BodyKind::Kinematic, _) => 0.0,
        };
        check_kind_fits("desc", self.kind, &collider.shape)?;
        check_mass("desc", self.kind, mass)?;
        check_material("desc", &self.material)?;
        let visual = match &self.visual {
            Some(visual) => visual.clone(),
            None => Visual {
                color: self.color,
                ..Visual::of_shape(&self.shape)
            },
        };
        check_visual("desc", &visual)?;
        let control = BodyControl {
            force: Vector3::zeros(),
            torque: Vector3::zeros(),
            target: None,
            ..self.control
        };
        super::check_control("desc", self.kind, &control)?;
        let (mut linvel, mut angvel) = (self.linvel, self.angvel);
        control.locks.apply(&mut linvel, &mut angvel);
        Ok(RigidBody {
            kind: self.kind,
            pose,
            linvel,
            angvel,
            mass,
            material: self.material,
            mass_properties: BodyMass::derive(self.kind, mass, &collider),
            collider,
            visual,
            sleep: SleepState::new_body(),
            control,
        })
    }
}

/// Zero half extents (a flat mesh) become a thin but positive thickness.
fn thickened(half: Vector3) -> Vector3 {
    let floor = (half.max() * 1e-4).max(Real::MIN_POSITIVE);
    half.map(|h| h.max(floor))
}
