//! The stages that run on a batch of contact constraints: [`warm_start`] in the first
//! substep, [`solve`] per substep (with bias, then without: relax, with friction),
//! [`restitution`] after them.

use super::batch::*;
use super::settings::{SolveSettings, is_deep};
use crate::response::solver::lanes::{Lane, V3, Which};
use crate::response::solver::shared::Bodies;
use geom::Real;

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
pub(crate) fn warm_start<L: Lane, B: Bodies + ?Sized>(
    c: &mut Batch<L>,
    bodies: &B,
) -> Option<Moved<L>> {
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
pub(crate) fn solve<L: Lane, B: Bodies + ?Sized, const USE_BIAS: bool>(
    c: &mut Batch<L>,
    bodies: &B,
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
        let mut vt = [vt(0), vt(1)];
        if c.has_conveyor {
            let conveyor = &c.cold.conveyor_speed;
            vt = [vt[0] - conveyor[0], vt[1] - conveyor[1]];
        }
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
pub(crate) fn restitution<L: Lane, B: Bodies + ?Sized>(
    c: &mut Batch<L>,
    bodies: &B,
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
