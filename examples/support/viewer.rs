//! A small viewer for a `World`: every body drawn from its `Visual`, with one instanced scene
//! node per shape kind (one unit cube, one unit sphere, one node per distinct mesh), so that
//! memory stays flat as bodies are added. The nodes are filled from the world every frame, so a
//! world replaced by a reset or a loaded snapshot is drawn as it is, with nothing to rebuild.

use super::stage::{Advance, Pacing, Stage};
use super::{Options, color, vec3};
use kiss3d::prelude::*;
use minirigid::prelude::{
    BodyHandle, BodyKind, Isometry3, Point3, Ray, Real, Shape, Surface, Vector3, VisualShape, World,
};

use minirigid::geom::Triangle;
use std::path::Path;

/// Sleeping bodies are drawn at this fraction of their colour.
const SLEEPING_SHADE: Real = 0.35;

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
    /// Each distinct capsule (half height, radius), a mesh of its own: a capsule does not
    /// scale into another.
    capsules: Vec<((Real, Real), Instanced)>,
    /// Each distinct vertex list of a mesh visual, drawn as its convex hull.
    meshes: Vec<(Vec<Point3>, Instanced)>,
    /// Each distinct triangle mesh or heightfield collider (by its digest), drawn as it is.
    surfaces: Vec<(u64, Instanced)>,
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
            capsules: Vec::new(),
            meshes: Vec::new(),
            surfaces: Vec::new(),
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
            let shade = if body.is_sleeping() {
                SLEEPING_SHADE
            } else {
                1.0
            };
            let rgb = visual.color.map(|c| c * shade);
            let collider_pose = body.collider().world_pose(body.pose());
            let (target, scale) = match (&visual.shape, &body.collider().shape) {
                (
                    VisualShape::Collider,
                    shape @ (Shape::TriMesh { .. } | Shape::HeightField { .. }),
                ) => {
                    let (digest, triangles) = surface_triangles(shape);
                    let at = match self.surfaces.iter().position(|(d, _)| *d == digest) {
                        Some(at) => at,
                        None => {
                            let node = triangles_node(scene, &triangles);
                            self.surfaces.push((digest, Instanced::new(node)));
                            self.surfaces.len() - 1
                        }
                    };
                    self.surfaces[at].1.instances.push(instance_at(
                        &collider_pose,
                        Vec3::ONE,
                        color(rgb),
                    ));
                    continue;
                }
                (VisualShape::Collider, Shape::Compound { compound }) => {
                    for part in compound.parts() {
                        let pose = collider_pose * part.offset;
                        self.push_solid(scene, &part.shape, &pose, rgb);
                    }
                    continue;
                }
                (VisualShape::Collider, shape) => {
                    self.push_solid(scene, shape, &collider_pose, rgb);
                    continue;
                }
                (VisualShape::Cuboid { half_extents }, _) => {
                    (&mut self.cubes, vec3(half_extents) * 2.0)
                }
                (VisualShape::Ball { radius }, _) => (&mut self.balls, Vec3::splat(*radius)),
                (
                    VisualShape::Capsule {
                        half_height,
                        radius,
                    },
                    _,
                ) => (self.capsule(scene, *half_height, *radius), Vec3::ONE),
                (VisualShape::Mesh { vertices }, _) => (self.mesh(scene, vertices), Vec3::ONE),
            };
            target
                .instances
                .push(instance_at(body.pose(), scale, color(rgb)));
        }
        self.cubes.flush(eye);
        self.balls.flush(eye);
        let capsules = self.capsules.iter_mut().map(|(_, node)| node);
        for node in capsules.chain(self.meshes.iter_mut().map(|(_, node)| node)) {
            node.flush(eye);
        }
        for (_, surface) in &mut self.surfaces {
            surface.flush(eye);
        }
    }
}

impl Bodies {
    /// The node of capsules of this size, made on first use.
    fn capsule(
        &mut self,
        scene: &mut SceneNode3d,
        half_height: Real,
        radius: Real,
    ) -> &mut Instanced {
        let key = (half_height, radius);
        let at = match self.capsules.iter().position(|(k, _)| *k == key) {
            Some(at) => at,
            None => {
                let node = scene.add_capsule_with_subdiv(radius, 2.0 * half_height, 24, 8);
                self.capsules.push((key, Instanced::new(node)));
                self.capsules.len() - 1
            }
        };
        &mut self.capsules[at].1
    }

    /// The node of the hull of these vertices, made on first use.
    fn mesh(&mut self, scene: &mut SceneNode3d, vertices: &[Point3]) -> &mut Instanced {
        let at = match self.meshes.iter().position(|(v, _)| v == vertices) {
            Some(at) => at,
            None => {
                let node = Instanced::new(hull_node(scene, vertices));
                self.meshes.push((vertices.to_vec(), node));
                self.meshes.len() - 1
            }
        };
        &mut self.meshes[at].1
    }

    /// A solid collider shape (a box, a ball, a capsule, a hull) drawn at `pose`.
    fn push_solid(
        &mut self,
        scene: &mut SceneNode3d,
        shape: &Shape,
        pose: &Isometry3,
        rgb: [Real; 3],
    ) {
        let (target, scale) = match shape {
            Shape::Cuboid { half_extents } => (&mut self.cubes, vec3(half_extents) * 2.0),
            Shape::Ball { radius } => (&mut self.balls, Vec3::splat(*radius)),
            Shape::Capsule {
                half_height,
                radius,
            } => (self.capsule(scene, *half_height, *radius), Vec3::ONE),
            Shape::ConvexHull { hull } => (self.mesh(scene, hull.vertices()), Vec3::ONE),
            Shape::Compound { .. } | Shape::TriMesh { .. } | Shape::HeightField { .. } => return,
        };
        target.instances.push(instance_at(pose, scale, color(rgb)));
    }
}

/// A pose as an instance: `deformation = R diag(scale)`, `position` its origin.
fn instance_at(pose: &Isometry3, scale: Vec3, color: Color) -> InstanceData3d {
    let rotation = Mat3::from_quat(Quat::from(pose.rotation));
    InstanceData3d {
        position: vec3(&pose.translation.vector),
        deformation: rotation * Mat3::from_diagonal(scale),
        color,
        ..Default::default()
    }
}

/// A surface collider's digest and its triangles' corners (collider frame).
fn surface_triangles(shape: &Shape) -> (u64, Vec<[Vec3; 3]>) {
    let corners = |t: Triangle| t.vertices.map(|p| vec3(&p.coords));
    match shape {
        Shape::TriMesh { mesh } => (
            mesh.digest(),
            (0..mesh.triangles().len() as u32)
                .map(|t| corners(mesh.triangle(t)))
                .collect(),
        ),
        Shape::HeightField { field } => {
            let count = 2 * (field.rows() - 1) * (field.columns() - 1);
            (
                field.digest(),
                (0..count).map(|t| corners(field.triangle(t))).collect(),
            )
        }
        Shape::Cuboid { .. }
        | Shape::Ball { .. }
        | Shape::Capsule { .. }
        | Shape::ConvexHull { .. }
        | Shape::Compound { .. } => (0, Vec::new()),
    }
}

/// Triangles as a flat-shaded node, each with its own three vertices.
fn triangles_node(scene: &mut SceneNode3d, triangles: &[[Vec3; 3]]) -> SceneNode3d {
    let coords: Vec<Vec3> = triangles.iter().flatten().copied().collect();
    let faces = (0..triangles.len() as u32)
        .map(|t| [3 * t, 3 * t + 1, 3 * t + 2])
        .collect();
    let mesh = GpuMesh3d::new(coords, faces, None, None, false);
    scene.add_mesh(std::rc::Rc::new(std::cell::RefCell::new(mesh)), Vec3::ONE)
}

/// The convex hull of a mesh visual's vertices (body frame) as a node, flat-shaded: each
/// triangle gets its own three vertices. A flat or degenerate vertex list, which has no
/// hull, is drawn as its bounding box.
fn hull_node(scene: &mut SceneNode3d, vertices: &[Point3]) -> SceneNode3d {
    let points: Vec<Vec3> = vertices.iter().map(|p| vec3(&p.coords)).collect();
    match parry3d::transformation::try_convex_hull(&points) {
        Ok((hull, triangles)) if !triangles.is_empty() => {
            let corners: Vec<[Vec3; 3]> = triangles
                .iter()
                .map(|t| t.map(|i| hull[i as usize]))
                .collect();
            triangles_node(scene, &corners)
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

/// A body held by the mouse: it follows the cursor on the plane through the grabbed point
/// that faces the camera, through a velocity target, so that it still collides.
#[derive(Debug, Clone, Copy)]
pub struct Grab {
    /// The body held.
    pub handle: BodyHandle,
    /// The grabbed point, body frame.
    anchor: Point3,
    /// Where the grabbed point was when it was picked (world).
    pub start: Point3,
    /// The distance from the camera to the grabbed point along the view direction.
    depth: f32,
    /// Where the grabbed point is pulled to (world).
    pub target: Point3,
}

/// How fast a grabbed point closes on its target: the gap is closed at this rate (1/s), at
/// most [`GRAB_MAX_SPEED`].
const GRAB_RATE: Real = 10.0;
/// The fastest a grabbed body is pulled, m/s.
const GRAB_MAX_SPEED: Real = 20.0;

/// A world example's frame: the stage, a lit scene with an orbit camera, the bodies, the
/// pacing (Space, S), the mouse grab (left button; the right button orbits, the middle one
/// pans), contact drawing (C), with the step time measured.
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
    /// Off-screen, how many steps each frame runs (`--steps-per-frame`, default 1).
    steps_per_frame: usize,
    step_ms: f64,
    /// Whether contact points and normals are drawn (C).
    pub draw_contacts: bool,
    /// The body the mouse holds, if any.
    pub grab: Option<Grab>,
    cursor: Vec2,
    /// A left-button press not handled yet (picking needs the world).
    press: bool,
    /// `--grab X,Y --drag X,Y`: a scripted grab for off-screen runs (pixels).
    script: Option<(Vec2, Vec2)>,
}

impl Viewer {
    /// The options a viewer reads, for [`Options::parse`].
    pub const OPTIONS: [&str; 3] = ["steps-per-frame", "grab", "drag"];

    /// Opens the display with the camera at `eye` looking at `at`, lit from above the eye.
    pub async fn open(title: &str, options: Options, eye: Vec3, at: Vec3) -> Self {
        let steps_per_frame = options
            .numbers("steps-per-frame", 1)
            .map_or(1, |v| v[0].clamp(1.0, 1000.0) as usize);
        let script = match (options.numbers("grab", 2), options.numbers("drag", 2)) {
            (Some(g), Some(d)) => Some((Vec2::new(g[0], g[1]), Vec2::new(d[0], d[1]))),
            (Some(g), None) => Some((Vec2::new(g[0], g[1]), Vec2::new(g[0], g[1]))),
            _ => None,
        };
        let stage = Stage::open(title, options, 1024, 576).await;
        let mut scene = SceneNode3d::empty();
        let distance = (eye - at).length();
        scene
            .add_light(Light::point(5.0 * distance * distance))
            .set_position(eye + Vec3::new(0.0, 0.8 * distance, 0.0));
        let bodies = Bodies::new(&mut scene);
        let mut camera = OrbitCamera3d::new(eye, at);
        // The left button grabs bodies.
        camera.rebind_rotate_button(Some(MouseButton::Button2));
        camera.rebind_drag_button(Some(MouseButton::Button3));
        Self {
            stage,
            scene,
            camera,
            bodies,
            pacing: Pacing::default(),
            real_time: true,
            steps_per_frame,
            step_ms: 0.0,
            draw_contacts: false,
            grab: None,
            cursor: Vec2::ZERO,
            press: false,
            script,
        }
    }

    /// This frame's keys that the viewer did not take (it takes Space, S and C), after
    /// reading the mouse.
    pub fn keys(&mut self) -> Vec<Key> {
        let (keys, mouse) = self.stage.input();
        for event in mouse {
            match event {
                WindowEvent::CursorPos(x, y, _) => self.cursor = Vec2::new(x as f32, y as f32),
                WindowEvent::MouseButton(MouseButton::Button1, Action::Press, _) => {
                    self.press = true;
                }
                WindowEvent::MouseButton(MouseButton::Button1, Action::Release, _) => {
                    self.press = false;
                    self.grab = None;
                }
                _ => {}
            }
        }
        let mut rest = Vec::new();
        for (key, action, _) in keys {
            if self.pacing.key(key, action) || action != Action::Press {
                continue;
            }
            match key {
                Key::C => self.draw_contacts = !self.draw_contacts,
                _ => rest.push(key),
            }
        }
        rest
    }

    /// The ray from the camera through the mouse cursor.
    pub fn cursor_ray(&self) -> Ray {
        self.ray_through(self.cursor)
    }

    /// The ray from the camera through the middle of the view.
    pub fn view_ray(&self) -> Ray {
        let eye = self.camera.eye();
        Ray::new(Point3::from(eye), Vector3::from(self.view_direction()))
    }

    /// The unit direction the camera looks in.
    fn view_direction(&self) -> Vec3 {
        (self.camera.at() - self.camera.eye()).normalize()
    }

    /// The ray from the camera through a pixel.
    fn ray_through(&self, pixel: Vec2) -> Ray {
        let size = self.stage.window_size();
        let (origin, direction) = self.camera.unproject(pixel, size);
        Ray::new(Point3::from(origin), Vector3::from(direction).normalize())
    }

    /// Picks the dynamic body under `pixel`, if any, and holds it.
    fn pick(&mut self, world: &World, pixel: Vec2) {
        let ray = self.ray_through(pixel);
        self.grab = world
            .cast_ray(&ray, 1e4)
            .filter(|(handle, _)| {
                world
                    .body(*handle)
                    .is_some_and(|b| b.kind() == BodyKind::Dynamic)
            })
            .and_then(|(handle, hit)| {
                let body = world.body(handle)?;
                let point = ray.origin + ray.dir * hit.toi;
                let depth = (vec3(&point.coords) - self.camera.eye()).dot(self.view_direction());
                Some(Grab {
                    handle,
                    anchor: body.pose().inverse_transform_point(&point),
                    start: point,
                    depth,
                    target: point,
                })
            });
    }

    /// Moves the grab's target to where the cursor meets its plane and pulls the body there.
    fn pull(&mut self, world: &mut World) {
        let Some(mut grab) = self.grab else {
            return;
        };
        let ray = self.ray_through(self.cursor);
        let view = self.view_direction();
        let along = vec3(&ray.dir).dot(view);
        if along > 1e-3 {
            let to_plane =
                (grab.depth - (vec3(&ray.origin.coords) - self.camera.eye()).dot(view)) / along;
            grab.target = ray.origin + ray.dir * to_plane;
        }
        self.grab = match world.body_mut(grab.handle) {
            Some(body) => {
                let anchor = body.pose() * grab.anchor;
                let mut velocity = (grab.target - anchor) * GRAB_RATE;
                if velocity.norm() > GRAB_MAX_SPEED {
                    velocity *= GRAB_MAX_SPEED / velocity.norm();
                }
                let spin = body.angvel() * 0.9;
                // Finite by construction; a failure would leave the body as it was.
                let _ = body.set_linvel(velocity);
                let _ = body.set_angvel(spin);
                Some(grab)
            }
            None => None,
        };
    }

    /// Steps `world` as the pacing says, timing the steps; a held body is pulled first.
    pub fn advance(&mut self, world: &mut World) {
        self.advance_with(world, |_| {});
    }

    /// [`Self::advance`], calling `before_step` before each step (in real time, before each
    /// call of `World::advance`, which may take several: scenes that change the world at
    /// given steps set `real_time` to `false`).
    pub fn advance_with(&mut self, world: &mut World, mut before_step: impl FnMut(&mut World)) {
        if let Some((at, to)) = self.script
            && self.stage.is_headless()
        {
            // The scripted grab: pressed at `at` on the first frame, dragged to `to`.
            if self.stage.frame() == 1 {
                self.pick(world, at);
            }
            self.cursor = to;
        } else if std::mem::take(&mut self.press) {
            let cursor = self.cursor;
            self.pick(world, cursor);
        }
        self.pull(world);
        let start = std::time::Instant::now();
        let steps = match self.pacing.advance(&self.stage) {
            Advance::Nothing => 0,
            Advance::One => {
                let steps = if self.stage.is_headless() {
                    self.steps_per_frame
                } else {
                    1
                };
                for _ in 0..steps {
                    before_step(world);
                    world.step();
                }
                steps
            }
            Advance::Seconds(_) if !self.real_time => {
                before_step(world);
                world.step();
                1
            }
            Advance::Seconds(seconds) => {
                before_step(world);
                world.advance(seconds)
            }
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
                    self.grab = None;
                    format!("loaded {name}")
                }
                Err(e) => format!("load failed: {e}"),
            },
            _ => return false,
        };
        true
    }

    /// The line of keys every world example shares.
    pub fn help(&self) -> String {
        format!(
            "Space pause   S step   C contacts ({})   left drag: grab   right drag: orbit",
            if self.draw_contacts { "on" } else { "off" }
        )
    }

    /// Draws `world` and `lines`, renders, counts the frame; `false` when the example should
    /// stop.
    pub async fn show(&mut self, world: &World, lines: &[String]) -> bool {
        let eye = self.camera.eye();
        self.bodies.sync(&mut self.scene, world, eye);
        let window = self.stage.window();
        if self.draw_contacts {
            for pair in world.contacts() {
                let n = vec3(&pair.contact.normal);
                for point in &pair.contact.points {
                    let at = vec3(&point.position.coords);
                    window.draw_point(at, YELLOW, 8.0);
                    window.draw_line(at, at + n * 0.4, WHITE, 2.0, false);
                }
            }
        }
        // Joints: each body's centre to its anchor, and the two anchors (apart only when the
        // joint stretches or is a distance joint).
        for (handle, joint) in world.joints() {
            let Ok(reading) = world.joint_reading(handle) else {
                continue;
            };
            for (body, anchor) in joint.bodies().iter().zip(&reading.anchors) {
                if let Some(body) = world.body(*body) {
                    let center = vec3(&body.position().coords);
                    window.draw_line(center, vec3(&anchor.coords), ORANGE, 2.0, false);
                }
                window.draw_point(vec3(&anchor.coords), ORANGE, 6.0);
            }
            let [a, b] = reading.anchors.map(|p| vec3(&p.coords));
            window.draw_line(a, b, ORANGE, 3.0, false);
        }
        if let Some(grab) = &self.grab
            && let Some(body) = world.body(grab.handle)
        {
            let anchor = vec3(&(body.pose() * grab.anchor).coords);
            window.draw_line(anchor, vec3(&grab.target.coords), CYAN, 3.0, false);
        }
        self.stage.text(lines);
        self.stage
            .present_3d(&mut self.scene, &mut self.camera)
            .await
    }

    /// For tests of off-screen runs: the grab, as `key=value` lines on standard output.
    pub fn report_grab(&self, world: &World, before: &[(BodyHandle, Point3)]) {
        let Some(grab) = &self.grab else {
            println!("grabbed=none");
            return;
        };
        let Some(body) = world.body(grab.handle) else {
            return;
        };
        let anchor = body.pose() * grab.anchor;
        let others = before
            .iter()
            .filter(|(h, _)| *h != grab.handle)
            .filter_map(|(h, p)| Some((world.body(*h)?.position() - p).norm()))
            .fold(0.0, Real::max);
        println!("grabbed={:?}", grab.handle);
        println!("grab_start_gap={}", (grab.target - grab.start).norm());
        println!("grab_end_gap={}", (grab.target - anchor).norm());
        println!("others_moved_max={others}");
    }
}
