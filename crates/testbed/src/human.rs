//! Box3D's human (`shared/human.c`): a ragdoll of 14 capsules on 9 spherical joints (cone and
//! twist limits) and 4 revolute ones (knees and elbows, with limits), each with a spring toward
//! its rest pose and a friction motor, exactly as Box3D builds it (its bone frames, capsules,
//! joint frames and limits); and Box3D's `rain` benchmark scene, which drops columns of them
//! onto a grid of cells, each a flat grid mesh and a torus mesh.
//!
//! Box3D's capsules are segments anywhere in their body's frame; ours lie along the body's y
//! axis through its origin. Each bone's body is therefore placed at its capsule's centre, turned
//! so that y runs along the segment (`Box3D's pose * offset`), and the joint frames are moved
//! into that frame (`offset^-1 * frame`): the same bodies, masses and joints in other
//! coordinates.

use geom::na::{Quaternion, Translation3};
use geom::{Isometry3, Point3, Real, Shape, UnitQuaternion, Vector3};
use world::{
    BodyDesc, BodyHandle, CollisionFilter, JointDesc, JointKind, Spring, World, WorldConfig,
};

/// The bones, in Box3D's order (`BoneId`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bone {
    /// The pelvis (the root: no joint).
    Pelvis,
    /// The lowest spine bone.
    Spine01,
    /// The middle spine bone.
    Spine02,
    /// The upper spine bone (the shoulders' parent).
    Spine03,
    /// The neck.
    Neck,
    /// The head.
    Head,
    /// The left thigh.
    ThighL,
    /// The left calf (a knee hinge).
    CalfL,
    /// The right thigh.
    ThighR,
    /// The right calf (a knee hinge).
    CalfR,
    /// The left upper arm.
    UpperArmL,
    /// The left lower arm (an elbow hinge).
    LowerArmL,
    /// The right upper arm.
    UpperArmR,
    /// The right lower arm (an elbow hinge).
    LowerArmR,
}

/// How many bones a human has.
pub const BONE_COUNT: usize = 14;

#[derive(Debug, Clone, Copy)]
enum LinkKind {
    Spherical,
    Revolute,
}

/// A bone's joint to its parent: Box3D's local frames (in the parent's and the bone's Box3D
/// body frames), its swing cone (degrees; spherical only), its twist or hinge limits
/// (degrees), and its share of the friction torque.
#[derive(Debug, Clone, Copy)]
struct Link {
    parent: usize,
    kind: LinkKind,
    frames: [([Real; 3], [Real; 4]); 2],
    swing: Real,
    twist: [Real; 2],
    friction: Real,
}

/// A bone as Box3D gives it: its rest pose relative to the human's position, its capsule
/// (two centres and a radius in its body frame), whether its filter takes the group's
/// negative index, and its joint.
#[derive(Debug, Clone, Copy)]
struct BoneData {
    reference: ([Real; 3], [Real; 4]),
    capsule: ([Real; 3], [Real; 3], Real),
    grouped: bool,
    link: Option<Link>,
}

/// A frame as Box3D writes it: a position and a quaternion `(x, y, z, w)`.
const fn frame(p: [Real; 3], q: [Real; 4]) -> ([Real; 3], [Real; 4]) {
    (p, q)
}

/// Box3D's bones (`CreateHuman`), in `Bone` order.
#[rustfmt::skip]
const BONES: [BoneData; BONE_COUNT] = [
    // pelvis
    BoneData { reference: frame([0.0, 0.932087, -0.051708], [0.739169, 0.0, 0.0, 0.67352]), capsule: ([0.07, 0.0, -0.08], [-0.07, 0.0, -0.08], 0.13), grouped: false, link: None },
    // spine_01
    BoneData { reference: frame([0.0, 1.113505, -0.03481], [0.739973, 0.0, 0.0, 0.672637]), capsule: ([0.06, -0.0, -0.052264], [-0.06, 0.0, -0.052264], 0.12), grouped: true, link: Some(Link { parent: Bone::Pelvis as usize, kind: LinkKind::Spherical, frames: [frame([0.0, 0.0, -0.182204], [-0.999999, 0.0, -0.0, 0.001194]), frame([0.0, 0.0, -0.007736], [-1.0, 0.0, -0.0, 0.0])], swing: 25.0, twist: [-15.0, 15.0], friction: 1.0 }) },
    // spine_02
    BoneData { reference: frame([0.0, 1.194336, -0.027087], [0.703611, 0.0, 0.0, 0.710586]), capsule: ([0.08, -0.015133, -0.091801], [-0.08, -0.015133, -0.091801], 0.1), grouped: false, link: Some(Link { parent: Bone::Spine01 as usize, kind: LinkKind::Spherical, frames: [frame([0.0, -0.0, -0.088935], [-0.998619, -0.0, 0.0, -0.05254]), frame([-0.0, 0.0, -0.008199], [-1.0, 0.0, -0.0, 0.0])], swing: 25.0, twist: [-15.0, 15.0], friction: 1.0 }) },
    // spine_03
    BoneData { reference: frame([-0.0, 1.31043, -0.028232], [0.669856, 1e-06, -1e-06, 0.742491]), capsule: ([0.11, -0.039753, -0.13], [-0.11, -0.039753, -0.13], 0.145), grouped: false, link: Some(Link { parent: Bone::Spine02 as usize, kind: LinkKind::Spherical, frames: [frame([-0.0, 0.0, -0.124298], [-0.998921, 1e-06, -1e-06, -0.046434]), frame([0.0, 0.0, 0.0], [-1.0, 0.0, -1e-06, 0.0])], swing: 15.0, twist: [-10.0, 10.0], friction: 1.0 }) },
    // neck
    BoneData { reference: frame([0.0, 1.575582, -0.055837], [0.879922, 0.0, 0.0, 0.475118]), capsule: ([-1e-06, -0.0, -0.02], [0.0, -0.005, -0.08], 0.07), grouped: false, link: Some(Link { parent: Bone::Spine03 as usize, kind: LinkKind::Spherical, frames: [frame([1e-06, -0.000259, -0.266585], [-0.942192, -1e-06, 0.0, 0.335074]), frame([0.0, 0.0, 0.0], [-1.0, 0.0, -1e-06, 0.0])], swing: 45.0, twist: [-15.0, 15.0], friction: 0.8 }) },
    // head
    BoneData { reference: frame([0.0, 1.653348, -0.003241], [0.750288, 0.0, 0.0, 0.661111]), capsule: ([-1e-06, 0.016892, -0.05869], [0.0, -0.003629, -0.115072], 0.0975), grouped: false, link: Some(Link { parent: Bone::Neck as usize, kind: LinkKind::Spherical, frames: [frame([0.0, 0.001321, -0.093873], [-0.974301, -0.0, -0.0, -0.225251]), frame([0.0, 0.001268, -0.005104], [-1.0, 0.0, -0.0, 0.0])], swing: 15.0, twist: [-15.0, 15.0], friction: 0.4 }) },
    // thigh_l
    BoneData { reference: frame([0.090416, 0.986104, -0.03509], [-0.703287, -0.070715, 0.053866, 0.705327]), capsule: ([0.023719, 0.006008, -0.039068], [-0.064492, -0.004664, -0.424718], 0.09), grouped: true, link: Some(Link { parent: Bone::Pelvis as usize, kind: LinkKind::Spherical, frames: [frame([0.05, 0.011537, -0.055325], [-0.714896, -0.022305, -0.698361, -0.02679]), frame([0.0, 0.0, 0.0], [-0.002064, 0.758987, 0.017046, 0.65088])], swing: 10.0, twist: [-60.0, 40.0], friction: 1.0 }) },
    // calf_l
    BoneData { reference: frame([0.101198, 0.527027, -0.037374], [-0.653328, -0.06686, 0.058582, 0.751838]), capsule: ([0.001778, 0.0, 0.009841], [-0.078577, 0.014707, -0.41816], 0.075), grouped: false, link: Some(Link { parent: Bone::ThighL as usize, kind: LinkKind::Revolute, frames: [frame([-0.069989, 0.000253, -0.453844], [-0.000677, 0.760087, 0.105674, 0.641171]), frame([0.0, 0.0, 0.0], [-0.044589, 0.76554, 0.053368, 0.639619])], swing: 0.0, twist: [-5.0, 45.0], friction: 1.0 }) },
    // thigh_r
    BoneData { reference: frame([-0.090416, 0.986104, -0.03509], [-0.703287, 0.070715, -0.053865, 0.705326]), capsule: ([-0.023719, 0.006008, -0.039068], [0.064492, -0.004664, -0.424718], 0.09), grouped: true, link: Some(Link { parent: Bone::Pelvis as usize, kind: LinkKind::Spherical, frames: [frame([-0.05, 0.011537, -0.055326], [-0.039089, -0.714094, 0.043177, 0.697623]), frame([0.0, 0.0, 0.0], [0.758805, -0.019886, -0.651012, -0.001759])], swing: 10.0, twist: [-30.0, 60.0], friction: 1.0 }) },
    // calf_r
    BoneData { reference: frame([-0.101198, 0.527027, -0.037373], [-0.653327, 0.06686, -0.058582, 0.751839]), capsule: ([-0.00182, 0.0, 0.010071], [0.077883, 0.014825, -0.418047], 0.075), grouped: false, link: Some(Link { parent: Bone::ThighR as usize, kind: LinkKind::Revolute, frames: [frame([0.069988, 0.000253, -0.453844], [0.760086, -0.000675, -0.641171, -0.105676]), frame([0.0, 0.0, 0.0], [0.76554, -0.044589, -0.639619, -0.053368])], swing: 0.0, twist: [-45.0, 5.0], friction: 1.0 }) },
    // upper_arm_l
    BoneData { reference: frame([0.20378, 1.484275, -0.115897], [0.143082, 0.69598, -0.69013, 0.13733]), capsule: ([0.0, 0.0, 0.0], [-0.091118, 0.037775, 0.229719], 0.075), grouped: false, link: Some(Link { parent: Bone::Spine03 as usize, kind: LinkKind::Spherical, frames: [frame([0.20378, -0.069369, -0.181921], [-0.278486, 0.4456, -0.097014, 0.845266]), frame([0.0, 0.0, 0.0], [-0.201396, -0.001586, 0.90185, 0.382234])], swing: 60.0, twist: [-5.0, 5.0], friction: 1.0 }) },
    // lower_arm_l
    BoneData { reference: frame([0.305614, 1.242908, -0.117599], [0.165048, 0.563437, -0.802002, 0.109959]), capsule: ([0.0, 0.0, 0.0], [-0.142406, 0.039392, 0.261092], 0.05), grouped: false, link: Some(Link { parent: Bone::UpperArmL as usize, kind: LinkKind::Revolute, frames: [frame([-0.095482, 0.039584, 0.240723], [0.512487, -0.180629, 0.839474, 0.003742]), frame([0.0, 0.0, 0.0], [0.503803, -0.029831, 0.858168, 0.094017])], swing: 0.0, twist: [-5.0, 60.0], friction: 1.0 }) },
    // upper_arm_r
    BoneData { reference: frame([-0.20378, 1.484276, -0.115899], [0.143083, -0.695978, 0.690132, 0.137329]), capsule: ([0.0, 0.0, 0.0], [0.091118, 0.037775, 0.229718], 0.075), grouped: false, link: Some(Link { parent: Bone::Spine03 as usize, kind: LinkKind::Spherical, frames: [frame([-0.203779, -0.069371, -0.181922], [-0.253621, -0.414842, 0.106962, 0.867261]), frame([0.0, 0.0, 0.0], [-0.201397, 0.001587, -0.90185, 0.382233])], swing: 60.0, twist: [-5.0, 5.0], friction: 1.0 }) },
    // lower_arm_r
    BoneData { reference: frame([-0.305614, 1.242907, -0.117599], [0.165048, -0.563437, 0.802002, 0.109959]), capsule: ([0.0, 0.0, 0.0], [0.142406, 0.039392, 0.261092], 0.05), grouped: false, link: Some(Link { parent: Bone::UpperArmR as usize, kind: LinkKind::Revolute, frames: [frame([0.095484, 0.039585, 0.240723], [-0.180627, 0.512487, -0.003744, -0.839474]), frame([0.0, 0.0, 0.0], [-0.029831, 0.503803, -0.094017, -0.858169])], swing: 0.0, twist: [-60.0, 5.0], friction: 1.0 }) },
];

/// A frame as an isometry (its quaternion normalised, as Box3D normalises its joint frames).
fn isometry((p, q): ([Real; 3], [Real; 4])) -> Isometry3 {
    let rotation = UnitQuaternion::from_quaternion(Quaternion::new(q[3], q[0], q[1], q[2]));
    Isometry3::from_parts(Translation3::new(p[0], p[1], p[2]), rotation)
}

/// A bone's capsule as ours: where its body goes in Box3D's body frame (at the segment's
/// centre, y along it), its half height and its radius.
fn capsule_of(bone: &BoneData) -> (Isometry3, Real, Real) {
    let (c1, c2, radius) = bone.capsule;
    let (c1, c2) = (Vector3::from(c1), Vector3::from(c2));
    let axis = c2 - c1;
    let rotation = UnitQuaternion::rotation_between(&Vector3::y(), &axis)
        .unwrap_or_else(UnitQuaternion::identity);
    let offset = Isometry3::from_parts(Translation3::from(0.5 * (c1 + c2)), rotation);
    (offset, 0.5 * axis.norm(), radius)
}

/// One of Box3D's humans, as `CreateHuman` makes it.
#[derive(Debug, Clone)]
pub struct Human {
    /// Its bodies, in [`Bone`] order.
    pub bodies: [BodyHandle; BONE_COUNT],
    /// Its joints: each bone's to its parent, in bone order from the first spine bone.
    pub joints: Vec<world::JointHandle>,
}

/// How a human is made: Box3D's `CreateHuman` arguments, and a word put on each of its bodies.
#[derive(Debug, Clone, Copy)]
pub struct HumanDesc {
    /// Where its rest pose's origin goes (its feet are near it, its pelvis 0.93 m above).
    pub position: Vector3,
    /// The friction motors' torque (N m; each joint takes its share).
    pub friction_torque: Real,
    /// The joints' springs toward the rest pose (Hz; 0: none).
    pub hertz: Real,
    /// The springs' damping ratio.
    pub damping_ratio: Real,
    /// Box3D's group index: the first spine bone and the thighs of the humans of one non-zero
    /// group never collide with each other.
    pub group: i32,
    /// The negative group its thighs take when `group` is 0, which no other human's thighs
    /// share: Box3D's filter joint between its thighs (a group of the human's own).
    pub thigh_group: i32,
    /// A word on each body (`BodyDesc::user_data`), to find them again.
    pub user_data: u64,
}

/// Inserts a human into `world`: 14 capsules of density 1000 with rolling resistance 0.2, its
/// joints with Box3D's limits, springs and friction motors; jointed bones do not collide, and
/// neither do its two thighs (Box3D's filter joint between them: here a negative group of
/// their own, `thigh_group`, for a human of group 0, whose thighs no group keeps apart).
pub fn human(world: &mut World, desc: &HumanDesc) -> Human {
    let mut bodies = Vec::with_capacity(BONE_COUNT);
    let mut offsets = Vec::with_capacity(BONE_COUNT);
    for (k, bone) in BONES.iter().enumerate() {
        let (offset, half_height, radius) = capsule_of(bone);
        let mut reference = isometry(bone.reference);
        reference.translation.vector += desc.position;
        let thigh = k == Bone::ThighL as usize || k == Bone::ThighR as usize;
        let group = if bone.grouped && desc.group != 0 {
            -desc.group
        } else if thigh {
            desc.thigh_group
        } else {
            0
        };
        let body = world
            .insert(
                BodyDesc::dynamic()
                    .pose(reference * offset)
                    .capsule(half_height, radius)
                    .density(1000.0)
                    .rolling_resistance(0.2)
                    .filter(CollisionFilter {
                        group,
                        ..CollisionFilter::default()
                    })
                    .user_data(desc.user_data),
            )
            .expect("a valid bone");
        bodies.push(body);
        offsets.push(offset);
    }
    let spring = (desc.hertz > 0.0).then_some(Spring {
        hertz: desc.hertz,
        damping_ratio: desc.damping_ratio,
    });
    let mut joints = Vec::new();
    for (k, bone) in BONES.iter().enumerate() {
        let Some(link) = bone.link else {
            continue;
        };
        let frame_a = offsets[link.parent].inverse() * isometry(link.frames[0]);
        let frame_b = offsets[k].inverse() * isometry(link.frames[1]);
        let twist = link.twist.map(Real::to_radians);
        let friction = link.friction * desc.friction_torque;
        let kind = match link.kind {
            LinkKind::Spherical => JointKind::Spherical {
                cone: Some(link.swing.to_radians()),
                twist: Some(twist),
                friction,
                spring,
            },
            LinkKind::Revolute => JointKind::Revolute(world::Axis {
                limits: Some(twist),
                spring,
                target: 0.0,
                motor: None,
                friction,
            }),
        };
        let joint = JointDesc::local(kind, bodies[link.parent], bodies[k], frame_a, frame_b);
        joints.push(world.insert_joint(joint).expect("a valid joint"));
    }
    Human {
        bodies: bodies.try_into().expect("one body per bone"),
        joints,
    }
}

/// Box3D's rain cell side (m, `RAIN_GRID_SIZE`).
pub const RAIN_CELL: Real = 15.0;
/// Box3D's rain cells per side (`RAIN_GRID_COUNT`).
pub const RAIN_GRID: usize = 10;
/// Box3D's humans per group (`RAIN_GROUP_SIZE`).
pub const RAIN_GROUP: usize = 3;

/// Box3D's `b3CreateGridMesh(x_count, z_count, cell, ..)`: a flat grid at y = 0 centred on the
/// origin, two triangles a cell facing +y, in Box3D's vertex and triangle order.
pub fn box3d_grid_mesh(x_count: u32, z_count: u32, cell: Real) -> Shape {
    let mut vertices = Vec::new();
    let (x0, z0) = (-0.5 * cell * x_count as Real, -0.5 * cell * z_count as Real);
    for ix in 0..=x_count {
        for iz in 0..=z_count {
            vertices.push(Point3::new(
                x0 + ix as Real * cell,
                0.0,
                z0 + iz as Real * cell,
            ));
        }
    }
    let mut triangles = Vec::new();
    for ix in 0..x_count {
        for iz in 0..z_count {
            let i1 = iz + (z_count + 1) * ix;
            let (i2, i3) = (i1 + 1, i1 + 1 + (z_count + 1));
            let i4 = i3 - 1;
            triangles.push([i1, i2, i3]);
            triangles.push([i3, i4, i1]);
        }
    }
    Shape::trimesh(vertices, triangles).expect("a valid grid")
}

/// Box3D's `b3CreateTorusMesh(radial, tubular, radius, thickness)`: a ring about the z axis
/// (standing up in the xy plane), in Box3D's vertex and triangle order.
pub fn box3d_torus_mesh(radial: u32, tubular: u32, radius: Real, thickness: Real) -> Shape {
    let tau = std::f32::consts::TAU;
    let mut vertices = Vec::new();
    for r in 0..radial {
        for t in 0..tubular {
            let u = t as Real / tubular as Real * tau;
            let v = r as Real / radial as Real * tau;
            let ring = radius + thickness * v.cos();
            vertices.push(Point3::new(
                ring * u.cos(),
                ring * u.sin(),
                thickness * v.sin(),
            ));
        }
    }
    let mut triangles = Vec::new();
    for r1 in 0..radial {
        let r2 = (r1 + 1) % radial;
        for t1 in 0..tubular {
            let t2 = (t1 + 1) % tubular;
            let (i1, i2) = (r1 * tubular + t1, r1 * tubular + t2);
            let (i3, i4) = (r2 * tubular + t2, r2 * tubular + t1);
            triangles.push([i1, i2, i3]);
            triangles.push([i3, i4, i1]);
        }
    }
    Shape::trimesh(vertices, triangles).expect("a valid torus")
}

/// Box3D's rain scene before its first step (`CreateRain`): 10 x 10 static cells of 15 m,
/// each a grid mesh of 8 x 8 cells and a torus mesh (radius 3.75 m, thickness 1 m, standing
/// up) at its centre (Box3D puts both on one body; here each is a body), gravity -10
/// (Box3D's), sleeping on. The humans come with [`rain_step`].
pub fn rain() -> World {
    rain_grid(RAIN_GRID)
}

/// [`rain`] with `grid` x `grid` cells (Box3D's `RAIN_GRID_COUNT` is 10); its humans come with
/// [`rain_grid_step`] for the same `grid`.
pub fn rain_grid(grid: usize) -> World {
    let mut world = World::new(WorldConfig {
        gravity: Vector3::new(0.0, -10.0, 0.0),
        ..WorldConfig::default()
    });
    let mesh = box3d_grid_mesh(8, 8, RAIN_CELL / 8.0);
    let torus = box3d_torus_mesh(16, 16, 0.25 * RAIN_CELL, 1.0);
    let span = RAIN_CELL * grid as Real;
    for i in 0..grid {
        for j in 0..grid {
            let at = Vector3::new(
                -0.5 * span + (i as Real + 0.5) * RAIN_CELL,
                0.0,
                -0.5 * span + (j as Real + 0.5) * RAIN_CELL,
            );
            for shape in [&mesh, &torus] {
                world
                    .insert(BodyDesc::fixed().shape(shape.clone()).position(at))
                    .expect("a valid cell");
            }
        }
    }
    world
}

/// Box3D's `StepRain` before step `step` (from 0): on the steps with `step & 0x2F == 0`, a
/// column of groups (one per row, three humans each, 0.75 m apart from 20 m up, friction
/// torque 5 N m, springs of 1 Hz at damping ratio 0.7), one column further each time; once
/// all ten stand, the oldest column's humans are removed and dropped again. A group's bodies
/// carry its index plus one as their word. Returns the humans it added.
pub fn rain_step(world: &mut World, step: usize) -> Vec<Human> {
    rain_grid_step(world, step, RAIN_GRID)
}

/// [`rain_step`] for a [`rain_grid`] of `grid` x `grid` cells: a column of `grid` groups, the
/// oldest removed once all `grid` columns stand.
pub fn rain_grid_step(world: &mut World, step: usize, grid: usize) -> Vec<Human> {
    let mut added = Vec::new();
    if step & 0x2F != 0 || grid == 0 {
        return added;
    }
    let event = (0..step).filter(|k| k & 0x2F == 0).count();
    let column = event % grid;
    let span = RAIN_CELL * grid as Real;
    for row in 0..grid {
        let group = row * grid + column;
        let word = group as u64 + 1;
        if event >= grid {
            let old: Vec<BodyHandle> = (world.bodies())
                .filter(|(_, b)| b.user_data() == word)
                .map(|(h, _)| h)
                .collect();
            for body in old {
                world.remove(body);
            }
        }
        let mut position = Vector3::new(
            -0.5 * span + RAIN_CELL * (column as Real + 0.5),
            20.0,
            -0.5 * span + RAIN_CELL * (row as Real + 0.5),
        );
        for k in 0..RAIN_GROUP {
            added.push(human(
                world,
                &HumanDesc {
                    position,
                    friction_torque: 5.0,
                    hertz: 1.0,
                    damping_ratio: 0.7,
                    group: group as i32,
                    thigh_group: -1000 - k as i32,
                    user_data: word,
                },
            ));
            position.x += 0.75;
        }
    }
    added
}
