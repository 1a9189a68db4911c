//! The same scene in rapier3d 0.36, the peer the benches and the steadiness tests compare with:
//! [`rapier_of`] builds a rapier world from a minirigid one, body for body and joint for joint.

use geom::Shape;
use geom::{Real, Vector3};
use rapier3d::prelude::{
    ColliderBuilder, PhysicsWorld, RigidBodyBuilder, RigidBodyHandle, SphericalJointBuilder,
};
use world::{BodyHandle, BodyKind, World};

/// How rapier3d finds its contacts. rapier3d 0.36 by default recycles a pair's contacts
/// (`IntegrationParameters::contact_recycling`): while the two bodies' relative pose has moved
/// less than 5 cm (and neither turned more than about 11 degrees) since the pair's last full
/// narrow-phase update, it skips the narrow phase and keeps that update's points, normal and
/// lever arms. minirigid computes every pair's contacts exactly every step; rapier3d does the
/// same work with recycling off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contacts {
    /// rapier3d's default: contacts recycled.
    Recycled,
    /// Every pair's contacts computed every step, as minirigid does.
    Fresh,
}

/// `scene` in rapier3d: the same bodies (cuboids and balls, static or dynamic, collider
/// offsets identity, as in the scenes), masses, materials and poses, the scene's dt, 4 substeps
/// (`num_solver_iterations`, rapier's default, with its other defaults: 30 Hz contacts, 60 Hz
/// against fixed bodies), sleeping as asked and contacts found as `contacts` says; its
/// spherical joints (without limits or friction), as rapier's impulse joints at the same
/// anchors, jointed bodies colliding only with `collide_connected` (other kinds are not
/// carried over: no scene compared so far has them). Returns the rapier world and the dynamic
/// bodies in `scene`'s order.
pub fn rapier_of(
    scene: &World,
    sleeping: bool,
    contacts: Contacts,
) -> (PhysicsWorld, Vec<(BodyHandle, RigidBodyHandle)>) {
    rapier_of_with(scene, sleeping, contacts, false)
}

/// [`rapier_of`], with the static bodies no joint holds inserted as colliders without a body
/// when `parentless_statics` (rapier's idiom for static geometry, which its ports of Box3D's
/// scenes use: a million static boxes cost it less so).
pub fn rapier_of_with(
    scene: &World,
    sleeping: bool,
    contacts: Contacts,
    parentless_statics: bool,
) -> (PhysicsWorld, Vec<(BodyHandle, RigidBodyHandle)>) {
    let mut world = PhysicsWorld::new();
    world.integration_parameters.dt = scene.config().dt;
    world.integration_parameters.num_solver_iterations = 4;
    world.integration_parameters.contact_recycling = contacts == Contacts::Recycled;
    let g = scene.config().gravity;
    world.gravity = rapier3d::glamx::Vec3::new(g.x, g.y, g.z);
    let mut dynamic = Vec::new();
    let mut handles = std::collections::HashMap::new();
    let jointed: std::collections::HashSet<BodyHandle> =
        scene.joints().flat_map(|(_, j)| j.bodies()).collect();
    for (handle, body) in scene.bodies() {
        if parentless_statics && body.kind() == BodyKind::Static && !jointed.contains(&handle) {
            for collider in colliders_of(body, true) {
                world.colliders.insert(collider);
            }
            continue;
        }
        let parent = insert_body(&mut world, body, sleeping);
        handles.insert(handle, parent);
        if body.kind() == BodyKind::Dynamic {
            dynamic.push((handle, parent));
        }
    }
    for (_, joint) in scene.joints() {
        if joint.kind().is_plain_ball() {
            let [a, b] = joint.bodies().map(|h| handles[&h]);
            let [fa, fb] = joint.frames().map(|f| {
                let t = f.translation.vector;
                rapier3d::glamx::Vec3::new(t.x, t.y, t.z)
            });
            let spherical = SphericalJointBuilder::new()
                .local_anchor1(fa)
                .local_anchor2(fb)
                .contacts_enabled(joint.collide_connected());
            world.impulse_joints.insert(a, b, spherical, true);
        }
    }
    (world, dynamic)
}

/// `body` inserted into the rapier world `world`: the same kind (static and kinematic bodies
/// fixed), pose, shape, mass (as a density), friction and restitution. Returns its handle.
pub fn insert_body(
    world: &mut PhysicsWorld,
    body: &world::RigidBody,
    sleeping: bool,
) -> RigidBodyHandle {
    let t = body.pose().translation.vector;
    let r = body.pose().rotation.scaled_axis();
    let builder = match body.kind() {
        BodyKind::Dynamic => RigidBodyBuilder::dynamic().can_sleep(sleeping),
        _ => RigidBodyBuilder::fixed(),
    }
    .translation(rapier3d::glamx::Vec3::new(t.x, t.y, t.z))
    .rotation(rapier3d::glamx::Vec3::new(r.x, r.y, r.z));
    let parent = world.bodies.insert(builder);
    for collider in colliders_of(body, false) {
        world
            .colliders
            .insert_with_parent(collider, parent, &mut world.bodies);
    }
    parent
}

/// A solid shape (a box, a ball, a capsule, a hull: a body's, or a compound's part) in
/// rapier.
fn part_shape(shape: &Shape) -> rapier3d::prelude::SharedShape {
    use rapier3d::prelude::SharedShape;
    match shape {
        Shape::Cuboid { half_extents: e } => SharedShape::cuboid(e.x, e.y, e.z),
        Shape::Ball { radius } => SharedShape::ball(*radius),
        Shape::Capsule {
            half_height,
            radius,
        } => SharedShape::capsule_y(*half_height, *radius),
        Shape::ConvexHull { hull } => {
            let points: Vec<_> = hull
                .vertices()
                .iter()
                .map(|v| rapier3d::glamx::Vec3::new(v.x, v.y, v.z))
                .collect();
            SharedShape::convex_hull(&points).expect("a hull minirigid accepted")
        }
        Shape::Compound { .. } | Shape::TriMesh { .. } | Shape::HeightField { .. } => {
            unreachable!("a solid shape (a compound's parts are solids: geom::Compound::new)")
        }
    }
}

/// `body`'s colliders in rapier: its collider ([`collider_of`]), or one per part of a
/// compound (as rapier's own scenes put several colliders on one body), each of its part's
/// density; at the body's pose when `placed` (colliders without a body).
fn colliders_of(body: &world::RigidBody, placed: bool) -> Vec<rapier3d::prelude::Collider> {
    let Shape::Compound { compound } = &body.collider().shape else {
        return vec![collider_of(body, placed)];
    };
    let frame = if placed {
        body.pose() * body.collider().offset
    } else {
        body.collider().offset
    };
    compound
        .parts()
        .iter()
        .map(|part| {
            let pose = frame * part.offset;
            let t = pose.translation.vector;
            let r = pose.rotation.scaled_axis();
            let collider = ColliderBuilder::new(part_shape(&part.shape))
                .translation(rapier3d::glamx::Vec3::new(t.x, t.y, t.z))
                .rotation(rapier3d::glamx::Vec3::new(r.x, r.y, r.z))
                .friction(body.material().friction)
                .restitution(body.material().restitution);
            if body.kind() == BodyKind::Dynamic {
                collider.density(part.density)
            } else {
                collider
            }
            .build()
        })
        .collect()
}

/// `body`'s collider in rapier: its shape, mass (as a density), friction and restitution; at
/// the body's pose when `placed` (a collider without a body), else at its parent's origin.
fn collider_of(body: &world::RigidBody, placed: bool) -> rapier3d::prelude::Collider {
    let shape = &body.collider().shape;
    let collider = match shape {
        Shape::Cuboid { .. }
        | Shape::Ball { .. }
        | Shape::Capsule { .. }
        | Shape::ConvexHull { .. } => ColliderBuilder::new(part_shape(shape)),
        Shape::Compound { .. } => unreachable!("colliders_of gives a compound's parts"),
        Shape::TriMesh { mesh } => {
            let vertices = mesh
                .vertices()
                .iter()
                .map(|v| rapier3d::glamx::Vec3::new(v.x, v.y, v.z))
                .collect();
            ColliderBuilder::trimesh(vertices, mesh.triangles().to_vec())
                .expect("a mesh minirigid accepted")
        }
        Shape::HeightField { field } => {
            // Rapier's grid is column-major, rows along z and columns along x, as ours.
            let (rows, columns) = (field.rows() as usize, field.columns() as usize);
            let heights = field.heights();
            let data = (0..columns)
                .flat_map(|c| (0..rows).map(move |r| heights[r * columns + c]))
                .collect();
            let s = field.scale();
            ColliderBuilder::heightfield(
                rapier3d::parry::utils::Array2::new(rows, columns, data),
                rapier3d::glamx::Vec3::new(s.x, s.y, s.z),
            )
        }
    }
    .friction(body.material().friction)
    .restitution(body.material().restitution);
    let collider = if body.kind() == BodyKind::Dynamic {
        collider.density(body.mass() / shape.volume())
    } else {
        collider
    };
    if placed {
        let t = body.pose().translation.vector;
        let r = body.pose().rotation.scaled_axis();
        collider
            .translation(rapier3d::glamx::Vec3::new(t.x, t.y, t.z))
            .rotation(rapier3d::glamx::Vec3::new(r.x, r.y, r.z))
            .build()
    } else {
        collider.build()
    }
}

/// The pose of rapier body `handle` as minirigid's types: its translation and its unit
/// quaternion.
pub fn rapier_pose(peer: &PhysicsWorld, handle: RigidBodyHandle) -> geom::Isometry3 {
    let body = &peer.bodies[handle];
    let t = body.translation();
    let q = body.rotation();
    geom::Isometry3::from_parts(
        geom::na::Translation3::new(t.x, t.y, t.z),
        geom::UnitQuaternion::new_unchecked(geom::Quaternion::new(
            q.w as Real,
            q.x as Real,
            q.y as Real,
            q.z as Real,
        )),
    )
}

/// A vector of `Vector3`'s type from rapier's.
pub fn vector(v: rapier3d::glamx::Vec3) -> Vector3 {
    Vector3::new(v.x, v.y, v.z)
}
