//! Plain ball and socket joints (a spherical joint without cone, twist or friction: its
//! anchors only) solved `L::WIDTH` at a time, one per lane ([`BallBatch`]): every one of them,
//! a narrow level's in a batch part full (at one lane, one at a time).
//!
//! A batch holds joints of one level (`place::level_joints`): no two of them move the same
//! body, and each sees the velocities the pass one joint at a time in handle order gives it,
//! so solving them side by side changes nothing. Every lane computes what the scalar pass
//! of a plain ball and socket computed before batches (`Motion::point`, `rows::point_delta`,
//! `JointConstraint::refresh`), in nalgebra's order of operations (`lanes`), but for a body
//! whose inverse inertia is a plain scale `s 1` (a ball's, a cube's, a fixed body's): its
//! angular impulse is scaled by `s` and its term of the anchors' `K` made in closed form
//! (`scaled_term`), fewer operations and other roundings than the matrix products. Which
//! arithmetic a lane does is its own bodies' choice, never its batch-mates', so a joint's
//! results are the same bits at any width (the unit test below; `tests/joints_determinism.rs`
//! compares one, four and eight lanes).
//!
//! A plain ball and socket is placed as a [`Ball`] of one cache line (its slots, arms, centres'
//! offset, impulse and softness), not a `JointConstraint` of several: the grid's place, fill
//! and store touch a line a joint rather than four (Box3D's joint grid, 19,800 of them: its
//! step 17% faster by Box3D's protocol on one thread). A batch is filled from its joints'
//! `Ball`s and their bodies' states once per step and keeps its lanes' anchors and effective
//! mass through the substeps (made and refreshed here, in lanes); its impulses are copied out
//! at the end of the step (`results`, a [`BallResult`] in the joint's place), where the store
//! reads them and makes the reaction.

use super::{JointBodies, JointBody, arm, hold};
use crate::joint::{Joint, JointHandle, Spring};
use crate::response::solver::algebra::{Quaternions, cross_matrix, inverse, neg, rotate};
use crate::response::solver::body::SolverBody;
use crate::response::solver::lanes::{Lane, M3, V3, mul3, mul33};
use geom::{Matrix3, Real, Vector3};
use slotmap::SlotMap;
use std::ops::Range;

/// A group's ball batches, level by level, and which of its joints each holds; a buffer lent
/// to one group at a time (`schedule::Pool`).
#[derive(Debug, Default)]
pub(crate) struct BallBatches<L: Lane> {
    batches: Vec<BallBatch<L>>,
    /// Per level, where its batches start (then their count).
    starts: Vec<u32>,
    /// Per batch, its joints' places in the group's level order.
    members: Vec<Range<u32>>,
    /// The group's other joints (by index), which refresh themselves.
    loose: Vec<u32>,
}

/// A group's ball batches as [`BallBatches::lay_out`] gives them: per level, where its
/// batches start, then their count; per batch, its joints' places in level order; the
/// batches, to fill.
pub(crate) struct BallLayout<'a, L: Lane> {
    pub(crate) starts: &'a [u32],
    pub(crate) members: &'a [Range<u32>],
    pub(crate) batches: &'a mut [BallBatch<L>],
    /// The joints of no batch, by index among the group's.
    pub(crate) loose: &'a [u32],
}

/// A plain ball and socket as a step holds it (`JointConstraint` holds the other joints): what
/// its batch is filled from, made in handle order when the joints are placed and read in level
/// order, at random, by [`BallBatch::fill`]: one cache line.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct Ball {
    /// Its bodies' slots from its group's first: 0, the group's fixed state, for a body it
    /// does not move (static or asleep), and only for such a body.
    slots: [u32; 2],
    /// The anchors from the centres of mass at the start of the step, and the centres' offset
    /// `cB - cA` (as `JointConstraint::arms` and `delta_center`).
    arms: [Vector3; 2],
    delta_center: Vector3,
    /// The joint's accumulated anchor impulse, to warm start from.
    impulse: Vector3,
    /// The joint's softness, which the fill caps for the substep (`hold`).
    softness: Spring,
}

// One cache line: the fill reads it at random.
const _: () = assert!(std::mem::size_of::<Ball>() == 64);

impl Default for Ball {
    fn default() -> Self {
        Self {
            slots: [0; 2],
            arms: [Vector3::zeros(); 2],
            delta_center: Vector3::zeros(),
            impulse: Vector3::zeros(),
            softness: Spring {
                hertz: 0.0,
                damping_ratio: 0.0,
            },
        }
    }
}

impl Ball {
    /// The joint of `source` (a plain ball and socket) between the bodies `[a, b]`, at
    /// `slots` of its group (0 for a body it does not move).
    pub(crate) fn of(source: &BallSource, [a, b]: [&JointBody; 2], slots: [u32; 2]) -> Self {
        debug_assert!(source.plain);
        Self {
            slots,
            arms: [arm(a, &source.anchors[0]), arm(b, &source.anchors[1])],
            delta_center: b.center - a.center,
            impulse: source.impulse,
            softness: source.softness,
        }
    }

    /// The slots it moves (`JointConstraint::moved`).
    pub(crate) fn moved(&self) -> [Option<usize>; 2] {
        self.slots.map(|s| (s != 0).then_some(s as usize))
    }
}

/// What a joint's [`Ball`] is made from of the joint itself, when it is a plain ball and
/// socket (`plain`): its anchors in its bodies' frames, its softness, its accumulated anchor
/// impulse. Kept from step to step ([`BallSources`]) so that the place reads these, 48 bytes a
/// joint in handle order, rather than the joints' records in the world's slot map (248 bytes
/// each, four or five cache lines: the grid's 19,800 streamed five megabytes a step for them).
#[derive(Debug, Clone, Copy)]
pub(crate) struct BallSource {
    anchors: [Vector3; 2],
    softness: Spring,
    impulse: Vector3,
    /// Whether its joint is a plain ball and socket (else nothing here is read: its
    /// constraint is made from the joint).
    pub(crate) plain: bool,
}

impl BallSource {
    fn of(joint: &Joint) -> Self {
        Self {
            anchors: joint.frames.map(|frame| frame.translation.vector),
            softness: joint.softness,
            impulse: joint.impulses.linear,
            plain: joint.kind.is_plain_ball(),
        }
    }
}

/// Per joint of the step's list (handle order), its [`BallSource`], and the list they were
/// made for. A step whose list is the last step's reads them as they are: the world forgets
/// them ([`BallSources::forget`]) whenever a joint changes outside a step (added, removed, its
/// settings set, a world restored), and the step's store keeps each solved ball's impulse in
/// them as it writes it into the joint, so they are always what the joints hold.
#[derive(Debug, Clone, Default)]
pub(crate) struct BallSources {
    list: Vec<JointHandle>,
    sources: Vec<BallSource>,
}

impl BallSources {
    /// The sources of `joint_list`'s joints: kept if it is the list they were made for, else
    /// made from the joints.
    pub(crate) fn sync(
        &mut self,
        joints: &SlotMap<JointHandle, Joint>,
        joint_list: &[JointHandle],
    ) -> &[BallSource] {
        if self.list != joint_list {
            self.list.clear();
            self.list.extend_from_slice(joint_list);
            self.sources.clear();
            (self.sources).extend(joint_list.iter().map(|&h| BallSource::of(&joints[h])));
        }
        &self.sources
    }

    /// Made again by the next step (a joint changed outside a step).
    pub(crate) fn forget(&mut self) {
        self.list.clear();
        self.sources.clear();
    }

    /// The `k`th joint of the list, a plain ball and socket, now holds `impulse`.
    pub(crate) fn set_impulse(&mut self, k: usize, impulse: Vector3) {
        debug_assert!(self.sources[k].plain);
        self.sources[k].impulse = impulse;
    }
}

/// Asks the processor for what [`BallBatch::fill`] will read (a hint: it changes nothing):
/// the records of the joints `later` (a batch after the next), and the states of the bodies
/// of the joints `next` (whose records the last call asked for). The fill reads both at
/// random, in the colours' order.
#[inline]
pub(crate) fn prefetch_balls(balls: &[Ball], later: &[u32], next: &[u32], states: &[SolverBody]) {
    use crate::ahead::prefetch_lines;
    for &k in later {
        if let Some(ball) = balls.get(k as usize) {
            prefetch_lines(ball);
        }
    }
    for &k in next {
        if let Some(ball) = balls.get(k as usize) {
            for &slot in &ball.slots {
                if let Some(state) = states.get(slot as usize) {
                    prefetch_lines(state);
                }
            }
        }
    }
}

/// What a step leaves of a plain ball and socket: its accumulated impulse, and whether it let
/// go (a velocity it made, or one of its bodies' at the end, was not finite), which clears its
/// joint's other impulses and its reaction.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct BallResult {
    pub(crate) impulse: Vector3,
    pub(crate) let_go: bool,
}

impl<L: Lane> BallBatches<L> {
    /// Lays out the batches of a group with its joints in levels `levels` (`place::level_joints`:
    /// per level where its balls and its others start in `order`, then the count): each
    /// level's balls in batches of `L::WIDTH` (the last of a level part full), the others
    /// solved one at a time.
    pub(crate) fn lay_out(&mut self, levels: &[u32], order: &[u32]) -> BallLayout<'_, L> {
        let width = L::WIDTH;
        self.starts.clear();
        self.members.clear();
        self.loose.clear();
        self.starts.push(0);
        for (level, end) in levels.chunks_exact(2).zip(levels.iter().skip(2).step_by(2)) {
            let (balls, others) = (level[0] as usize..level[1] as usize, level[1] as usize);
            for first in balls.clone().step_by(width) {
                let end = (first + width).min(balls.end);
                self.members.push(first as u32..end as u32);
            }
            self.loose.extend_from_slice(&order[others..*end as usize]);
            self.starts.push(self.members.len() as u32);
        }
        let count = self.members.len();
        if self.batches.len() < count {
            self.batches.resize_with(count, BallBatch::default);
        }
        BallLayout {
            starts: &self.starts,
            members: &self.members,
            batches: &mut self.batches[..count],
            loose: &self.loose,
        }
    }
}

/// Up to `L::WIDTH` plain ball and socket joints of one level, one per lane. An empty lane
/// (past `len`) reads the group's fixed state and is never written.
#[derive(Debug, Clone, Default)]
pub(crate) struct BallBatch<L: Lane> {
    /// Per lane, its joint's index among its group's constraints.
    joints: L::Indices,
    /// Per lane, the bodies' slots from the group's first.
    a: L::Indices,
    b: L::Indices,
    /// Lanes in use.
    len: usize,
    /// `[a, b]`, one bit per lane: whether the joint moves that body (its own slot, not the
    /// group's fixed state).
    own: [u32; 2],
    /// One bit per lane: the joint let go this step (a velocity it made was not finite), so
    /// its other impulses are cleared as `JointConstraint::commit` clears them.
    reset: u32,
    inverse_mass: [L; 2],
    /// `[a, b]`: each lane's inverse inertia `s 1` as its `s` where it is one (a ball's, a
    /// cube's, the fixed state's: [`plain_scale`]), else 0; `plain` 1 there, else 0. Such a
    /// lane's passes scale by `s` rather than multiply by the matrix, and its refresh makes
    /// `[r] s [r]` in closed form ([`scaled_term`]): a lane's arithmetic is its own bodies'
    /// choice, whatever the other lanes hold, so a joint's bits are the same at any width.
    inverse_scale: [L; 2],
    plain: [L; 2],
    /// Whether every lane's inverse inertias are plain scales (`inverse_inertia` is then not
    /// filled, and the matrix arithmetic not done).
    scaled: bool,
    /// The holding rows' softness in the soft pass: bias rate, mass scale, impulse scale.
    bias_rate: L,
    mass_scale: L,
    impulse_scale: L,
    /// As `JointConstraint::anchor_mass` and its geometry's `ra`, `rb` and `d`.
    anchor_mass: M3<L>,
    ra: V3<L>,
    rb: V3<L>,
    d: V3<L>,
    /// The accumulated impulse on `b` (`a` gets its opposite).
    impulse: V3<L>,
    /// The arms and the centres' offset at the start of the step (`JointConstraint::arms`,
    /// `delta_center`), which the refresh turns and moves.
    arms: [V3<L>; 2],
    delta_center: V3<L>,
    /// `[a, b]`: each lane's inverse inertia, filled and read only where some lane's is not a
    /// plain scale (`scaled` false).
    inverse_inertia: [M3<L>; 2],
}

/// `s` where `m` is `s 1` bit for bit: its diagonal's three entries the same bits, every other
/// entry `+0` (`SolverBody::of` keeps an isotropic body's so, in every frame).
fn plain_scale(m: &Matrix3) -> Option<Real> {
    let s = m.m11;
    let same = |x: Real| x.to_bits() == s.to_bits();
    let zero = |x: Real| x.to_bits() == 0;
    (same(m.m22)
        && same(m.m33)
        && [m.m12, m.m13, m.m21, m.m23, m.m31, m.m32]
            .into_iter()
            .all(zero))
    .then_some(s)
}

impl<L: Lane> BallBatch<L> {
    /// The batch of `balls[k]` for each `k` of `members` (at most `L::WIDTH`) for a substep
    /// of `h`; its anchors and effective mass are made by its first [`BallBatch::refresh`].
    pub(crate) fn fill(&mut self, balls: &[Ball], members: &[u32], states: &[SolverBody], h: Real) {
        debug_assert!(members.len() <= L::WIDTH);
        self.len = members.len();
        self.own = [0, 0];
        self.reset = 0;
        self.scaled = true;
        for lane in 0..L::WIDTH {
            // An empty lane: the group's fixed state, zeros.
            let Some(&k) = members.get(lane) else {
                self.joints.as_mut()[lane] = 0;
                self.a.as_mut()[lane] = 0;
                self.b.as_mut()[lane] = 0;
                self.set_lane(lane, None, states, h);
                continue;
            };
            let ball = &balls[k as usize];
            self.joints.as_mut()[lane] = k;
            self.a.as_mut()[lane] = ball.slots[0];
            self.b.as_mut()[lane] = ball.slots[1];
            for side in 0..2 {
                self.own[side] |= u32::from(ball.slots[side] != 0) << lane;
            }
            self.set_lane(lane, Some(ball), states, h);
        }
        if !self.scaled {
            for lane in 0..L::WIDTH {
                let ball = members.get(lane).map(|&k| &balls[k as usize]);
                for side in 0..2 {
                    let zero = Matrix3::zeros();
                    let inertia =
                        ball.map_or(&zero, |j| &states[j.slots[side] as usize].inverse_inertia);
                    for (r, row) in self.inverse_inertia[side].iter_mut().enumerate() {
                        for (c, x) in row.iter_mut().enumerate() {
                            x.set_lane(lane, inertia[(r, c)]);
                        }
                    }
                }
            }
        }
    }

    /// Sets `lane` to `ball`'s arms, softness and impulse (zeros without one) and its bodies'
    /// inverse masses and the scales of their inverse inertias from their `states` (which hold
    /// them through the step), or `scaled` cleared where one is not a plain scale.
    #[inline(always)]
    fn set_lane(&mut self, lane: usize, ball: Option<&Ball>, states: &[SolverBody], h: Real) {
        for side in 0..2 {
            let state = ball.map(|j| &states[j.slots[side] as usize]);
            self.inverse_mass[side].set_lane(lane, state.map_or(0.0, |s| s.inverse_mass));
            let scale = state.map_or(Some(0.0), |s| plain_scale(&s.inverse_inertia));
            self.scaled &= scale.is_some();
            self.inverse_scale[side].set_lane(lane, scale.unwrap_or(0.0));
            self.plain[side].set_lane(lane, if scale.is_some() { 1.0 } else { 0.0 });
            self.arms[side].set_lane(lane, &ball.map_or(Vector3::zeros(), |j| j.arms[side]));
        }
        let hold = ball.map(|j| hold(&j.softness, h));
        self.bias_rate
            .set_lane(lane, hold.map_or(0.0, |h| h.bias_rate));
        self.mass_scale
            .set_lane(lane, hold.map_or(0.0, |h| h.mass_scale));
        self.impulse_scale
            .set_lane(lane, hold.map_or(0.0, |h| h.impulse_scale));
        self.impulse
            .set_lane(lane, &ball.map_or(Vector3::zeros(), |j| j.impulse));
        let delta_center = ball.map_or(Vector3::zeros(), |j| j.delta_center);
        self.delta_center.set_lane(lane, &delta_center);
    }

    /// Per lane in use: its joint's index among its group's constraints and what the step
    /// leaves of it, its bodies' velocities now in `states`: where one is not finite, it lets
    /// go with no impulse (as `JointConstraint::reaction_of` for the other joints).
    pub(crate) fn results<'a>(
        &'a self,
        states: &'a [SolverBody],
    ) -> impl Iterator<Item = (usize, BallResult)> + 'a {
        (0..self.len).map(move |lane| {
            let (a, b) = (
                &states[self.a.as_ref()[lane] as usize],
                &states[self.b.as_ref()[lane] as usize],
            );
            let finite = (a.linvel + a.angvel + b.linvel + b.angvel)
                .sum()
                .is_finite();
            let result = BallResult {
                impulse: if finite {
                    self.impulse.lane(lane)
                } else {
                    Vector3::zeros()
                },
                let_go: self.reset & (1 << lane) != 0 || !finite,
            };
            (self.joints.as_ref()[lane] as usize, result)
        })
    }

    /// One pass ([`BallBatch::pass`]) over each of `batches` in order (batches of one level,
    /// all this thread's to solve), each refreshed first with `refresh`, and the next one's
    /// bodies asked for ahead while one is solved.
    #[inline]
    pub(crate) fn pass_each<B: JointBodies>(
        batches: &mut [Self],
        bodies: &mut B,
        refresh: bool,
        soft: bool,
        warm: bool,
    ) {
        for k in 0..batches.len() {
            if let Some(next) = batches.get(k + 1) {
                next.prefetch_bodies(bodies);
            }
            let batch = &mut batches[k];
            if refresh {
                batch.refresh(bodies);
            }
            batch.pass(bodies, soft, warm);
        }
    }

    /// Asks the processor for the line of each of its bodies' states that its passes and
    /// refresh read (velocities, moves and turns; a hint that changes nothing).
    #[inline]
    fn prefetch_bodies<B: JointBodies>(&self, bodies: &B) {
        for lane in 0..self.len {
            for i in [self.a.as_ref()[lane], self.b.as_ref()[lane]] {
                crate::ahead::prefetch_lines(&bodies.state(i as usize).linvel);
            }
        }
    }

    /// One pass over the batch's joints (`Motion::point` and `Motion::push_point`): the warm start
    /// (`warm`), or a solve, soft (`soft`) or rigid.
    #[inline]
    pub(crate) fn pass<B: JointBodies>(&mut self, bodies: &mut B, soft: bool, warm: bool) {
        let (va, wa) = velocities::<L, B>(bodies, &self.a);
        let (vb, wb) = velocities::<L, B>(bodies, &self.b);
        let (p, impulse) = if warm {
            (self.impulse, self.impulse)
        } else {
            // `vb + wb x rb - va - wa x ra`.
            let speed = vb
                .add(&wb.cross(&self.rb))
                .sub(&va)
                .sub(&wa.cross(&self.ra));
            // `rows::point_delta`.
            let delta = if soft {
                let biased = speed.add(&self.d.scale(self.bias_rate));
                neg(&mul3(&self.anchor_mass, &biased))
                    .scale(self.mass_scale)
                    .sub(&self.impulse.scale(self.impulse_scale))
            } else {
                neg(&mul3(&self.anchor_mass, &speed))
            };
            (delta, self.impulse.add(&delta))
        };
        let [ma, mb] = self.inverse_mass;
        let (ta, tb) = (self.ra.cross(&p), self.rb.cross(&p));
        let [sa, sb] = self.inverse_scale;
        let (ta, tb) = if self.scaled {
            (ta.scale(sa), tb.scale(sb))
        } else {
            let [ia, ib] = &self.inverse_inertia;
            let [pa, pb] = self.plain.map(|p| p.gt(L::splat(0.5)));
            (
                V3::select(pa, &ta.scale(sa), &mul3(ia, &ta)),
                V3::select(pb, &tb.scale(sb), &mul3(ib, &tb)),
            )
        };
        let old = [(va, wa), (vb, wb)];
        let va = va.sub(&p.scale(ma));
        let wa = wa.sub(&ta);
        let vb = vb.add(&p.scale(mb));
        let wb = wb.add(&tb);
        // `JointConstraint::commit`: one test for all twelve, nalgebra's sum of
        // `va + wa + vb + wb`; a lane that is not finite writes nothing and lets go.
        let s = va.add(&wa).add(&vb).add(&wb);
        let sum = L::splat(0.0) + s.x + s.y + s.z;
        let finite = sum.abs().lt(L::splat(Real::INFINITY));
        let used = (1u32 << self.len) - 1;
        let ok = L::bits(finite) & used;
        self.impulse = V3::select(finite, &impulse, &V3::splat(0.0));
        self.reset |= !ok & used;
        let keep = bodies.keeps_changes();
        for (side, index, v, w) in [(0, &self.a, va, wa), (1, &self.b, vb, wb)] {
            let mut write = self.own[side] & ok;
            if write == 0 {
                continue;
            }
            // The new velocities and what they changed by, lane by lane (`JointBodies::set`).
            let (old_v, old_w) = &old[side];
            let velocities = rows::<L>(&v, &w);
            // What they changed by, only where it is kept (zeros, never read, elsewhere).
            let changes = if keep {
                rows::<L>(&v.sub(old_v), &w.sub(old_w))
            } else {
                <[L::Rows; 2]>::default()
            };
            while write != 0 {
                let lane = write.trailing_zeros() as usize;
                write &= write - 1;
                let vector = |r: &[L::Rows; 2]| {
                    let (first, second) = (&r[0].as_ref()[lane], &r[1].as_ref()[lane]);
                    [
                        Vector3::new(first[0], first[1], first[2]),
                        Vector3::new(first[3], second[0], second[1]),
                    ]
                };
                let [linvel, angvel] = vector(&velocities);
                bodies.set_changed(
                    index.as_ref()[lane] as usize,
                    linvel,
                    angvel,
                    vector(&changes),
                );
            }
        }
    }

    /// After the positions move: the anchors, their offset and the effective mass as the
    /// bodies are now (what `JointConstraint::refresh` computes, for a joint that does not
    /// turn).
    pub(crate) fn refresh<B: JointBodies>(&mut self, bodies: &B) {
        let (qa, pa) = turns_and_moves::<L, B>(bodies, &self.a);
        let (qb, pb) = turns_and_moves::<L, B>(bodies, &self.b);
        let ra = rotate(&qa, &self.arms[0]);
        let rb = rotate(&qb, &self.arms[1]);
        self.d = pb.sub(&pa).add(&self.delta_center).add(&rb).sub(&ra);
        // `K = (mA + mB) 1 - [rA] IA^-1 [rA] - [rB] IB^-1 [rB]`, then its inverse.
        let m = self.inverse_mass[0] + self.inverse_mass[1];
        let (one, zero) = (L::splat(1.0), L::splat(0.0));
        let scaled_identity: M3<L> = std::array::from_fn(|r| {
            std::array::from_fn(|c| if r == c { one * m } else { zero * m })
        });
        let [sa, sb] = self.inverse_scale;
        let (ka, kb) = (scaled_term(&ra, sa), scaled_term(&rb, sb));
        let (ka, kb) = if self.scaled {
            (ka, kb)
        } else {
            let [ia, ib] = &self.inverse_inertia;
            let [pa, pb] = self.plain.map(|p| p.gt(L::splat(0.5)));
            let full = |r: &V3<L>, i: &M3<L>| {
                let s = cross_matrix(r);
                mul33(&mul33(&s, i), &s)
            };
            (
                select33(pa, &ka, &full(&ra, ia)),
                select33(pb, &kb, &full(&rb, ib)),
            )
        };
        let k: M3<L> = std::array::from_fn(|r| {
            std::array::from_fn(|c| scaled_identity[r][c] - ka[r][c] - kb[r][c])
        });
        self.anchor_mass = inverse(&k).0;
        self.ra = ra;
        self.rb = rb;
    }
}

/// `[r] s [r]` (`[r]` the cross matrix of `r`) in closed form, `s (r r^T - |r|^2 1)`: the
/// term of the anchors' `K` for a body whose inverse inertia is `s 1`, in six products and
/// sums rather than two full matrix products.
#[inline(always)]
fn scaled_term<L: Lane>(r: &V3<L>, s: L) -> M3<L> {
    let length = r.x * r.x + r.y * r.y + r.z * r.z;
    let (xy, xz, yz) = (s * (r.x * r.y), s * (r.x * r.z), s * (r.y * r.z));
    [
        [s * (r.x * r.x - length), xy, xz],
        [xy, s * (r.y * r.y - length), yz],
        [xz, yz, s * (r.z * r.z - length)],
    ]
}

/// `t` where `mask` holds, else `f`, entry by entry.
#[inline(always)]
fn select33<L: Lane>(mask: L::Mask, t: &M3<L>, f: &M3<L>) -> M3<L> {
    std::array::from_fn(|r| std::array::from_fn(|c| L::select(mask, t[r][c], f[r][c])))
}

/// The velocities of the bodies at `index`: the first two of `SolverBody::rows`, per lane.
#[inline(always)]
fn velocities<L: Lane, B: JointBodies>(bodies: &B, index: &L::Indices) -> (V3<L>, V3<L>) {
    let (mut first, mut second) = (L::Rows::default(), L::Rows::default());
    for (lane, &i) in index.as_ref().iter().enumerate() {
        let [f, s, _] = bodies.state(i as usize).rows();
        first.as_mut()[lane] = f;
        second.as_mut()[lane] = s;
    }
    let [vx, vy, vz, wx] = L::from_rows(&first);
    let [wy, wz, _, _] = L::from_rows(&second);
    (
        V3 {
            x: vx,
            y: vy,
            z: vz,
        },
        V3 {
            x: wx,
            y: wy,
            z: wz,
        },
    )
}

/// `v` and `w` as the first two of `SolverBody::rows`, by row and then lane.
#[inline(always)]
fn rows<L: Lane>(v: &V3<L>, w: &V3<L>) -> [L::Rows; 2] {
    let (mut first, mut second) = (L::Rows::default(), L::Rows::default());
    let zero = L::splat(0.0);
    L::to_rows([v.x, v.y, v.z, w.x], |i, r| first.as_mut()[i] = r);
    L::to_rows([w.y, w.z, zero, zero], |i, r| second.as_mut()[i] = r);
    [first, second]
}

/// How far the bodies at `index` have turned and moved since the start of the step.
fn turns_and_moves<L: Lane, B: JointBodies>(
    bodies: &B,
    index: &L::Indices,
) -> (Quaternions<L>, V3<L>) {
    let [mut turns, mut second, mut third] = <[L::Rows; 3]>::default();
    for (lane, &i) in index.as_ref().iter().enumerate() {
        let state = bodies.state(i as usize);
        let c = &state.delta_rotation.coords;
        turns.as_mut()[lane] = [c.x, c.y, c.z, c.w];
        let [_, s, t] = state.rows();
        second.as_mut()[lane] = s;
        third.as_mut()[lane] = t;
    }
    let [x, y, z, w] = L::from_rows(&turns);
    let [_, _, px, py] = L::from_rows(&second);
    let [pz, _, _, _] = L::from_rows(&third);
    (
        Quaternions {
            v: V3 { x, y, z },
            w,
        },
        V3 {
            x: px,
            y: py,
            z: pz,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::super::Owned;
    use super::*;
    use wide::f32x8;

    #[test]
    fn a_plain_scale_is_only_a_scale_times_one_to_the_bit() {
        for s in [2.5, 0.0, 1e-30] {
            assert_eq!(plain_scale(&(Matrix3::identity() * s)), Some(s));
        }
        // Not the same bits as `s 1` with `+0` off the diagonal: refused.
        let mut negative_zero = Matrix3::identity() * 2.0;
        negative_zero[(0, 1)] = -0.0;
        let mut uneven = Matrix3::identity() * 2.0;
        uneven[(2, 2)] = 2.000_001;
        let mut signed = Matrix3::zeros();
        signed[(1, 1)] = -0.0;
        let anisotropic = Matrix3::from_diagonal(&geom::Vector3::new(1.0, 2.0, 3.0));
        for m in [negative_zero, uneven, signed, anisotropic] {
            assert_eq!(plain_scale(&m), None, "{m}");
        }
    }

    #[test]
    fn the_closed_form_term_is_the_matrix_product() {
        let r = Vector3::new(0.3, -1.2, 0.7);
        let s = 2.5;
        let product = r.cross_matrix() * (Matrix3::identity() * s) * r.cross_matrix();
        let lanes = V3::<Real> {
            x: r.x,
            y: r.y,
            z: r.z,
        };
        let closed = scaled_term(&lanes, s);
        for row in 0..3 {
            for column in 0..3 {
                let (a, b) = (closed[row][column], product[(row, column)]);
                assert!((a - b).abs() <= 1e-6 * b.abs().max(1.0), "{row} {column}");
            }
        }
    }

    /// Eight joints in one batch of eight lanes, some between bodies whose inverse inertias are
    /// plain scales and some not (so the batch is not `scaled`), give each joint the bits it
    /// gets alone in a batch of one lane: a lane's arithmetic is its own bodies' choice.
    #[test]
    fn a_joint_gets_the_same_bits_alone_and_beside_others() {
        let body = |k: usize| {
            let mut state = SolverBody::FIXED;
            let x = k as Real;
            state.linvel = Vector3::new(0.1 * x, -0.3, 0.05 * x);
            state.angvel = Vector3::new(0.02 * x, 0.4, -0.1);
            state.delta_position = Vector3::new(0.001 * x, -0.002, 0.0);
            state.inverse_mass = 1.0 / (1.0 + x);
            state.inverse_inertia = if k.is_multiple_of(3) {
                Matrix3::from_diagonal(&Vector3::new(1.0, 2.0, 3.0 + x))
            } else {
                Matrix3::identity() * (0.5 + x)
            };
            state
        };
        // Slot 0 is the group's fixed state; joint k joins slots 2k + 1 and 2k + 2 (the last
        // one's first side is the fixed state).
        let states: Vec<SolverBody> = std::iter::once(SolverBody::FIXED)
            .chain((1..=16).map(body))
            .collect();
        let balls: Vec<Ball> = (0..8u32)
            .map(|k| Ball {
                slots: [if k == 7 { 0 } else { 2 * k + 1 }, 2 * k + 2],
                arms: [
                    Vector3::new(0.5, 0.1 * k as Real, 0.0),
                    Vector3::new(-0.5, 0.0, 0.2),
                ],
                delta_center: Vector3::new(1.0, 0.01 * k as Real, -0.2),
                impulse: Vector3::new(0.3, -0.1 * k as Real, 0.05),
                softness: Spring {
                    hertz: 60.0,
                    damping_ratio: 2.0,
                },
            })
            .collect();
        let h = 1.0 / 240.0;
        let run = |members: &[u32], wide: bool| -> Vec<SolverBody> {
            let mut states = states.clone();
            let mut bodies = Owned {
                states: &mut states,
                jointed: &mut [],
            };
            if wide {
                let mut batch = BallBatch::<f32x8>::default();
                batch.fill(&balls, members, bodies.states, h);
                assert!(!batch.scaled);
                batch.refresh(&bodies);
                for (soft, warm) in [(false, true), (true, false), (false, false)] {
                    batch.pass(&mut bodies, soft, warm);
                }
            } else {
                for &k in members {
                    let mut batch = BallBatch::<Real>::default();
                    batch.fill(&balls, &[k], bodies.states, h);
                    batch.refresh(&bodies);
                    for (soft, warm) in [(false, true), (true, false), (false, false)] {
                        batch.pass(&mut bodies, soft, warm);
                    }
                }
            }
            states
        };
        let bits = |states: &[SolverBody]| -> Vec<u32> {
            (states.iter())
                .flat_map(|s| {
                    s.linvel
                        .iter()
                        .chain(s.angvel.iter())
                        .copied()
                        .collect::<Vec<_>>()
                })
                .map(Real::to_bits)
                .collect()
        };
        let members: Vec<u32> = (0..8).collect();
        assert_eq!(bits(&run(&members, true)), bits(&run(&members, false)));
    }
}
