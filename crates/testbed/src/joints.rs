//! Scenes with joints, shared by the joints example, its render tests, the determinism tests and
//! the benches: a chain, a plank bridge, a motorised door, a ragdoll, and Box3D's joint grid.

use crate::scenes::ground;
use geom::{Point3, Real, Vector3};
use world::{
    BodyDesc, BodyHandle, CollisionFilter, JointDesc, JointHandle, SleepConfig, Spring, World,
    WorldConfig,
};

/// A chain of `links` boxes (0.1 x 0.1 x 0.25 m, density 1000) hanging from a static anchor at
/// `top`, each joined to the one above by a spherical joint at their shared end. Returns the
/// anchor and the links, top first.
pub fn chain(world: &mut World, top: Vector3, links: usize) -> (BodyHandle, Vec<BodyHandle>) {
    let anchor = world
        .insert(
            BodyDesc::fixed()
                .cuboid(Vector3::repeat(0.06))
                .position(top + Vector3::new(0.0, 0.06, 0.0))
                .color([0.4, 0.4, 0.45]),
        )
        .expect("a valid anchor");
    let half = Vector3::new(0.05, 0.125, 0.05);
    let mut previous = anchor;
    let mut handles = Vec::with_capacity(links);
    for k in 0..links {
        let center = top - Vector3::new(0.0, 0.25 * k as Real + 0.125, 0.0);
        let link = world
            .insert(
                BodyDesc::dynamic()
                    .cuboid(half)
                    .density(1000.0)
                    .position(center)
                    .color([0.8, 0.6, 0.2]),
            )
            .expect("a valid link");
        let at = center + Vector3::new(0.0, 0.125, 0.0);
        world
            .insert_joint(JointDesc::spherical(previous, link, at.into()))
            .expect("a valid joint");
        handles.push(link);
        previous = link;
    }
    (anchor, handles)
}

/// A bridge of `planks` planks (1 x 0.1 x 0.8 m) along x centred at `center`, each hinged to
/// the next about z at their shared edge, the ends hinged to two static posts. Returns the
/// planks, west to east.
pub fn bridge(world: &mut World, center: Vector3, planks: usize) -> Vec<BodyHandle> {
    let half = Vector3::new(0.5, 0.05, 0.4);
    let west = center.x - half.x * planks as Real;
    let post = |world: &mut World, x: Real| {
        world
            .insert(
                BodyDesc::fixed()
                    .cuboid(Vector3::new(0.1, 0.5, 0.5))
                    .position(Vector3::new(x, center.y - 0.45, center.z))
                    .color([0.4, 0.4, 0.45]),
            )
            .expect("a valid post")
    };
    let first = post(world, west - 0.1);
    let mut previous = first;
    let mut handles = Vec::with_capacity(planks);
    for k in 0..=planks {
        let x = west + 2.0 * half.x * k as Real;
        let hinge = Point3::new(x, center.y, center.z);
        let next = if k < planks {
            world
                .insert(
                    BodyDesc::dynamic()
                        .cuboid(half)
                        .density(500.0)
                        .position(Vector3::new(x + half.x, center.y, center.z))
                        .color([0.6, 0.45, 0.3]),
                )
                .expect("a valid plank")
        } else {
            post(world, x + 0.1)
        };
        world
            .insert_joint(JointDesc::revolute(previous, next, hinge, Vector3::z()))
            .expect("a valid hinge");
        if k < planks {
            handles.push(next);
        }
        previous = next;
    }
    handles
}

/// A door (1 x 2 x 0.1 m, 20 kg, 2 cm above `at`'s level) on a vertical hinge at its west edge
/// on a static post at `at`, opening between 0 and `open` radians, driven open by a motor of 2 rad/s and 50 N m.
/// Returns the door and its hinge.
pub fn door(world: &mut World, at: Vector3, open: Real) -> (BodyHandle, JointHandle) {
    let post = world
        .insert(
            BodyDesc::fixed()
                .cuboid(Vector3::new(0.05, 1.0, 0.05))
                .position(at + Vector3::new(-0.06, 1.0, 0.0))
                .color([0.4, 0.4, 0.45]),
        )
        .expect("a valid post");
    let door = world
        .insert(
            BodyDesc::dynamic()
                .cuboid(Vector3::new(0.5, 1.0, 0.05))
                .mass(20.0)
                .position(at + Vector3::new(0.5, 1.02, 0.0))
                .color([0.55, 0.35, 0.2]),
        )
        .expect("a valid door");
    let hinge = JointDesc::revolute(
        post,
        door,
        (at + Vector3::new(0.0, 1.0, 0.0)).into(),
        Vector3::y(),
    )
    .limits(0.0, open)
    .motor(2.0, 50.0);
    let joint = world.insert_joint(hinge).expect("a valid hinge");
    (door, joint)
}

/// A ragdoll of boxes and a ball standing at `at` (its feet's level): spherical neck, waist,
/// shoulders and hips with cone limits, revolute elbows and knees with limits, every joint
/// with 0.2 N m of friction (Box3D's humans have friction motors on every joint; without any,
/// the ball head, resting on the ground, kept rolling about its neck: a ball held at a point
/// of its surface can roll around it). Returns its bodies (pelvis first) and joints.
pub fn ragdoll(world: &mut World, at: Vector3) -> (Vec<BodyHandle>, Vec<JointHandle>) {
    let color = [0.85, 0.7, 0.55];
    let add = |world: &mut World, desc: BodyDesc, center: Vector3| {
        world
            .insert(desc.density(1000.0).position(at + center).color(color))
            .expect("a valid limb")
    };
    let limb = |x: Real, y: Real, z: Real| BodyDesc::dynamic().cuboid(Vector3::new(x, y, z));
    let pelvis = add(world, limb(0.15, 0.1, 0.1), Vector3::new(0.0, 1.0, 0.0));
    let torso = add(world, limb(0.18, 0.22, 0.1), Vector3::new(0.0, 1.33, 0.0));
    let head = add(
        world,
        BodyDesc::dynamic().ball(0.12),
        Vector3::new(0.0, 1.68, 0.0),
    );
    let mut bodies = vec![pelvis, torso, head];
    let mut joints = Vec::new();
    let mut join = |world: &mut World, desc: JointDesc| {
        joints.push(
            world
                .insert_joint(desc.friction(0.2))
                .expect("a valid joint"),
        );
    };
    let p = |x: Real, y: Real| Point3::from(at + Vector3::new(x, y, 0.0));
    let down = -Vector3::y();
    join(
        world,
        JointDesc::spherical_about(pelvis, torso, p(0.0, 1.1), Vector3::y())
            .cone(0.5)
            .limits(-0.4, 0.4),
    );
    join(
        world,
        JointDesc::spherical_about(torso, head, p(0.0, 1.56), Vector3::y())
            .cone(0.6)
            .limits(-0.8, 0.8),
    );
    for side in [-1.0, 1.0] {
        // Arm: shoulder, elbow.
        let upper = add(
            world,
            limb(0.05, 0.14, 0.05),
            Vector3::new(side * 0.25, 1.39, 0.0),
        );
        let lower = add(
            world,
            limb(0.045, 0.13, 0.045),
            Vector3::new(side * 0.25, 1.11, 0.0),
        );
        join(
            world,
            JointDesc::spherical_about(torso, upper, p(side * 0.25, 1.53), down)
                .cone(1.4)
                .limits(-1.0, 1.0),
        );
        join(
            world,
            JointDesc::revolute(upper, lower, p(side * 0.25, 1.25), Vector3::x()).limits(-2.4, 0.0),
        );
        // Leg: hip, knee.
        let thigh = add(
            world,
            limb(0.07, 0.2, 0.07),
            Vector3::new(side * 0.09, 0.7, 0.0),
        );
        let shin = add(
            world,
            limb(0.06, 0.2, 0.06),
            Vector3::new(side * 0.09, 0.3, 0.0),
        );
        join(
            world,
            JointDesc::spherical_about(pelvis, thigh, p(side * 0.09, 0.9), down)
                .cone(1.2)
                .limits(-0.5, 0.5),
        );
        join(
            world,
            JointDesc::revolute(thigh, shin, p(side * 0.09, 0.5), Vector3::x()).limits(0.0, 2.4),
        );
        bodies.extend([upper, lower, thigh, shin]);
    }
    (bodies, joints)
}

/// A world of the default settings with a ground and a ragdoll falling from 2 m, tilted so that
/// it lands on its side. Returns the world, its bodies and joints.
pub fn falling_ragdoll() -> (World, Vec<BodyHandle>, Vec<JointHandle>) {
    let mut world = World::new(WorldConfig::default());
    ground(&mut world, 20.0);
    let (bodies, joints) = ragdoll(&mut world, Vector3::new(0.0, 2.0, 0.0));
    // A push at the head tips it over as it falls.
    world
        .body_mut(bodies[2])
        .expect("the head")
        .set_linvel(Vector3::new(2.0, 0.0, 1.0))
        .expect("a valid velocity");
    (world, bodies, joints)
}

/// Box3D's joint grid (`shared/benchmarks.c`, `CreateJointGrid`): `n` by `n` balls of radius 0.4
/// at `(k, -i, 0)`, row `i = 0` static, each joined to the ball above and to the one on its left
/// by spherical joints (anchors 0.5 from each ball's centre), density 1000, gravity -10 (Box3D's),
/// sleeping off, and Box3D's filter: every ball in category 2, colliding with all but it, so that
/// no two balls collide. `n = 100`: 9,900 dynamic balls, 19,800 joints.
pub fn joint_grid(n: usize) -> World {
    let mut world = World::new(WorldConfig {
        gravity: Vector3::new(0.0, -10.0, 0.0),
        sleep: SleepConfig {
            enabled: false,
            ..SleepConfig::default()
        },
        ..WorldConfig::default()
    });
    let mut bodies: Vec<BodyHandle> = Vec::with_capacity(n * n);
    for k in 0..n {
        for i in 0..n {
            let desc = if i == 0 {
                BodyDesc::fixed()
            } else {
                BodyDesc::dynamic()
            };
            let position = Vector3::new(k as Real, -(i as Real), 0.0);
            let ball =
                world
                    .insert(desc.ball(0.4).density(1000.0).position(position).filter(
                        CollisionFilter {
                            category: 2,
                            mask: !2,
                            group: 0,
                        },
                    ))
                    .expect("a valid ball");
            let local = |x: Real, y: Real| geom::Isometry3::translation(x, y, 0.0);
            let spherical = |a, b, frame_a, frame_b| {
                JointDesc::local(world::JointKind::BALL, a, b, frame_a, frame_b)
            };
            if i > 0 {
                let above = bodies[bodies.len() - 1];
                world
                    .insert_joint(spherical(above, ball, local(0.0, -0.5), local(0.0, 0.5)))
                    .expect("a valid joint");
            }
            if k > 0 {
                let left = bodies[bodies.len() - n];
                world
                    .insert_joint(spherical(left, ball, local(0.5, 0.0), local(-0.5, 0.0)))
                    .expect("a valid joint");
            }
            bodies.push(ball);
        }
    }
    world
}

/// `world` solved with Box3D's effort and joint softness: one soft iteration and one joint pass
/// per substep, every joint held at 60 Hz with damping ratio 2 (Box3D's `constraintHertz` and
/// `constraintDampingRatio`; capped at a quarter of the substep rate there, which at 4 substeps
/// of 1/60 s is 60 Hz too). Minirigid's defaults (two of each, 240 Hz, damping ratio 20) hold
/// joints stiffer (see `world::JOINT_SOFTNESS`); this is for comparing with Box3D at its own
/// quality.
pub fn box3d_effort(mut world: World) -> World {
    let mut config = *world.config();
    config.solver.soft_iterations = 1;
    config.solver.joint_iterations = 1;
    world.set_config(config).expect("valid settings");
    let joints: Vec<JointHandle> = world.joints().map(|(h, _)| h).collect();
    for joint in joints {
        world
            .set_joint_softness(
                joint,
                Spring {
                    hertz: 60.0,
                    damping_ratio: 2.0,
                },
            )
            .expect("a valid softness");
    }
    world
}
