//! A small viewer for a `World`: every body drawn from its `Visual`, with one instanced scene
//! node per shape kind (one unit cube, one unit sphere, one node per distinct mesh), so that
//! memory stays flat as bodies are added. The nodes are filled from the world every frame, so a
//! world replaced by a reset or a loaded snapshot is drawn as it is, with nothing to rebuild.

use super::stage::{Advance, Pacing, Stage};
use super::{Options, color, vec3};
use kiss3d::prelude::*;
use minirigid::prelude::{BodyKind, Point3, RigidBody, VisualShape, World};
use std::path::Path;

/// One shared mesh drawn once per body that uses it.
struct Instanced {
    node: SceneNode3d,
    instances: Vec<InstanceData3d>,
}

impl Instanced {
    fn new(node: SceneNode3d) -> Self {
        Self {
            node,
            instances: Vec::new(),
        }
    }

    /// Hands this frame's instances to the GPU side, nearest to `eye` first (hidden surfaces
    /// then fail the depth test before they are shaded, which a software renderer feels);
    /// hides the node when there are none.
    fn flush(&mut self, eye: Vec3) {
        self.instances.sort_by(|p, q| {
            (p.position - eye)
                .length_squared()
                .total_cmp(&(q.position - eye).length_squared())
        });
        self.node.set_visible(!self.instances.is_empty());
        if !self.instances.is_empty() {
            self.node.set_instances(&self.instances);
        }
        self.instances.clear();
    }
}

/// The scene nodes that draw a world's bodies.
pub struct Bodies {
    /// A cube of side 1, scaled per body to its half extents.
    cubes: Instanced,
    /// A sphere of radius 1 (24 x 16 faces), scaled per body to its radius.
    balls: Instanced,
    /// Each distinct vertex list of a mesh visual, drawn as its convex hull.
    meshes: Vec<(Vec<Point3>, Instanced)>,
    /// Whether static bodies are drawn (walls and floors can hide the scene).
    pub draw_static: bool,
}

impl Bodies {
    /// Adds the shared nodes to `scene` (the display must exist already).
    pub fn new(scene: &mut SceneNode3d) -> Self {
        Self {
            cubes: Instanced::new(scene.add_cube(1.0, 1.0, 1.0)),
            // kiss3d's default sphere has 50 x 50 faces; a software renderer's memory and time
            // grow with the triangles it bins (about 0.3 MB a ball under llvmpipe at 50 x 50).
            balls: Instanced::new(scene.add_sphere_with_subdiv(1.0, 24, 16)),
            meshes: Vec::new(),
            draw_static: true,
        }
    }

    /// Poses, sizes and colours every body of `world` for the next frame.
    pub fn sync(&mut self, scene: &mut SceneNode3d, world: &World, eye: Vec3) {
        for (_, body) in world.bodies() {
            if body.kind() == BodyKind::Static && !self.draw_static {
                continue;
            }
            let visual = body.visual();
            let (target, scale) = match &visual.shape {
                VisualShape::Cuboid { half_extents } => (&mut self.cubes, vec3(half_extents) * 2.0),
                VisualShape::Ball { radius } => (&mut self.balls, Vec3::splat(*radius)),
                VisualShape::Mesh { vertices } => {
                    let at = match self.meshes.iter().position(|(v, _)| v == vertices) {
                        Some(at) => at,
                        None => {
                            self.meshes.push((
                                vertices.clone(),
                                Instanced::new(hull_node(scene, vertices)),
                            ));
                            self.meshes.len() - 1
                        }
                    };
                    (&mut self.meshes[at].1, Vec3::ONE)
                }
            };
            target
                .instances
                .push(instance(body, scale, color(visual.color)));
        }
        self.cubes.flush(eye);
        self.balls.flush(eye);
        for (_, mesh) in &mut self.meshes {
            mesh.flush(eye);
        }
    }
}

/// A body's pose as an instance: `deformation = R diag(scale)`, `position` its origin.
fn instance(body: &RigidBody, scale: Vec3, color: Color) -> InstanceData3d {
    let pose = body.pose();
    let rotation = Mat3::from_quat(Quat::from(pose.rotation));
    InstanceData3d {
        position: vec3(&pose.translation.vector),
        deformation: rotation * Mat3::from_diagonal(scale),
        color,
        ..Default::default()
    }
}

/// The convex hull of a mesh visual's vertices (body frame) as a node, flat-shaded: each
/// triangle gets its own three vertices. A flat or degenerate vertex list, which has no
/// hull, is drawn as its bounding box.
fn hull_node(scene: &mut SceneNode3d, vertices: &[Point3]) -> SceneNode3d {
    let points: Vec<Vec3> = vertices.iter().map(|p| vec3(&p.coords)).collect();
    match parry3d::transformation::try_convex_hull(&points) {
        Ok((hull, triangles)) if !triangles.is_empty() => {
            let coords: Vec<Vec3> = triangles
                .iter()
                .flat_map(|t| t.map(|i| hull[i as usize]))
                .collect();
            let faces = (0..triangles.len() as u32)
                .map(|t| [3 * t, 3 * t + 1, 3 * t + 2])
                .collect();
            let mesh = GpuMesh3d::new(coords, faces, None, None, false);
            scene.add_mesh(std::rc::Rc::new(std::cell::RefCell::new(mesh)), Vec3::ONE)
        }
        _ => {
            let (lo, hi) = points.iter().fold(
                (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
                |(lo, hi), p| (lo.min(*p), hi.max(*p)),
            );
            let size = (hi - lo).max(Vec3::splat(1e-3));
            let mut node = scene.add_cube(size.x, size.y, size.z);
            node.set_position((lo + hi) * 0.5);
            node
        }
    }
}

/// A world example's frame: the stage, a lit scene with an orbit camera, the bodies, and the
/// pacing (Space, S), with the step time measured.
pub struct Viewer {
    /// Display, text and frame count.
    pub stage: Stage,
    /// The scene the bodies are drawn in; examples may add their own nodes.
    pub scene: SceneNode3d,
    /// The mouse orbits it.
    pub camera: OrbitCamera3d,
    /// The bodies' nodes.
    pub bodies: Bodies,
    /// Space and S.
    pub pacing: Pacing,
    /// In a window, `true` runs the world in real time (`World::advance`), `false` one step
    /// per frame (for scenes whose step is slower than a frame).
    pub real_time: bool,
    step_ms: f64,
}

impl Viewer {
    /// Opens the display with the camera at `eye` looking at `at`, lit from above the eye.
    pub async fn open(title: &str, options: Options, eye: Vec3, at: Vec3) -> Self {
        let stage = Stage::open(title, options, 1024, 576).await;
        let mut scene = SceneNode3d::empty();
        let distance = (eye - at).length();
        scene
            .add_light(Light::point(8.0 * distance * distance))
            .set_position(eye + Vec3::new(0.0, 0.8 * distance, 0.0));
        let bodies = Bodies::new(&mut scene);
        Self {
            stage,
            scene,
            camera: OrbitCamera3d::new(eye, at),
            bodies,
            pacing: Pacing::default(),
            real_time: true,
            step_ms: 0.0,
        }
    }

    /// This frame's keys that the viewer did not take (it takes Space and S).
    pub fn keys(&mut self) -> Vec<Key> {
        let (keys, _) = self.stage.input();
        keys.into_iter()
            .filter(|&(key, action, _)| !self.pacing.key(key, action))
            .filter(|&(_, action, _)| action == Action::Press)
            .map(|(key, _, _)| key)
            .collect()
    }

    /// Steps `world` as the pacing says, timing the steps.
    pub fn advance(&mut self, world: &mut World) {
        let start = std::time::Instant::now();
        let steps = match self.pacing.advance(&self.stage) {
            Advance::Nothing => 0,
            Advance::One => {
                world.step();
                1
            }
            Advance::Seconds(_) if !self.real_time => {
                world.step();
                1
            }
            Advance::Seconds(seconds) => world.advance(seconds),
        };
        if steps > 0 {
            let ms = start.elapsed().as_secs_f64() * 1e3 / steps as f64;
            self.step_ms = if self.step_ms == 0.0 {
                ms
            } else {
                0.9 * self.step_ms + 0.1 * ms
            };
        }
    }

    /// The mean time of a step lately (milliseconds).
    pub fn step_ms(&self) -> f64 {
        self.step_ms
    }

    /// F5 saves `world` to `file`, F9 replaces it with the file's; `false` for other keys.
    /// The status line says what happened.
    pub fn snapshot_key(&mut self, key: Key, world: &mut World, file: &Path) -> bool {
        let name = file.display();
        self.stage.status = match key {
            Key::F5 => match world.save(file) {
                Ok(()) => format!("saved {name}"),
                Err(e) => format!("save failed: {e}"),
            },
            Key::F9 => match World::load(file) {
                Ok(loaded) => {
                    *world = loaded;
                    format!("loaded {name}")
                }
                Err(e) => format!("load failed: {e}"),
            },
            _ => return false,
        };
        true
    }

    /// Draws `world` and `lines`, renders, counts the frame; `false` when the example should
    /// stop.
    pub async fn show(&mut self, world: &World, lines: &[String]) -> bool {
        let eye = self.camera.eye();
        self.bodies.sync(&mut self.scene, world, eye);
        self.stage.text(lines);
        self.stage
            .present_3d(&mut self.scene, &mut self.camera)
            .await
    }
}
