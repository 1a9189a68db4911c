//! The character example's level, shared by the example and its render test: a floor with a
//! 30 degree ramp, a flight of 0.25 m steps, a wall, crates to push, a platform that carries
//! the character across a gap and back, and a trigger (a sensor) that lights up while the
//! character is inside it. [`Level::frame`] runs one frame: the character moved by the
//! controller from the input, the platform driven by its target, the world stepped, the
//! trigger coloured by its sensor events.

use geom::{Isometry3, Point3, Real, UnitQuaternion, Vector3};
use world::{
    BodyDesc, BodyHandle, CharacterConfig, CharacterController, SensorEvent, World, WorldConfig,
};

/// The character's capsule: half height and radius (metres).
pub const CAPSULE: (Real, Real) = (0.5, 0.3);
/// How fast the character walks (m/s).
pub const WALK_SPEED: Real = 3.0;

const TRIGGER_OFF: [Real; 3] = [0.35, 0.35, 0.8];
const TRIGGER_ON: [Real; 3] = [1.0, 0.85, 0.2];

/// The level and its moving parts.
pub struct Level {
    /// The world.
    pub world: World,
    /// The character's kinematic capsule and its controller.
    pub character: BodyHandle,
    /// Moves the character.
    pub controller: CharacterController,
    /// The kinematic platform.
    pub platform: BodyHandle,
    /// The sensor that lights up.
    pub trigger: BodyHandle,
    /// The crates.
    pub crates: Vec<BodyHandle>,
    /// Whether the character is in the trigger.
    pub inside: bool,
    /// How many times the character entered the trigger.
    pub entered: u32,
    /// The character's fall speed (m/s, negative down; 0 on the ground).
    fall: Real,
    /// Whether the last move ended on the ground.
    pub grounded: bool,
}

/// Where the platform is at time `t` (seconds): across the gap from x = 8 to x = 14 and back,
/// 8 s a round trip, eased at the ends.
pub fn platform_pose(t: Real) -> Isometry3 {
    let phase = (t * std::f32::consts::TAU / 8.0).cos();
    Isometry3::translation(11.0 - 3.0 * phase, 0.75, -6.0)
}

impl Level {
    /// The level with the character at the start.
    pub fn new() -> Self {
        let mut world = World::new(WorldConfig::default());
        let floor = [0.45, 0.45, 0.5];
        // The floor, in two halves either side of the gap the platform crosses.
        world
            .insert(
                BodyDesc::fixed()
                    .cuboid(Vector3::new(10.0, 0.5, 12.0))
                    .position(Vector3::new(-3.0, -0.5, 0.0))
                    .color(floor),
            )
            .expect("a valid floor");
        world
            .insert(
                BodyDesc::fixed()
                    .cuboid(Vector3::new(3.0, 0.5, 12.0))
                    .position(Vector3::new(19.0, -0.5, 0.0))
                    .color(floor),
            )
            .expect("a valid floor");
        // A 30 degree ramp up to a landing, along +z.
        let angle = (30.0 as Real).to_radians();
        let normal = Vector3::new(0.0, angle.cos(), -angle.sin());
        let along = Vector3::new(0.0, angle.sin(), angle.cos());
        world
            .insert(
                BodyDesc::fixed()
                    .cuboid(Vector3::new(1.5, 0.25, 3.0))
                    .rotation(UnitQuaternion::from_euler_angles(-angle, 0.0, 0.0))
                    .position(-normal * 0.25 + along * 3.0 + Vector3::new(-6.0, 0.0, 2.0))
                    .color([0.55, 0.5, 0.45]),
            )
            .expect("a valid ramp");
        let landing_height = 6.0 * angle.sin();
        world
            .insert(
                BodyDesc::fixed()
                    .cuboid(Vector3::new(1.5, landing_height / 2.0, 1.5))
                    .position(Vector3::new(
                        -6.0,
                        landing_height / 2.0,
                        2.0 + 6.0 * angle.cos() + 1.5,
                    ))
                    .color([0.55, 0.5, 0.45]),
            )
            .expect("a valid landing");
        // A flight of four 0.25 m steps, along +x.
        for k in 0..4 {
            let height = 0.25 * (k + 1) as Real;
            world
                .insert(
                    BodyDesc::fixed()
                        .cuboid(Vector3::new(0.4, height / 2.0, 1.5))
                        .position(Vector3::new(1.0 + 0.8 * k as Real, height / 2.0, 4.0))
                        .color([0.6, 0.55, 0.5]),
                )
                .expect("a valid step");
        }
        // A wall along the back.
        world
            .insert(
                BodyDesc::fixed()
                    .cuboid(Vector3::new(10.0, 1.5, 0.25))
                    .position(Vector3::new(-3.0, 1.5, -11.0))
                    .color([0.5, 0.5, 0.55]),
            )
            .expect("a valid wall");
        let crates = (0..3)
            .map(|k| {
                world
                    .insert(
                        BodyDesc::dynamic()
                            .cuboid(Vector3::repeat(0.4))
                            .density(100.0)
                            .position(Vector3::new(-2.0 + 1.2 * k as Real, 0.4, -3.0))
                            .color([0.75, 0.55, 0.3]),
                    )
                    .expect("a valid crate")
            })
            .collect();
        let platform = world
            .insert(
                BodyDesc::kinematic()
                    .cuboid(Vector3::new(1.5, 0.25, 1.5))
                    .pose(platform_pose(0.0))
                    .color([0.3, 0.6, 0.4]),
            )
            .expect("a valid platform");
        let trigger = world
            .insert(
                BodyDesc::fixed()
                    .cuboid(Vector3::new(1.0, 1.0, 1.0))
                    .position(Vector3::new(4.0, 1.0, -3.0))
                    .sensor()
                    .color(TRIGGER_OFF),
            )
            .expect("a valid trigger");
        let (half_height, radius) = CAPSULE;
        let character = world
            .insert(
                BodyDesc::kinematic()
                    .capsule(half_height, radius)
                    .position(Vector3::new(0.0, half_height + radius + 0.01, 0.0))
                    .color([0.85, 0.3, 0.3]),
            )
            .expect("a valid character");
        let controller =
            CharacterController::new(CharacterConfig::default()).expect("valid settings");
        Self {
            world,
            character,
            controller,
            platform,
            trigger,
            crates,
            inside: false,
            entered: 0,
            fall: 0.0,
            grounded: false,
        }
    }

    /// One frame: the character moved along `input` (a horizontal direction, at most unit
    /// long, times the walking speed) and by its fall, the platform to its next pose, one step,
    /// the trigger's colour from its sensor events.
    pub fn frame(&mut self, input: Vector3) {
        let dt = self.world.config().dt;
        let walk = Vector3::new(input.x, 0.0, input.z);
        let walk = if walk.norm() > 1.0 {
            walk.normalize()
        } else {
            walk
        };
        let desired = walk * (WALK_SPEED * dt) + Vector3::y() * (self.fall * dt);
        let moved = self
            .controller
            .move_character(&mut self.world, self.character, desired)
            .expect("a valid move");
        self.grounded = moved.grounded;
        self.fall = if moved.grounded {
            0.0
        } else {
            (self.fall - 9.81 * dt).max(-50.0)
        };
        let t = (self.world.step_count() + 1) as Real * dt;
        self.world
            .body_mut(self.platform)
            .expect("the platform")
            .set_target_pose(platform_pose(t))
            .expect("a valid pose");
        self.world.step();
        for event in self.world.sensor_events() {
            match *event {
                SensorEvent::Begin { sensor, visitor }
                    if sensor == self.trigger && visitor == self.character =>
                {
                    self.inside = true;
                    self.entered += 1;
                }
                SensorEvent::End { sensor, visitor }
                    if sensor == self.trigger && visitor == self.character =>
                {
                    self.inside = false;
                }
                _ => {}
            }
        }
        let color = if self.inside { TRIGGER_ON } else { TRIGGER_OFF };
        let trigger = self.world.body(self.trigger).expect("the trigger");
        if trigger.visual().color != color {
            self.world
                .body_mut(self.trigger)
                .expect("the trigger")
                .set_color(color)
                .expect("a valid colour");
        }
    }

    /// The character's position.
    pub fn position(&self) -> Point3 {
        self.world
            .body(self.character)
            .expect("the character")
            .position()
    }
}

impl Default for Level {
    fn default() -> Self {
        Self::new()
    }
}

/// How many frames the scripted walk takes.
pub const SCRIPT_FRAMES: u64 = 540;

/// The scripted walk of the headless example: per frame, the input (at 3 m/s, 5 cm a frame).
/// North 3 m, east 3 m into the trigger at (4, -3), west 7 m out of it and through the crates,
/// south 7 m to the steps' line, east up the four steps onto the top one.
pub fn scripted_input(frame: u64) -> Vector3 {
    match frame {
        0..60 => -Vector3::z(),
        60..120 => Vector3::x(),
        120..260 => -Vector3::x(),
        260..400 => Vector3::z(),
        400..SCRIPT_FRAMES => Vector3::x(),
        _ => Vector3::zeros(),
    }
}
