//! World settings: the step, gravity, the response, the contact solver's settings and
//! sleeping.

use crate::error::WorldError;
use crate::limits::{self, Range};
use geom::validate;
use geom::{Real, Vector3};
use serde::{Deserialize, Serialize};

/// How the world responds to contacts. The step calls the configured response between the
/// narrow phase and position integration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Response {
    /// Detect contacts and report them, but let bodies pass through each other.
    None,
    /// Seed 003's bouncing, made general: an elastic, frictionless exchange of velocity along
    /// the contact normal (reflection off static and kinematic bodies), then a push apart along
    /// the minimum translation split by inverse mass (seed 004). Never adds kinetic energy.
    /// Ignores materials, rotation and [`SolverConfig`].
    Reflect,
    /// The contact solver (the default): Box2D v3 and Box3D's soft step, with rotation,
    /// Coulomb friction, restitution, speculative contacts and warm starting, so that bodies
    /// come to rest and stacks stand. Settings in [`SolverConfig`].
    #[default]
    Solver,
}

/// The contact solver's settings (`Response::Solver`): the defaults of Box2D v3, Box3D and
/// rapier where they hold our tests, twice their substeps and stiffness where not (see the
/// architecture notes).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SolverConfig {
    /// Substeps per step, each with `soft_iterations` soft iterations and one relax iteration.
    /// Default 8
    /// (Box2D, Box3D and rapier use 4).
    pub substeps: u32,
    /// Soft iterations (Gauss-Seidel passes with position bias) per substep, before the
    /// positions move. Default 2 (Box2D, Box3D and rapier run 1): one pass does not carry a
    /// load through a tall stack, and what it leaves becomes a lean that grows (rapier's keva
    /// tower at 4 substeps leans 0.64 m at its top after 10 s with 1, 0.008 m with 2; see the
    /// architecture notes). Each costs about a tenth of a stacking scene's step.
    pub soft_iterations: u32,
    /// Contact stiffness as a frequency (hertz): penetration is removed like a spring of this
    /// frequency (capped at an eighth of the substep rate, as Box3D does: one iteration per
    /// substep cannot settle a tall pile of stiffer springs; twice it against static and
    /// kinematic bodies). A resting contact settles `g / (2 pi f)^2` deep per body of weight
    /// it carries. Default 60, the cap at 8 substeps (Box2D, Box3D and rapier use 30 with 4
    /// substeps, which is what 4 substeps give here too).
    pub contact_hertz: Real,
    /// Damping ratio of that spring (1 is critical; larger settles without overshoot, which
    /// large piles need). Default 10.
    pub contact_damping_ratio: Real,
    /// The fastest a penetration is pushed out (metres per second), per contact and, for
    /// overlaps deeper than a centimetre, per body. Default 3.
    pub max_push_out_speed: Real,
    /// Contacts approaching slower than this (metres per second) do not bounce. Default 1.
    pub restitution_threshold: Real,
    /// Shapes closer than this (metres) get speculative contact points, so that the solver
    /// stops them at the surface; a pair's margin grows by how far the two can close in one
    /// step (their relative speed, plus each one's spin times its bounding radius, times `dt`).
    /// Default 0.02.
    pub speculative_margin: Real,
    /// Rolling resistance of balls, in [0, 1] (Box3D's model, which keeps it per material): a
    /// contact with a ball resists the pair's relative rolling and spinning with a torque up to
    /// this times the ball's radius times the normal force, so that a ball rolls to a stop and
    /// a ball spinning on one contact point stops spinning (without it, such a ball spins
    /// forever and keeps the pile it touches awake). Box contacts resist tipping by their faces
    /// instead. Default 0.01.
    pub rolling_resistance: Real,
    /// Contact reuse (rapier's and Box3D's contact recycling; Box3D's bodies recycle by
    /// default, at 5 cm), off at 0 (the default): a pair whose
    /// relative pose has moved less than this (metres: how far any point of the second body
    /// has moved relative to the first) since its contact was last computed keeps that
    /// contact's points, carried with the bodies, instead of running the narrow phase: its
    /// depths stay exact for the points kept, but a feature that comes within reach in the
    /// meantime is missed until the pair has moved this far. Resting piles then skip most
    /// of the narrow phase. A few millimetres suits unit-sized bodies. Pairs of polyhedra that
    /// keep their contact keep their cached separating axes too.
    pub reuse_distance: Real,
    /// How many times each pass (every soft iteration and the relax iteration) solves the
    /// joints, one after the other, before the contacts. Default 2 (Box3D runs 1): a joint's
    /// hold sags under its load by `load / (m omega^2)`, so a chain of light links holding a
    /// heavy load stretches unless its joints are stiff, and one Gauss-Seidel pass does not
    /// settle a stiff chain. A chain of 40 links holding 100 times a link's mass, 8 substeps,
    /// the default joint softness: 1 pass blows up, 2 stretch it 0.41% and it rests (its
    /// fastest link at 5 mm/s after 5 s), 3 leave it at 0.01 mm/s. A world without joints
    /// never reads it.
    pub joint_iterations: u32,
}

impl Default for SolverConfig {
    fn default() -> Self {
        Self {
            substeps: 8,
            soft_iterations: 2,
            contact_hertz: 60.0,
            contact_damping_ratio: 10.0,
            max_push_out_speed: 3.0,
            restitution_threshold: 1.0,
            speculative_margin: 0.02,
            rolling_resistance: 0.01,
            reuse_distance: 0.0,
            joint_iterations: 2,
        }
    }
}

/// The most substeps a step may take.
pub const MAX_SUBSTEPS: u32 = 64;
/// The most soft iterations a substep may take.
pub const MAX_SOFT_ITERATIONS: u32 = 16;
/// The most times a pass may solve the joints.
pub const MAX_JOINT_ITERATIONS: u32 = 16;

/// The largest contact stiffness a setting may ask for, hertz (the step caps it lower).
const MAX_HERTZ: Real = 1e6;
/// The largest contact damping ratio a setting may ask for.
const MAX_DAMPING_RATIO: Real = 1e6;
/// The largest contact reuse distance a setting may ask for (metres): beyond it a kept
/// contact would no longer describe the pair.
pub const MAX_REUSE_DISTANCE: Real = 1.0;

impl SolverConfig {
    /// Checks every field; the error names it (`config.solver.substeps`, ...).
    pub fn validate(&self) -> Result<(), WorldError> {
        if !(1..=MAX_SUBSTEPS).contains(&self.substeps) {
            return Err(WorldError::OutOfRange {
                field: "config.solver.substeps".into(),
                value: self.substeps as Real,
                range: Range::Between(1.0, MAX_SUBSTEPS as Real, "").describe(),
            });
        }
        if !(1..=MAX_SOFT_ITERATIONS).contains(&self.soft_iterations) {
            return Err(WorldError::OutOfRange {
                field: "config.solver.soft_iterations".into(),
                value: self.soft_iterations as Real,
                range: Range::Between(1.0, MAX_SOFT_ITERATIONS as Real, "").describe(),
            });
        }
        if !(1..=MAX_JOINT_ITERATIONS).contains(&self.joint_iterations) {
            return Err(WorldError::OutOfRange {
                field: "config.solver.joint_iterations".into(),
                value: self.joint_iterations as Real,
                range: Range::Between(1.0, MAX_JOINT_ITERATIONS as Real, "").describe(),
            });
        }
        let check = |field: &str, value: Real, max: Real, unit: &'static str| {
            validate::finite(field, value)?;
            limits::within(field, value, Range::Between(0.0, max, unit)).map(|_| ())
        };
        check(
            "config.solver.contact_hertz",
            self.contact_hertz,
            MAX_HERTZ,
            "Hz",
        )?;
        check(
            "config.solver.contact_damping_ratio",
            self.contact_damping_ratio,
            MAX_DAMPING_RATIO,
            "",
        )?;
        check(
            "config.solver.max_push_out_speed",
            self.max_push_out_speed,
            limits::MAX_SPEED,
            "m/s",
        )?;
        check(
            "config.solver.restitution_threshold",
            self.restitution_threshold,
            limits::MAX_SPEED,
            "m/s",
        )?;
        check(
            "config.solver.speculative_margin",
            self.speculative_margin,
            limits::MAX_SIZE,
            "m",
        )?;
        check(
            "config.solver.rolling_resistance",
            self.rolling_resistance,
            1.0,
            "",
        )?;
        check(
            "config.solver.reuse_distance",
            self.reuse_distance,
            MAX_REUSE_DISTANCE,
            "m",
        )
    }
}

/// World settings, with defaults.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WorldConfig {
    /// The fixed time step (seconds). Default 1/60 (seed 003's scene uses 0.02).
    pub dt: Real,
    /// Acceleration of dynamic bodies (metres per second squared). Default `(0, -9.81, 0)`.
    pub gravity: Vector3,
    /// The contact response. Default [`Response::Solver`].
    pub response: Response,
    /// At most this many steps per [`crate::World::advance`] call; time beyond it is dropped,
    /// so that a slow frame cannot snowball. Default 8.
    pub max_steps_per_advance: u32,
    /// The contact solver's settings (used by `Response::Solver`).
    pub solver: SolverConfig,
    /// When bodies at rest sleep (used by `Response::Solver`).
    pub sleep: SleepConfig,
}

/// Sleeping (`Response::Solver` only): a group of bodies linked by touching contacts (an
/// island) whose every body has moved slower than `speed_threshold` for `time_to_sleep`
/// sleeps: it keeps its pose and contacts, costs no collision test or solve, and wakes when an
/// awake body touches it, when a setter changes one of its bodies, when a body it touches is
/// removed, or on [`crate::World::wake`]. Box2D v3's rule and defaults.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SleepConfig {
    /// Whether islands at rest sleep. Default true.
    pub enabled: bool,
    /// A body is at rest while its speed, and its angular speed times its bounding radius,
    /// stay below this (metres per second). Default 0.05.
    pub speed_threshold: Real,
    /// How long (seconds) every body of an island must stay at rest before it sleeps.
    /// Default 0.5.
    pub time_to_sleep: Real,
}

impl Default for SleepConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            speed_threshold: 0.05,
            time_to_sleep: 0.5,
        }
    }
}

impl SleepConfig {
    /// Sleeping turned off: every body stays awake.
    pub fn disabled() -> Self {
        Self {
            enabled: false,
            ..Self::default()
        }
    }

    /// Checks every field; the error names it (`config.sleep.speed_threshold`, ...).
    pub fn validate(&self) -> Result<(), WorldError> {
        validate::finite("config.sleep.speed_threshold", self.speed_threshold)?;
        limits::within(
            "config.sleep.speed_threshold",
            self.speed_threshold,
            Range::Between(0.0, limits::MAX_SPEED, "m/s"),
        )?;
        validate::finite("config.sleep.time_to_sleep", self.time_to_sleep)?;
        limits::within(
            "config.sleep.time_to_sleep",
            self.time_to_sleep,
            Range::Between(0.0, limits::MAX_SLEEP_TIME, "s"),
        )?;
        Ok(())
    }
}

impl Default for WorldConfig {
    fn default() -> Self {
        Self {
            dt: 1.0 / 60.0,
            gravity: Vector3::new(0.0, -9.81, 0.0),
            response: Response::Solver,
            max_steps_per_advance: 8,
            solver: SolverConfig::default(),
            sleep: SleepConfig::default(),
        }
    }
}

impl WorldConfig {
    /// Checks every field: `dt` finite and positive, gravity finite, at least one step per
    /// advance, the solver's settings. The error names the field.
    pub fn validate(&self) -> Result<(), WorldError> {
        validate::positive("config.dt", self.dt)?;
        limits::within("config.dt", self.dt, Range::AtMost(limits::MAX_DT, "s"))?;
        validate::finite_vector3("config.gravity", &self.gravity)?;
        limits::components_within(
            || "config.gravity".to_owned(),
            &self.gravity,
            Range::AtMost(limits::MAX_GRAVITY, "m/s^2"),
        )?;
        if self.max_steps_per_advance == 0 {
            return Err(WorldError::OutOfRange {
                field: "config.max_steps_per_advance".into(),
                value: 0.0,
                range: "at least 1".into(),
            });
        }
        self.solver.validate()?;
        self.sleep.validate()
    }
}
