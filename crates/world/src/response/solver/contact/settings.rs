//! What a contact solve pass needs besides its batches: the contact spring for the substep
//! ([`SolveSettings`]) and the test that sends a deep overlap down the push-out path
//! ([`is_deep`]).

use crate::config::SolverConfig;
use crate::response::solver::lanes::Lane;
use crate::response::solver::soft::Softness;
use geom::Real;

/// The settings a solve pass needs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SolveSettings {
    /// `1 / h`, the substep rate.
    pub(crate) inverse_h: Real,
    pub(crate) softness: Softness,
    /// Against static and kinematic bodies.
    pub(crate) fixed_softness: Softness,
    pub(crate) max_push_out_speed: Real,
}

/// Overlaps deeper than this (metres) beyond what the point's load sinks it (see
/// [`is_deep`]) are pushed out through the push-out velocities, which move positions and
/// are then dropped (Bullet's split impulse, with its threshold idea), while the point's
/// velocity row stays rigid. Box2D and Box3D push every overlap out through the real velocity
/// and rely on the relax iteration to take the push back out; one Gauss-Seidel pass cannot,
/// across a chain of overlaps: a pyramid of five rows created a quarter overlapped threw its
/// top cube out at 8 m/s with a push-out cap of 3, and a block of 8 x 8 x 8 unit cubes created
/// 4 cm into each other, pushed out softly, throws cubes at 29 m/s (at 8 substeps).
pub(crate) const DEEP_OVERLAP: Real = 0.01;

/// Whether a point of `separation` counts as a deep overlap: deeper than [`DEEP_OVERLAP`] plus
/// twice the depth at which its contact spring holds the impulse it carries (`depth_per_load`
/// times the impulse over the effective mass; twice, for the overshoot while a load builds).
/// A load sinks a soft contact in proportion to the bodies above and to `1 / omega^2`: the
/// foot of a column of 60 unit cubes at 30 Hz (4 substeps) rests 3.3 cm deep, 4.2 cm at most
/// while the load builds (measured). With a fixed 1 cm, the feet of tall columns (and the lower
/// rows of Box3D's large pyramid) took the deep path, a rigid row under a push-out the soft
/// pass does not see, and columns buckled: 30 unit cubes fell within 600 steps at 4 substeps
/// (with a fixed 3 cm, 60 fell; with 5 cm they stood, but the overlapped block above threw
/// cubes). A fresh overlap carries no load yet: its threshold stays [`DEEP_OVERLAP`].
#[inline]
pub(crate) fn is_deep<L: Lane>(
    separation: L,
    normal_impulse: L,
    normal_mass: L,
    depth_per_load: L,
) -> L::Mask {
    // `separation < -(DEEP_OVERLAP + 2 impulse depth_per_load / normal_mass)`, multiplied out
    // by the (positive) normal mass: no division in the solve's inner loop.
    let sunk = (separation + L::splat(DEEP_OVERLAP)) * normal_mass;
    (sunk + L::splat(2.0) * normal_impulse * depth_per_load).lt(L::splat(0.0))
}

/// The stiffest contact spring, as a fraction of the substep rate (Box3D's eighth; Box2D v3
/// allows a quarter). One Gauss-Seidel iteration per substep cannot settle a tall pile of
/// stiffer springs: measured on Box3D's pyramid of base 40, at a quarter (60 Hz at 4 substeps,
/// 120 Hz at 8) the cubes kept velocities of half a metre per second that the springs pushed
/// back every step, the pile never came to rest and slid apart (24 m at step 1,000 with 4
/// substeps); at an eighth it settles and stays (10.7 cm at 4 substeps, rapier3d 10.9 cm;
/// 2.7 cm at 8).
pub(crate) const MAX_HERTZ_PER_SUBSTEP_RATE: Real = 0.125;

impl SolveSettings {
    /// The contact spring for this substep: `contact_hertz` capped at an eighth of the substep
    /// rate; against fixed bodies twice as stiff with half the damping ratio (Box3D).
    pub(crate) fn new(config: &SolverConfig, h: Real) -> Self {
        let hertz = config.contact_hertz.min(MAX_HERTZ_PER_SUBSTEP_RATE / h);
        let zeta = config.contact_damping_ratio;
        Self {
            inverse_h: 1.0 / h,
            softness: Softness::new(hertz, zeta, h),
            fixed_softness: Softness::new(2.0 * hertz, 0.5 * zeta, h),
            max_push_out_speed: config.max_push_out_speed,
        }
    }
}
