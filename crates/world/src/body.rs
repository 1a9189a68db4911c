//! Rigid bodies and their descriptions.

use crate::error::WorldError;
use crate::limits::{self, components_within, within};
use geom::validate;
use geom::{Aabb, Isometry3, Obb, Point3, Real, Shape, Sphere, UnitQuaternion, Vector3};
use serde::{Deserialize, Serialize};

slotmap::new_key_type! {
    /// A body's handle: opaque, `Copy`, serialisable. A removed body's handle never finds
    /// another body (the slot's version changes).
    pub struct BodyHandle;
}

/// How a body moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BodyKind {
    /// Never moves; infinite mass.
    Static,
    /// Moved by its velocity, gravity and collisions.
    Dynamic,
    /// Moved by its velocity only; pushes dynamic bodies, is never pushed (infinite mass).
    Kinematic,
}

/// Surface properties, used by the response.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Material {
    /// Bounciness, in [0, 1]: 1 keeps the normal speed, 0 absorbs it. `Response::Reflect` is
    /// always elastic and ignores it.
    pub restitution: Real,
    /// Coulomb friction coefficient, `>= 0`. `Response::Reflect` is frictionless and ignores it.
    pub friction: Real,
}

impl Default for Material {
    fn default() -> Self {
        Self {
            restitution: 1.0,
            friction: 0.0,
        }
    }
}

/// The collision shape of a body: a [`Shape`] placed at `offset` in the body's frame.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Collider {
    /// The shape, in the collider's frame.
    pub shape: Shape,
    /// The collider's frame in the body's frame (a mesh's fitted box need not be centred on the
    /// mesh's origin).
    pub offset: Isometry3,
}

impl Collider {
    /// The collider's pose in world space for a body at `body_pose`.
    #[inline]
    pub fn world_pose(&self, body_pose: &Isometry3) -> Isometry3 {
        body_pose * self.offset
    }
}

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
    /// A mesh's vertex list (seed 003's render object), body frame.
    Mesh {
        /// The vertices.
        vertices: Vec<Point3>,
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
        };
        Self {
            shape,
            color: [0.7, 0.7, 0.7],
        }
    }
}

/// A rigid body in the world. Read it with the accessors; change it through the checked
/// setters, so that a world never holds a NaN.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RigidBody {
    pub(crate) kind: BodyKind,
    pub(crate) pose: Isometry3,
    pub(crate) linvel: Vector3,
    pub(crate) angvel: Vector3,
    /// Kilograms for a dynamic body; stored as 0 for static and kinematic ones, whose mass is
    /// infinite (JSON has no infinity).
    pub(crate) mass: Real,
    pub(crate) material: Material,
    pub(crate) collider: Collider,
    pub(crate) visual: Visual,
}

impl RigidBody {
    /// Static, dynamic or kinematic.
    pub fn kind(&self) -> BodyKind {
        self.kind
    }
    /// The body's frame in world space.
    pub fn pose(&self) -> &Isometry3 {
        &self.pose
    }
    /// The body origin's position, world space (metres).
    pub fn position(&self) -> Point3 {
        self.pose.translation.vector.into()
    }
    /// Linear velocity, world space (metres per second).
    pub fn linvel(&self) -> Vector3 {
        self.linvel
    }
    /// Angular velocity, world space (radians per second about each axis).
    pub fn angvel(&self) -> Vector3 {
        self.angvel
    }
    /// Mass in kilograms; infinite for static and kinematic bodies.
    pub fn mass(&self) -> Real {
        match self.kind {
            BodyKind::Dynamic => self.mass,
            BodyKind::Static | BodyKind::Kinematic => Real::INFINITY,
        }
    }
    /// The inverse mass: 0 for static and kinematic bodies.
    pub fn inverse_mass(&self) -> Real {
        match self.kind {
            BodyKind::Dynamic => 1.0 / self.mass,
            BodyKind::Static | BodyKind::Kinematic => 0.0,
        }
    }
    /// Surface properties.
    pub fn material(&self) -> &Material {
        &self.material
    }
    /// The collision shape and its offset in the body's frame.
    pub fn collider(&self) -> &Collider {
        &self.collider
    }
    /// What a renderer draws.
    pub fn visual(&self) -> &Visual {
        &self.visual
    }
    /// Kinetic energy of the linear motion, `m v^2 / 2` (joules); 0 unless dynamic.
    pub fn linear_kinetic_energy(&self) -> Real {
        match self.kind {
            BodyKind::Dynamic => 0.5 * self.mass * self.linvel.norm_squared(),
            _ => 0.0,
        }
    }
    /// The collider's world-space bounding box at the current pose.
    pub fn world_aabb(&self) -> Aabb {
        self.collider
            .shape
            .aabb(&self.collider.world_pose(&self.pose))
    }

    /// Moves the body; the error names a non-finite translation or a bad rotation, and then
    /// nothing changes. A static body moved this way is teleported (no velocity).
    pub fn set_pose(&mut self, pose: Isometry3) -> Result<(), WorldError> {
        let pose = validate::isometry("pose", &pose)?;
        components_within(
            "pose.translation",
            &pose.translation.vector,
            limits::MAX_COORDINATE,
            "within 1e18 m of the origin",
        )?;
        self.pose = pose;
        Ok(())
    }
    /// Sets the linear velocity (ignored by static bodies); the error names a non-finite
    /// component, and then nothing changes.
    pub fn set_linvel(&mut self, linvel: Vector3) -> Result<(), WorldError> {
        validate::finite_vector3("linvel", &linvel)?;
        components_within("linvel", &linvel, limits::MAX_SPEED, "at most 1e5 m/s")?;
        self.linvel = linvel;
        Ok(())
    }
    /// Sets the angular velocity (ignored by static bodies); as [`RigidBody::set_linvel`].
    pub fn set_angvel(&mut self, angvel: Vector3) -> Result<(), WorldError> {
        validate::finite_vector3("angvel", &angvel)?;
        components_within(
            "angvel",
            &angvel,
            limits::MAX_ANGULAR_SPEED,
            "at most 1e5 rad/s",
        )?;
        self.angvel = angvel;
        Ok(())
    }
    /// Sets the colour; each channel must be finite and in [0, 1].
    pub fn set_color(&mut self, color: [Real; 3]) -> Result<(), WorldError> {
        check_color("color", &color)?;
        self.visual.color = color;
        Ok(())
    }

    /// Checks every field, naming the first bad one under `prefix` (e.g. `bodies[3]`).
    pub(crate) fn validate(&self, prefix: &str) -> Result<(), WorldError> {
        validate::isometry(&format!("{prefix}.pose"), &self.pose)?;
        components_within(
            &format!("{prefix}.pose.translation"),
            &self.pose.translation.vector,
            limits::MAX_COORDINATE,
            "within 1e18 m of the origin",
        )?;
        validate::finite_vector3(&format!("{prefix}.linvel"), &self.linvel)?;
        components_within(
            &format!("{prefix}.linvel"),
            &self.linvel,
            limits::MAX_SPEED,
            "at most 1e5 m/s",
        )?;
        validate::finite_vector3(&format!("{prefix}.angvel"), &self.angvel)?;
        components_within(
            &format!("{prefix}.angvel"),
            &self.angvel,
            limits::MAX_ANGULAR_SPEED,
            "at most 1e5 rad/s",
        )?;
        match self.kind {
            BodyKind::Dynamic => {
                validate::positive(&format!("{prefix}.mass"), self.mass)?;
                within(
                    &format!("{prefix}.mass"),
                    self.mass,
                    limits::MIN_MASS,
                    limits::MAX_MASS,
                    "in [1e-9, 1e12] kg",
                )?;
            }
            BodyKind::Static | BodyKind::Kinematic => {
                if self.mass != 0.0 {
                    return Err(WorldError::OutOfRange {
                        field: format!("{prefix}.mass"),
                        value: self.mass,
                        range: "0 (standing for infinite) for static and kinematic bodies",
                    });
                }
            }
        }
        check_material(prefix, &self.material)?;
        check_collider(prefix, &self.collider)?;
        check_visual(prefix, &self.visual)?;
        Ok(())
    }
}

fn check_color(field: &str, color: &[Real; 3]) -> Result<(), WorldError> {
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

fn check_material(prefix: &str, material: &Material) -> Result<(), WorldError> {
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

fn check_size(field: &str, size: Real) -> Result<(), WorldError> {
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

fn check_collider(prefix: &str, collider: &Collider) -> Result<(), WorldError> {
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
        &format!("{prefix}.collider_offset.translation"),
        &collider.offset.translation.vector,
        limits::MAX_SIZE,
        "within 1e6 m of the body",
    )?;
    Ok(())
}

fn check_visual(prefix: &str, visual: &Visual) -> Result<(), WorldError> {
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
                    &format!("{prefix}.visual.vertices[{i}]"),
                    &v.coords,
                    limits::MAX_SIZE,
                    "within 1e6 m of the body",
                )?;
            }
        }
    }
    check_color(&format!("{prefix}.visual.color"), &visual.color)
}

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
/// restitution 1, no friction.
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
    /// Sets the mass (kilograms) of a dynamic body.
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

    /// Checks every field and builds the body; the error names the first bad field as
    /// `desc.<field>`.
    pub(crate) fn build(&self) -> Result<RigidBody, WorldError> {
        let pose = validate::isometry("desc.pose", &self.pose)?;
        let collider = Collider {
            shape: self.shape,
            offset: self.collider_offset,
        };
        check_collider("desc", &collider)?;
        let collider = Collider {
            offset: validate::isometry("desc.collider_offset", &self.collider_offset)?,
            ..collider
        };
        let mass = match self.kind {
            BodyKind::Dynamic => match self.mass {
                Some(mass) => validate::positive("desc.mass", mass)?,
                None => {
                    let density = validate::positive("desc.density", self.density)?;
                    let mass = density * self.shape.volume();
                    if !(mass.is_finite() && mass > 0.0) {
                        return Err(WorldError::OutOfRange {
                            field: "desc.density".into(),
                            value: density,
                            range: "a value whose mass (density times volume) is finite and positive",
                        });
                    }
                    mass
                }
            },
            BodyKind::Static | BodyKind::Kinematic => 0.0,
        };
        let visual = match &self.visual {
            Some(visual) => visual.clone(),
            None => Visual {
                color: self.color,
                ..Visual::of_shape(&self.shape)
            },
        };
        let body = RigidBody {
            kind: self.kind,
            pose,
            linvel: validate::finite_vector3("desc.linvel", &self.linvel)?,
            angvel: validate::finite_vector3("desc.angvel", &self.angvel)?,
            mass,
            material: self.material,
            collider,
            visual,
        };
        body.validate("desc")?;
        Ok(body)
    }
}

/// Zero half extents (a flat mesh) become a thin but positive thickness.
fn thickened(half: Vector3) -> Vector3 {
    let floor = (half.max() * 1e-4).max(Real::MIN_POSITIVE);
    half.map(|h| h.max(floor))
}
