//! Soft constraints (E. Catto, "Solver2D", 2024; Box2D v3 `b2MakeSoft`): a contact acts like a
//! damped spring of a given frequency, written as three coefficients of the velocity impulse.

use geom::Real;

/// The coefficients of a soft constraint for one substep.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Softness {
    /// Scales the position error (metres) into a velocity bias (per second).
    pub(crate) bias_rate: Real,
    /// Scales the effective mass.
    pub(crate) mass_scale: Real,
    /// Scales the accumulated impulse subtracted each iteration.
    pub(crate) impulse_scale: Real,
    /// How deep the spring sits under a steady load, per unit of the load's impulse per
    /// substep over the row's effective mass: `1 / (h omega^2)`, seconds (metres of depth per
    /// metre per second); 0 for a rigid constraint. A row of effective mass `m` carrying an
    /// impulse `lambda` each substep settles at the depth `s` where the soft step's bias and
    /// impulse scaling give back `lambda` each substep: `s = lambda / (m h omega^2)`.
    pub(crate) depth_per_load: Real,
}

impl Softness {
    /// A spring of `hertz` and damping ratio `zeta`, integrated with substep `h` (implicitly, so
    /// any stiffness is stable): `omega = 2 pi hertz`, `a1 = 2 zeta + h omega`,
    /// `a2 = h omega a1`, `a3 = 1 / (1 + a2)`; bias rate `omega / a1`, mass scale `a2 a3`,
    /// impulse scale `a3`. Zero hertz is a rigid constraint without bias.
    pub(crate) fn new(hertz: Real, zeta: Real, h: Real) -> Self {
        if hertz == 0.0 {
            return Self {
                bias_rate: 0.0,
                mass_scale: 1.0,
                impulse_scale: 0.0,
                depth_per_load: 0.0,
            };
        }
        let omega = std::f32::consts::TAU * hertz;
        let a1 = 2.0 * zeta + h * omega;
        let a2 = h * omega * a1;
        let a3 = 1.0 / (1.0 + a2);
        Self {
            bias_rate: omega / a1,
            mass_scale: a2 * a3,
            impulse_scale: a3,
            depth_per_load: 1.0 / (h * omega * omega),
        }
    }
}
