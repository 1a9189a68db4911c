//! A batch of contact constraints, one per lane (`lanes`): the layout the stages read
//! (`solve.rs`) and `prepare.rs` writes. The constraints of a batch share no moving body (they
//! are of one colour, or alone in theirs), so a batch reads its bodies' velocities at once,
//! solves its lanes side by side and leaves the new velocities in a [`Moved`] that the caller
//! writes back (none when the stage had nothing to do).
//!
//! The passes stream through the batches, so a batch keeps in its own array only what every
//! pass reads: what only prepare, restitution and rolling read is boxed apart ([`Cold`]), and
//! so are the turns `I^-1 (r x n)` ([`Turns`]), which a batch whose bodies are all isotropic
//! (cubes, balls: `I^-1 = s 1`) computes as its arms times `s` instead of reading them
//! (Box3D's wide constraint keeps each body's symmetric inverse inertia, six lanes, instead of
//! the turns, at the cost of a matrix product per row).
//!
//! A lane without a constraint, or a point a constraint lacks, is solved like the others and its
//! results thrown away: every state a row changes is chosen per lane ([`Lane::select`]) between
//! its new and its old value, so an absent point or a branch a lane does not take leaves its bits
//! exactly as they were, as the one-constraint solve that skips it would. Frames, signs and the
//! rows are those of `prepare.rs`.

use crate::response::solver::body::SolverBody;
use crate::response::solver::lanes::{Lane, V3, Which};
pub(super) use crate::response::solver::lanes::{M3, mul3};
use crate::response::solver::shared::{Bodies, Shared};
use geom::Real;

/// A 2x2 matrix of lanes, `m[row][column]`.
pub(super) type M2<L> = [[L; 2]; 2];

/// `m v`, in nalgebra's order: `m[r][0] v0 + m[r][1] v1`.
#[inline]
pub(super) fn mul2<L: Lane>(m: &M2<L>, v: &[L; 2]) -> [L; 2] {
    [
        m[0][0] * v[0] + m[0][1] * v[1],
        m[1][0] * v[0] + m[1][1] * v[1],
    ]
}

/// One point slot of a batch: a point's non-penetration row per lane (see `contact`).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct PointLanes<L> {
    pub(super) arm_a: V3<L>,
    pub(super) arm_b: V3<L>,
    pub(super) separation: L,
    pub(super) normal_mass: L,
    pub(super) normal_impulse: L,
    pub(super) max_normal_impulse: L,
    pub(super) lever_arm: L,
}

/// What only `contact::prepare`, restitution and rolling resistance read: kept out of the
/// batch's array (that the passes stream through) in a box of its own.
#[derive(Debug, Clone, Default)]
pub(super) struct Cold<L> {
    pub(super) restitution: L,
    /// 1 where both bodies are isotropic (`I^-1 = s 1`), 0 elsewhere.
    pub(super) isotropic: L,
    /// Per point slot, the normal speed at the start of the step: written only in a batch
    /// where some lane bounces (restitution reads no other).
    pub(super) relative_velocity: [L; 4],
    /// Written only in the lanes that roll.
    pub(super) rolling_mass: M3<L>,
    pub(super) rolling_impulse: V3<L>,
    /// `[a, b]`, world space: how a rolling impulse turns each body. Written only in the lanes
    /// that roll or have an anisotropic body (`contact::gather`).
    pub(super) inverse_inertia: [M3<L>; 2],
    /// The surfaces' own relative tangential velocity (a conveyor's, `a`'s less `b`'s), world
    /// space, and along the two tangents: written only in a batch with a conveyor.
    pub(super) conveyor: V3<L>,
    pub(super) conveyor_speed: [L; 2],
}

/// How a unit impulse of each row turns the two bodies: `I^-1` times the row's arm, world
/// space, `[a, b]`. Kept out of the batch's array in a box of its own, read only by batches
/// with a body whose inertia differs about some axis: where every body is isotropic (a cube, a
/// ball: `I^-1 = s 1`, exactly) the turns are the arms scaled by `s` ([`Batch::isotropic`]).
#[derive(Debug, Clone, Default)]
pub(super) struct Turns<L> {
    /// Per point slot, `I^-1 (r x n)`.
    pub(super) points: [[V3<L>; 2]; 4],
    /// Then per tangent, `I^-1 (c x t_k)` for the friction centre `c`.
    pub(super) friction: [[V3<L>; 2]; 2],
    /// `I^-1 n`, for the twist row.
    pub(super) twist: [V3<L>; 2],
    /// Then per tangent, `I^-1 t_k`, for the tilt row.
    pub(super) tilt: [[V3<L>; 2]; 2],
}

/// Up to `L::WIDTH` contact constraints, one per lane (see `contact` for the rows).
#[derive(Debug, Clone, Default)]
pub(crate) struct Batch<L: Lane> {
    /// Per lane, the bodies' indices in the solver's dense arrays, counted from the first slot
    /// of the batch's group (0, the group's fixed state, in an empty lane).
    pub(super) a: L::Indices,
    pub(super) b: L::Indices,
    /// `[a, b]`; zero for a fixed body, which is never written.
    pub(super) inverse_mass: [L; 2],
    pub(super) normal: V3<L>,
    pub(super) tangents: [V3<L>; 2],
    pub(super) friction: L,
    /// 1 against a static or kinematic body (stiffer), 0 otherwise.
    pub(super) fixed_pair: L,
    /// How many of `points` the lane's constraint has.
    pub(super) point_count: L,
    pub(super) points: [PointLanes<L>; 4],
    pub(super) friction_arms: [[V3<L>; 2]; 2],
    pub(super) tangent_mass: M2<L>,
    pub(super) friction_impulse: [L; 2],
    pub(super) twist_mass: L,
    pub(super) twist_impulse: L,
    pub(super) tilt_mass: M2<L>,
    pub(super) support_radius: L,
    pub(super) tilt_impulse: [L; 2],
    pub(super) rolling_resistance: L,
    /// Whether every lane's bodies are isotropic (or fixed): the turns are then the arms
    /// scaled by `inverse_inertia_scale`, and `turns` is not read.
    pub(super) isotropic: bool,
    /// Whether a lane has a conveyor (`Cold::conveyor`; all but a few batches have none).
    pub(super) has_conveyor: bool,
    /// `[a, b]`: `s` of an isotropic body's `I^-1 = s 1`.
    pub(super) inverse_inertia_scale: [L; 2],
    /// Allocated the first time a batch that is not `isotropic` is prepared in this slot: a
    /// scene of cubes and balls never needs it (864 bytes a batch of four, about 56 MB in Box3D's
    /// many pyramids of 101,695 cubes).
    pub(super) turns: Option<Box<Turns<L>>>,
    pub(super) cold: Box<Cold<L>>,
}

/// What the contact set keeps of a batch's constraints after a step ([`Batch::impulses`]).
pub(crate) struct BatchImpulses<L> {
    pub(crate) pushed: L,
    pub(crate) normal: [L; 4],
    pub(crate) friction: V3<L>,
    pub(crate) tilt: V3<L>,
    pub(crate) twist: L,
}

/// A body's velocities in a stage, per lane.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Motion<L> {
    pub(super) linvel: V3<L>,
    pub(super) angvel: V3<L>,
}

impl<L: Lane> Motion<L> {
    /// From the first two of `SolverBody::rows`, per lane.
    #[inline]
    pub(super) fn of_rows(first: &[L; 4], second: &[L; 4]) -> Self {
        Self {
            linvel: V3 {
                x: first[0],
                y: first[1],
                z: first[2],
            },
            angvel: V3 {
                x: first[3],
                y: second[0],
                z: second[1],
            },
        }
    }

    /// `new` in the lanes of `which`, `old` elsewhere.
    #[inline]
    pub(super) fn pick(which: &Which<L>, new: &Self, old: &Self) -> Self {
        Self {
            linvel: which.pick3(&new.linvel, &old.linvel),
            angvel: which.pick3(&new.angvel, &old.angvel),
        }
    }
}

/// What a stage leaves in a batch's bodies: `[a, b]` velocities, and push-out velocities when
/// some lane pushed a deep overlap out.
#[derive(Debug, Clone, Default)]
pub(crate) struct Moved<L> {
    pub(super) motion: [Motion<L>; 2],
    pub(super) push: Option<[Motion<L>; 2]>,
}

/// Sets `lane` of the matrix `m` to `value(row, column)`.
pub(super) fn set_matrix<L: Lane, const N: usize>(
    m: &mut [[L; N]; N],
    lane: usize,
    value: impl Fn(usize, usize) -> Real,
) {
    for (r, row) in m.iter_mut().enumerate() {
        for (c, x) in row.iter_mut().enumerate() {
            x.set_lane(lane, value(r, c));
        }
    }
}

impl<L: Lane> Batch<L> {
    /// Per lane, both bodies' indices (see [`Batch::a`]).
    #[inline]
    pub(crate) fn bodies(&self) -> impl Iterator<Item = usize> + '_ {
        (self.a.as_ref().iter().chain(self.b.as_ref())).map(|&i| i as usize)
    }

    /// Per lane: whether the solver pushed the pair apart this step (1 where it did, 0
    /// elsewhere), then the accumulated impulses: per point the normal impulse, the friction
    /// and tilt impulses (world space) and the twist impulse. Computed for the whole batch at
    /// once, then read lane by lane.
    #[inline]
    pub(crate) fn impulses(&self) -> BatchImpulses<L> {
        let (zero, one) = (L::splat(0.0), L::splat(1.0));
        let mut pushed = zero;
        for p in &self.points {
            let pushes = p.normal_impulse.gt(zero) | p.max_normal_impulse.gt(zero);
            pushed = L::select(pushes, one, pushed);
        }
        let t = &self.tangents;
        let world = |v: &[L; 2]| t[0].scale(v[0]).add(&t[1].scale(v[1]));
        BatchImpulses {
            pushed,
            normal: self.points.map(|p| p.normal_impulse),
            friction: world(&self.friction_impulse),
            tilt: world(&self.tilt_impulse),
            twist: self.twist_impulse,
        }
    }

    /// `[a, b]`: `I^-1 arm`, from the scales where the batch is isotropic, else `stored`'s.
    #[inline]
    pub(super) fn turn(
        &self,
        arm: [&V3<L>; 2],
        stored: impl FnOnce(&Turns<L>) -> [V3<L>; 2],
    ) -> [V3<L>; 2] {
        if !self.isotropic
            && let Some(turns) = self.turns.as_deref()
        {
            return stored(turns);
        }
        // Isotropic (`contact::prepare` gives every other batch its turns).
        [
            arm[0].scale(self.inverse_inertia_scale[0]),
            arm[1].scale(self.inverse_inertia_scale[1]),
        ]
    }

    /// `[a, b]`: how a unit normal impulse at point `k` turns the bodies.
    #[inline]
    pub(super) fn point_turns(&self, k: usize) -> [V3<L>; 2] {
        let p = &self.points[k];
        self.turn([&p.arm_a, &p.arm_b], |t| t.points[k])
    }

    /// `[a, b]` then tangent: how a unit friction impulse along each tangent turns the bodies.
    #[inline]
    pub(super) fn friction_turns(&self) -> [[V3<L>; 2]; 2] {
        let [arms_a, arms_b] = &self.friction_arms;
        let [a0, b0] = self.turn([&arms_a[0], &arms_b[0]], |t| {
            [t.friction[0][0], t.friction[1][0]]
        });
        let [a1, b1] = self.turn([&arms_a[1], &arms_b[1]], |t| {
            [t.friction[0][1], t.friction[1][1]]
        });
        [[a0, a1], [b0, b1]]
    }

    /// `[a, b]`: how a unit twist impulse turns the bodies.
    #[inline]
    pub(super) fn twist_turns(&self) -> [V3<L>; 2] {
        self.turn([&self.normal, &self.normal], |t| t.twist)
    }

    /// `[a, b]` then tangent: how a unit tilt impulse about each tangent turns the bodies.
    #[inline]
    pub(super) fn tilt_turns(&self) -> [[V3<L>; 2]; 2] {
        let t = &self.tangents;
        let [a0, b0] = self.turn([&t[0], &t[0]], |s| [s.tilt[0][0], s.tilt[1][0]]);
        let [a1, b1] = self.turn([&t[1], &t[1]], |s| [s.tilt[0][1], s.tilt[1][1]]);
        [[a0, a1], [b0, b1]]
    }

    /// The lanes that hold a point `k`.
    #[inline]
    pub(super) fn has_point(&self, k: usize) -> L::Mask {
        self.point_count.gt(L::splat(k as Real))
    }

    /// The velocities of the batch's bodies.
    #[inline]
    pub(super) fn motions<B: Bodies + ?Sized>(&self, bodies: &B) -> [Motion<L>; 2] {
        let motion = |index| {
            let [first, second, _] = rows_of::<L, B>(bodies, index);
            Motion::of_rows(&L::from_rows(&first), &L::from_rows(&second))
        };
        [motion(&self.a), motion(&self.b)]
    }

    /// The velocities of the batch's bodies and how far they moved and turned in the step.
    #[inline]
    pub(super) fn states<B: Bodies + ?Sized>(&self, bodies: &B) -> [(Motion<L>, V3<L>, V3<L>); 2] {
        [state_of(bodies, &self.a), state_of(bodies, &self.b)]
    }

    /// The push-out velocities of the batch's bodies.
    #[inline]
    pub(super) fn push_motions<B: Bodies + ?Sized>(
        indices: [L::Indices; 2],
        bodies: &B,
    ) -> [Motion<L>; 2] {
        let motion = |index: &L::Indices| {
            let index = index.as_ref();
            Motion {
                linvel: V3::gather(|i| bodies.body(index[i] as usize).push_linvel),
                angvel: V3::gather(|i| bodies.body(index[i] as usize).push_angvel),
            }
        };
        [motion(&indices[0]), motion(&indices[1])]
    }
}

impl<L: Lane> Moved<L> {
    /// Writes the velocities back into the batch's bodies, except into fixed ones (static,
    /// sleeping or kinematic: no impulse changes them, and constraints of one batch may share
    /// them) and empty lanes. The lanes to write are read off the inverse masses as one bit
    /// each, not lane by lane.
    #[inline]
    #[allow(unsafe_code)]
    pub(crate) fn store(&self, c: &Batch<L>, bodies: &Shared<'_, SolverBody>) {
        let zero = L::splat(0.0);
        for (side, index) in [c.a.as_ref(), c.b.as_ref()].into_iter().enumerate() {
            let mut moving = L::bits(!c.inverse_mass[side].eq(zero));
            if moving == 0 {
                continue;
            }
            let Motion { linvel, angvel } = &self.motion[side];
            let (mut first, mut second) = (L::Rows::default(), L::Rows::default());
            L::to_rows([linvel.x, linvel.y, linvel.z, angvel.x], |i, r| {
                first.as_mut()[i] = r
            });
            L::to_rows([angvel.y, angvel.z, zero, zero], |i, r| {
                second.as_mut()[i] = r
            });
            while moving != 0 {
                let lane = moving.trailing_zeros() as usize;
                moving &= moving - 1;
                // SAFETY: a moving body of this batch, which no other batch of its colour reads
                // or writes (`shared`'s rules).
                let body = unsafe { bodies.get_mut(index[lane] as usize) };
                body.set_velocities(&first.as_ref()[lane], &second.as_ref()[lane]);
                if let Some(push) = &self.push {
                    body.push_linvel = push[side].linvel.lane(lane);
                    body.push_angvel = push[side].angvel.lane(lane);
                }
            }
        }
    }
}

/// The velocities of the bodies at `index` and how far they moved and turned in the step.
/// Always inlined: a solve pass reads two per batch, and as a call of its own it cost a
/// twentieth of the large pyramid's step.
#[inline(always)]
pub(super) fn state_of<L: Lane, B: Bodies + ?Sized>(
    bodies: &B,
    index: &L::Indices,
) -> (Motion<L>, V3<L>, V3<L>) {
    let [first, second, third] = rows_of::<L, B>(bodies, index);
    let (first, second, third) = (
        L::from_rows(&first),
        L::from_rows(&second),
        L::from_rows(&third),
    );
    let [_, _, px, py] = second;
    let [pz, ax, ay, az] = third;
    (
        Motion::of_rows(&first, &second),
        V3 {
            x: px,
            y: py,
            z: pz,
        },
        V3 {
            x: ax,
            y: ay,
            z: az,
        },
    )
}

/// The [`SolverBody::rows`] of the bodies at `index`, by row and then lane.
#[inline(always)]
pub(super) fn rows_of<L: Lane, B: Bodies + ?Sized>(bodies: &B, index: &L::Indices) -> [L::Rows; 3] {
    let mut rows = [L::Rows::default(); 3];
    for (lane, &i) in index.as_ref().iter().enumerate() {
        let [first, second, third] = bodies.body(i as usize).rows();
        rows[0].as_mut()[lane] = first;
        rows[1].as_mut()[lane] = second;
        rows[2].as_mut()[lane] = third;
    }
    rows
}
