//! Contact constraints in batches, one constraint per lane (`lanes`), and the stages that run
//! on a batch: [`warm_start`], [`solve`] (with bias, then without: relax, with friction) per
//! substep, [`restitution`] after them. `contact::gather` writes each constraint's inputs in its
//! lane and `contact::prepare` computes a batch's rows; the constraints of a batch share no
//! moving body (they are of one colour, or alone in theirs), so a batch reads its bodies'
//! velocities at once, solves its lanes side by side and leaves the new velocities in a
//! [`Moved`] that the caller writes back (none when the stage had nothing to do).
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
//! rows are those of `contact`.

use super::body::SolverBody;
use super::contact::{SolveSettings, is_deep};
use super::lanes::{Lane, V3, Which};
use geom::Real;

/// A 2x2 matrix of lanes, `m[row][column]`.
pub(super) type M2<L> = [[L; 2]; 2];
/// A 3x3 matrix of lanes, `m[row][column]`.
pub(super) type M3<L> = [[L; 3]; 3];

/// `m v`, in nalgebra's order: `m[r][0] v0 + m[r][1] v1`.
#[inline]
fn mul2<L: Lane>(m: &M2<L>, v: &[L; 2]) -> [L; 2] {
    [
        m[0][0] * v[0] + m[0][1] * v[1],
        m[1][0] * v[0] + m[1][1] * v[1],
    ]
}

/// `m v`, in nalgebra's order: `(m[r][0] v.x + m[r][1] v.y) + m[r][2] v.z`.
#[inline]
pub(super) fn mul3<L: Lane>(m: &M3<L>, v: &V3<L>) -> V3<L> {
    let row = |r: &[L; 3]| r[0] * v.x + r[1] * v.y + r[2] * v.z;
    V3 {
        x: row(&m[0]),
        y: row(&m[1]),
        z: row(&m[2]),
    }
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
    fn of_rows(first: &[L; 4], second: &[L; 4]) -> Self {
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
    fn pick(which: &Which<L>, new: &Self, old: &Self) -> Self {
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
    motion: [Motion<L>; 2],
    push: Option<[Motion<L>; 2]>,
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
    fn turn(&self, arm: [&V3<L>; 2], stored: impl FnOnce(&Turns<L>) -> [V3<L>; 2]) -> [V3<L>; 2] {
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
    fn point_turns(&self, k: usize) -> [V3<L>; 2] {
        let p = &self.points[k];
        self.turn([&p.arm_a, &p.arm_b], |t| t.points[k])
    }

    /// `[a, b]` then tangent: how a unit friction impulse along each tangent turns the bodies.
    #[inline]
    fn friction_turns(&self) -> [[V3<L>; 2]; 2] {
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
    fn twist_turns(&self) -> [V3<L>; 2] {
        self.turn([&self.normal, &self.normal], |t| t.twist)
    }

    /// `[a, b]` then tangent: how a unit tilt impulse about each tangent turns the bodies.
    #[inline]
    fn tilt_turns(&self) -> [[V3<L>; 2]; 2] {
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
    pub(super) fn motions(&self, bodies: &[SolverBody]) -> [Motion<L>; 2] {
        let motion = |index| {
            let [first, second, _] = rows_of::<L>(bodies, index);
            Motion::of_rows(&L::from_rows(&first), &L::from_rows(&second))
        };
        [motion(&self.a), motion(&self.b)]
    }

    /// The velocities of the batch's bodies and how far they moved and turned in the step.
    #[inline]
    fn states(&self, bodies: &[SolverBody]) -> [(Motion<L>, V3<L>, V3<L>); 2] {
        [state_of(bodies, &self.a), state_of(bodies, &self.b)]
    }

    /// The push-out velocities of the batch's bodies.
    #[inline]
    fn push_motions(indices: [L::Indices; 2], bodies: &[SolverBody]) -> [Motion<L>; 2] {
        let motion = |index: &L::Indices| {
            let index = index.as_ref();
            Motion {
                linvel: V3::gather(|i| bodies[index[i] as usize].push_linvel),
                angvel: V3::gather(|i| bodies[index[i] as usize].push_angvel),
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
    pub(crate) fn store(&self, c: &Batch<L>, bodies: &mut [SolverBody]) {
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
                let body = &mut bodies[index[lane] as usize];
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
fn state_of<L: Lane>(bodies: &[SolverBody], index: &L::Indices) -> (Motion<L>, V3<L>, V3<L>) {
    let [first, second, third] = rows_of::<L>(bodies, index);
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
fn rows_of<L: Lane>(bodies: &[SolverBody], index: &L::Indices) -> [L::Rows; 3] {
    let mut rows = [L::Rows::default(); 3];
    for (lane, &i) in index.as_ref().iter().enumerate() {
        let [first, second, third] = bodies[i as usize].rows();
        rows[0].as_mut()[lane] = first;
        rows[1].as_mut()[lane] = second;
        rows[2].as_mut()[lane] = third;
    }
    rows
}

/// The speed at which the point closes along the normal (negative when approaching).
#[inline]
fn normal_speed<L: Lane>(a: &Motion<L>, b: &Motion<L>, n: &V3<L>, p: &PointLanes<L>) -> L {
    b.linvel.sub(&a.linvel).dot(n) + b.angvel.dot(&p.arm_b) - a.angvel.dot(&p.arm_a)
}

/// A normal impulse at the point: b pushed along `n`, a back. For the push-out velocities;
/// the velocity rows turn the bodies point by point ([`turn_by`]) and move them once
/// ([`move_along`]).
#[inline]
fn push<L: Lane>(
    [a, b]: &[Motion<L>; 2],
    [ma, mb]: [L; 2],
    n: &V3<L>,
    [turn_a, turn_b]: &[V3<L>; 2],
    impulse: L,
) -> [Motion<L>; 2] {
    [
        Motion {
            linvel: a.linvel.sub(&n.scale(impulse * ma)),
            angvel: a.angvel.sub(&turn_a.scale(impulse)),
        },
        Motion {
            linvel: b.linvel.add(&n.scale(impulse * mb)),
            angvel: b.angvel.add(&turn_b.scale(impulse)),
        },
    ]
}

/// The turns of a normal impulse, in the lanes of `which`: b turned by `turn_b`, a back.
#[inline]
fn turn_by<L: Lane>(
    m: &mut [Motion<L>; 2],
    which: &Which<L>,
    [turn_a, turn_b]: &[V3<L>; 2],
    impulse: L,
) {
    let a = m[0].angvel.sub(&turn_a.scale(impulse));
    let b = m[1].angvel.add(&turn_b.scale(impulse));
    m[0].angvel = which.pick3(&a, &m[0].angvel);
    m[1].angvel = which.pick3(&b, &m[1].angvel);
}

/// The linear part of normal impulses summing to `impulse`: b pushed along `n`, a back.
#[inline]
fn move_along<L: Lane>(m: &mut [Motion<L>; 2], [ma, mb]: [L; 2], n: &V3<L>, impulse: L) {
    m[0].linvel = m[0].linvel.sub(&n.scale(impulse * ma));
    m[1].linvel = m[1].linvel.add(&n.scale(impulse * mb));
}

/// `turns[0] x + turns[1] y`.
#[inline]
fn combine<L: Lane>(turns: &[V3<L>; 2], impulse: &[L; 2]) -> V3<L> {
    turns[0].scale(impulse[0]).add(&turns[1].scale(impulse[1]))
}

/// A friction impulse (along the two tangents) at the friction centre: b dragged along, a back.
#[inline]
fn rub<L: Lane>(m: &mut [Motion<L>; 2], c: &Batch<L>, impulse: &[L; 2]) {
    let linear = combine(&c.tangents, impulse);
    let [turns_a, turns_b] = &c.friction_turns();
    m[0].linvel = m[0].linvel.sub(&linear.scale(c.inverse_mass[0]));
    m[0].angvel = m[0].angvel.sub(&combine(turns_a, impulse));
    m[1].linvel = m[1].linvel.add(&linear.scale(c.inverse_mass[1]));
    m[1].angvel = m[1].angvel.add(&combine(turns_b, impulse));
}

/// A tilt impulse (about the two tangents): b turned, a back.
#[inline]
fn tilt<L: Lane>(m: &mut [Motion<L>; 2], c: &Batch<L>, impulse: &[L; 2]) {
    let [turns_a, turns_b] = &c.tilt_turns();
    m[0].angvel = m[0].angvel.sub(&combine(turns_a, impulse));
    m[1].angvel = m[1].angvel.add(&combine(turns_b, impulse));
}

/// `total` held to a disc (a ball) of radius `limit`: scaled down to it when longer.
#[inline]
fn clamp_length<L: Lane, const N: usize>(total: [L; N], limit: L) -> [L; N] {
    let mut length_sq = total[0] * total[0];
    for x in &total[1..] {
        length_sq = length_sq + *x * *x;
    }
    let outside = length_sq.gt(limit * limit);
    if !L::any(outside) {
        return total; // inside in every lane: no square root, no division
    }
    let scale = limit / length_sq.sqrt();
    let mut total = total;
    for x in &mut total {
        *x = L::select(outside, *x * scale, *x);
    }
    total
}

/// Applies the accumulated impulses, once per substep (the accumulated impulse is the
/// per-substep one, as in Box2D).
pub(crate) fn warm_start<L: Lane>(c: &mut Batch<L>, bodies: &[SolverBody]) -> Option<Moved<L>> {
    let mut m = c.motions(bodies);
    // The normal impulses move the bodies along the normal alone: their sum, applied once.
    let mut along_normal = L::splat(0.0);
    for (k, p) in c.points.iter().enumerate() {
        let has = Which::<L>::new(c.has_point(k));
        if !has.any() {
            break; // points fill their slots in order
        }
        let turns = c.point_turns(k);
        turn_by(&mut m, &has, &turns, p.normal_impulse);
        along_normal = has.pick(along_normal + p.normal_impulse, along_normal);
    }
    move_along(&mut m, c.inverse_mass, &c.normal, along_normal);
    rub(&mut m, c, &c.friction_impulse);
    let [twist_a, twist_b] = c.twist_turns();
    m[0].angvel = m[0].angvel.sub(&twist_a.scale(c.twist_impulse));
    m[1].angvel = m[1].angvel.add(&twist_b.scale(c.twist_impulse));
    tilt(&mut m, c, &c.tilt_impulse);
    let rolls = Which::new(c.rolling_resistance.gt(L::splat(0.0)));
    if rolls.any() {
        let a = m[0]
            .angvel
            .sub(&mul3(&c.cold.inverse_inertia[0], &c.cold.rolling_impulse));
        let b = m[1]
            .angvel
            .add(&mul3(&c.cold.inverse_inertia[1], &c.cold.rolling_impulse));
        m[0].angvel = rolls.pick3(&a, &m[0].angvel);
        m[1].angvel = rolls.pick3(&b, &m[1].angvel);
    }
    Some(Moved {
        motion: m,
        push: None,
    })
}

/// One Gauss-Seidel pass (see `contact` for the rows), compiled once for each pass so that
/// neither carries the other's rows. With `USE_BIAS` (the soft iteration):
/// points still apart get the speculative bias `s / h`, which lets them close exactly;
/// penetrating points are pushed out softly, at most at `max_push_out_speed` (those deeper than
/// [`is_deep`] through the push-out velocities, their velocity row rigid); then the tilt
/// row; no friction. Without (the relax iteration): rigid, no bias, then the tilt row, twist and
/// friction at the friction centre, clamped by Coulomb's law to `mu` times the manifold's
/// normal impulse (a disc for the 2D friction).
pub(crate) fn solve<L: Lane, const USE_BIAS: bool>(
    c: &mut Batch<L>,
    bodies: &[SolverBody],
    settings: &SolveSettings,
) -> Option<Moved<L>> {
    let [(motion_a, moved_a, angle_a), (motion_b, moved_b, angle_b)] = c.states(bodies);
    let mut m = [motion_a, motion_b];
    let mut pushes: Option<[Motion<L>; 2]> = None;
    let fixed = c.fixed_pair.gt(L::splat(0.0));
    let soft =
        |fixed_value: Real, value: Real| L::select(fixed, L::splat(fixed_value), L::splat(value));
    let (s, fs) = (&settings.softness, &settings.fixed_softness);
    let bias_rate = soft(fs.bias_rate, s.bias_rate);
    let mass_scale = soft(fs.mass_scale, s.mass_scale);
    let impulse_scale = soft(fs.impulse_scale, s.impulse_scale);
    let depth_per_load = soft(fs.depth_per_load, s.depth_per_load);
    let (zero, one) = (L::splat(0.0), L::splat(1.0));
    let max_push_out = L::splat(-settings.max_push_out_speed);
    let n = c.normal;
    let (a, b) = (c.a, c.b);
    let moved = moved_b.sub(&moved_a).dot(&n);
    // The normal rows move the bodies along `n` alone, so the points' linear velocities are
    // not updated one by one: their normal speed is the speed at the start plus what the
    // impulses applied so far (`along_normal`, their sum) added, and the sum moves the bodies
    // once after the points. Fewer values live across the points than both bodies' velocities.
    let linear_mass = c.inverse_mass[0] + c.inverse_mass[1];
    let start_speed = m[1].linvel.sub(&m[0].linvel).dot(&n);
    let mut along_normal = zero;
    let mut total_normal_impulse = zero;
    let mut twist_limit = zero;
    for k in 0..c.points.len() {
        let has = Which::<L>::new(c.has_point(k));
        if !has.any() {
            break;
        }
        let turns = c.point_turns(k);
        let p = &mut c.points[k];
        // The separation now, to first order in the turns (exact for the translations):
        // `s0 + n . (dp_b - dp_a) + theta_b . (r_b x n) - theta_a . (r_a x n)`.
        let separation = p.separation + moved + angle_b.dot(&p.arm_b) - angle_a.dot(&p.arm_a);
        let apart = separation.gt(zero);
        let deep = is_deep(separation, p.normal_impulse, p.normal_mass, depth_per_load);
        let (bias, scale, impulse_scale) = if USE_BIAS {
            let pushes_out = Which::<L>::new(deep & has.mask);
            if pushes_out.any() {
                // Deep: rigid in velocity; the push-out goes to the push-out velocities.
                let old = *pushes.get_or_insert_with(|| Batch::push_motions([a, b], bodies));
                let push_bias = (bias_rate * separation).max(max_push_out);
                let vn = normal_speed(&old[0], &old[1], &n, p);
                let impulse = (-p.normal_mass * (vn + push_bias)).max(zero);
                let new = push(&old, c.inverse_mass, &n, &turns, impulse);
                pushes = Some([
                    Motion::pick(&pushes_out, &new[0], &old[0]),
                    Motion::pick(&pushes_out, &new[1], &old[1]),
                ]);
            }
            let soft = !apart & !deep;
            let soft_bias = (mass_scale * bias_rate * separation).max(max_push_out);
            (
                L::select(
                    apart,
                    separation * L::splat(settings.inverse_h),
                    L::select(soft, soft_bias, zero),
                ),
                L::select(soft, mass_scale, one),
                L::select(soft, impulse_scale, zero),
            )
        } else {
            (
                L::select(apart, separation * L::splat(settings.inverse_h), zero),
                one,
                zero,
            )
        };
        let vn = start_speed + linear_mass * along_normal + m[1].angvel.dot(&p.arm_b)
            - m[0].angvel.dot(&p.arm_a);
        let impulse = -p.normal_mass * (scale * vn + bias) - impulse_scale * p.normal_impulse;
        let total = (p.normal_impulse + impulse).max(zero);
        let impulse = total - p.normal_impulse;
        p.normal_impulse = has.pick(total, p.normal_impulse);
        p.max_normal_impulse = has.pick(p.max_normal_impulse.max(impulse), p.max_normal_impulse);
        total_normal_impulse = has.pick(total_normal_impulse + total, total_normal_impulse);
        twist_limit = has.pick(twist_limit + p.lever_arm * total, twist_limit);
        turn_by(&mut m, &has, &turns, impulse);
        along_normal = has.pick(along_normal + impulse, along_normal);
    }
    move_along(&mut m, c.inverse_mass, &n, along_normal);
    let tilts = Which::new(c.support_radius.gt(zero));
    if tilts.any() {
        hold_tilt(c, &mut m, total_normal_impulse, tilts);
    }
    if !USE_BIAS {
        // Twist about the normal.
        let twist_speed = n.dot(&m[1].angvel.sub(&m[0].angvel));
        let limit = c.friction * twist_limit;
        let old = c.twist_impulse;
        c.twist_impulse = (old - c.twist_mass * twist_speed).clamp(-limit, limit);
        let delta = c.twist_impulse - old;
        let [twist_a, twist_b] = c.twist_turns();
        m[0].angvel = m[0].angvel.sub(&twist_a.scale(delta));
        m[1].angvel = m[1].angvel.add(&twist_b.scale(delta));
        // Sliding, at the friction centre.
        let dv = m[1].linvel.sub(&m[0].linvel);
        let [arms_a, arms_b] = &c.friction_arms;
        let vt = |k: usize| {
            dv.dot(&c.tangents[k]) + m[1].angvel.dot(&arms_b[k]) - m[0].angvel.dot(&arms_a[k])
        };
        let vt = [vt(0), vt(1)];
        let pushed = mul2(&c.tangent_mass, &vt);
        let total = [
            c.friction_impulse[0] - pushed[0],
            c.friction_impulse[1] - pushed[1],
        ];
        let total = clamp_length(total, c.friction * total_normal_impulse);
        let delta = [
            total[0] - c.friction_impulse[0],
            total[1] - c.friction_impulse[1],
        ];
        c.friction_impulse = total;
        rub(&mut m, c, &delta);
        let rolls = Which::new(c.rolling_resistance.gt(zero));
        if rolls.any() {
            // Rolling resistance (Box3D): the relative turn, clamped to a ball of radius
            // the resistance times the normal impulse.
            let cold = &mut *c.cold;
            let old = cold.rolling_impulse;
            let turned = mul3(&cold.rolling_mass, &m[1].angvel.sub(&m[0].angvel));
            let total = old.sub(&turned);
            let [x, y, z] = clamp_length(
                [total.x, total.y, total.z],
                c.rolling_resistance * total_normal_impulse,
            );
            let total = V3 { x, y, z };
            cold.rolling_impulse = rolls.pick3(&total, &old);
            let delta = total.sub(&old);
            let a = m[0].angvel.sub(&mul3(&cold.inverse_inertia[0], &delta));
            let b = m[1].angvel.add(&mul3(&cold.inverse_inertia[1], &delta));
            m[0].angvel = rolls.pick3(&a, &m[0].angvel);
            m[1].angvel = rolls.pick3(&b, &m[1].angvel);
        }
    }
    Some(Moved {
        motion: m,
        push: pushes,
    })
}

/// The tilt row, in the lanes `tilts`: a face contact holds the two bodies' relative tilt
/// (rotation about axes in the contact plane) until the tipping torque exceeds the load times
/// the support polygon's reach, as a rigid face does. Soft points alone let a tall stack lean
/// like a column on springs: a tilt compresses one side's springs by `r theta` and they push
/// back with a torque that grows like the spring stiffness, while the weight above tips it
/// further with a torque that grows like the load times its height, so a stack of twenty unit
/// cubes buckles at 30 Hz. Solved in both passes, so that the position update never sees a lean
/// the row would refuse.
#[inline]
fn hold_tilt<L: Lane>(
    c: &mut Batch<L>,
    m: &mut [Motion<L>; 2],
    total_normal_impulse: L,
    tilts: Which<L>,
) {
    let relative = m[1].angvel.sub(&m[0].angvel);
    let relative = [relative.dot(&c.tangents[0]), relative.dot(&c.tangents[1])];
    let old = c.tilt_impulse;
    let turned = mul2(&c.tilt_mass, &relative);
    let total = [old[0] - turned[0], old[1] - turned[1]];
    let total = clamp_length(total, total_normal_impulse * c.support_radius);
    c.tilt_impulse = [tilts.pick(total[0], old[0]), tilts.pick(total[1], old[1])];
    let mut tilted = *m;
    tilt(&mut tilted, c, &[total[0] - old[0], total[1] - old[1]]);
    for (m, tilted) in m.iter_mut().zip(&tilted) {
        m.angvel = tilts.pick3(&tilted.angvel, &m.angvel);
    }
}

/// Restitution, once after the substeps: a point that approached faster than `threshold` and
/// pushed leaves at `e` times its approach speed.
pub(crate) fn restitution<L: Lane>(
    c: &mut Batch<L>,
    bodies: &[SolverBody],
    threshold: Real,
) -> Option<Moved<L>> {
    let zero = L::splat(0.0);
    let bounces = !c.cold.restitution.eq(zero);
    if !L::any(bounces) {
        return None; // nothing bounces: the bodies are not read or written
    }
    let mut m = c.motions(bodies);
    {
        for k in 0..c.points.len() {
            let has = Which::<L>::new(c.has_point(k));
            if !has.any() {
                break;
            }
            let relative_velocity = c.cold.relative_velocity[k];
            let fast = !relative_velocity.gt(L::splat(-threshold));
            let pushed = !c.points[k].max_normal_impulse.eq(zero);
            let bounce = Which::new(has.mask & bounces & fast & pushed);
            if !bounce.any() {
                continue;
            }
            let turns = c.point_turns(k);
            let p = &mut c.points[k];
            let vn = normal_speed(&m[0], &m[1], &c.normal, p);
            let impulse = -p.normal_mass * (vn + c.cold.restitution * relative_velocity);
            let total = (p.normal_impulse + impulse).max(zero);
            let impulse = total - p.normal_impulse;
            p.normal_impulse = bounce.pick(total, p.normal_impulse);
            let pushed = push(&m, c.inverse_mass, &c.normal, &turns, impulse);
            m[0] = Motion::pick(&bounce, &pushed[0], &m[0]);
            m[1] = Motion::pick(&bounce, &pushed[1], &m[1]);
        }
    }
    Some(Moved {
        motion: m,
        push: None,
    })
}
