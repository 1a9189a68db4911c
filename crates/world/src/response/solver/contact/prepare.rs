//! The contact constraint: one per touching pair with a dynamic body, up to four points, each
//! with a non-penetration row (soft, with speculative bias); friction for the whole manifold as
//! Box3D models it, a 2D row at the friction centre clamped to a disc (Coulomb) and a twist row
//! about the normal; and a tilt row that holds a face contact's relative tilt up to the tipping
//! torque its support can take. A constraint is made once per step in its lane of a batch, in
//! two passes: [`gather`] writes, one constraint at a time, what it is made from (the normal,
//! the anchors, the masses, last step's impulses); [`prepare`] then computes the rows of a
//! whole batch at once, in its lanes (the tangents first). `solve.rs` runs the stages on it:
//! per substep warm start, solve with bias, solve without (relax, with friction), and after the
//! substeps restitution.
//!
//! Frames and signs: world space; the normal points from body `a` toward body `b`; anchors run
//! from each body's centre of mass to the contact point and stay fixed for the step, so the
//! rows' lever arms (`r x n`, `I^-1 (r x n)`) are computed once in [`prepare`]; separation is
//! positive for a gap and is updated within the step to first order in the bodies' turns.
//! Every lane operation is the one nalgebra does on a single constraint, in its order (see
//! `lanes`). Source: Box2D v3 `contact_solver.c`, Box3D `contact_solver.c`.

use super::batch::{Batch, M2, M3, Motion, Turns, mul3, set_matrix};
use crate::body::{Material, RigidBody};
use crate::contact::{CachedContact, ContactPair};
use crate::response::solver::body::SolverBody;
use crate::response::solver::lanes::{Lane, V3, Which};
use arrayvec::ArrayVec;
use collide::FeatureId;
use geom::{Point3, Real, Vector3};

/// What a constraint reads of a body besides its solver state, kept per body for the step (in
/// dense handle order, static and sleeping bodies included) so that gathering a constraint
/// reads two small entries instead of two bodies from the slot map.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Surface {
    /// The centre of mass, world space ([`RigidBody::center_of_mass`]).
    pub(crate) center: Point3,
    pub(crate) material: Material,
    /// The radius of what rolls on the body (a ball or a capsule, as Box2D's rolling
    /// resistance takes it), 0 for a box or a surface.
    pub(crate) ball_radius: Real,
    /// Its rolling resistance: its collider's, else the world's.
    pub(crate) rolling_resistance: Real,
}

impl Surface {
    /// `body`'s, in a world of rolling resistance `rolling_resistance`; its collider's own
    /// is read only where `special` (some collider of the step is not plain).
    pub(crate) fn of(body: &RigidBody, rolling_resistance: Real, special: bool) -> Self {
        let own = if special {
            body.collider.flags.rolling_resistance
        } else {
            None
        };
        Self {
            center: body.center_of_mass(),
            material: body.material,
            ball_radius: rolling_radius(&body.collider.shape),
            rolling_resistance: own.unwrap_or(rolling_resistance),
        }
    }

    /// `body`'s surface's own velocity along itself, world space (a conveyor's).
    pub(crate) fn conveyor_of(body: &RigidBody) -> Vector3 {
        let velocity = body.collider.flags.tangent_velocity;
        if velocity == Vector3::zeros() {
            velocity
        } else {
            body.pose.rotation * velocity
        }
    }

    /// A pair's rolling resistance coefficient: the larger of the two (Box3D's rule).
    #[inline]
    fn rolling_resistance(a: &Self, b: &Self) -> Real {
        a.rolling_resistance.max(b.rolling_resistance)
    }
}

/// The radius of what rolls: a ball's or a capsule's, a compound's largest when all its parts
/// roll (a dumbbell), else 0.
fn rolling_radius(shape: &geom::Shape) -> Real {
    match shape {
        geom::Shape::Ball { radius } | geom::Shape::Capsule { radius, .. } => *radius,
        geom::Shape::Compound { compound } => {
            let radii = || compound.parts().iter().map(|p| rolling_radius(&p.shape));
            if radii().all(|r| r > 0.0) {
                radii().fold(0.0, Real::max)
            } else {
                0.0
            }
        }
        geom::Shape::Cuboid { .. }
        | geom::Shape::ConvexHull { .. }
        | geom::Shape::TriMesh { .. }
        | geom::Shape::HeightField { .. } => 0.0,
    }
}

/// What one constraint is made from: its pair, its bodies' slots in the solver's dense arrays,
/// their surfaces and solver states, and last step's impulses of the pair if it had any.
pub(crate) struct Inputs<'a> {
    pub(crate) pair: &'a ContactPair,
    /// Counted from the first slot of the constraint's group (0, the group's fixed state, for
    /// a static or sleeping body).
    pub(crate) slots: (u32, u32),
    pub(crate) surfaces: (&'a Surface, &'a Surface),
    pub(crate) states: (&'a SolverBody, &'a SolverBody),
    /// Whether both bodies are isotropic ([`SolverBody::is_isotropic`]).
    pub(crate) isotropic: bool,
    pub(crate) cached: Option<&'a CachedContact>,
    /// The surfaces' own relative velocity (a conveyor's: a's less b's), world space.
    pub(crate) conveyor: Vector3,
}

/// Per lane, two unit tangents completing `normal` to a right-handed frame, chosen from the
/// normal alone (so that equal normals give equal tangents in every step): a unit vector has
/// a component of at least `1/sqrt 3` in magnitude, and the first tangent avoids it. Zero in a
/// lane without a normal (an empty lane). The operations of nalgebra's `normalize` and `cross`
/// on one normal, lane by lane.
fn tangents_of<L: Lane>(normal: &V3<L>) -> [V3<L>; 2] {
    let zero = L::splat(0.0);
    let (n, big) = (normal, normal.x.abs().gt(L::splat(0.5)));
    let raw = V3 {
        x: L::select(big, n.y, zero),
        y: L::select(big, -n.x, n.z),
        z: L::select(big, zero, -n.y),
    };
    let length = raw.dot(&raw).sqrt();
    let t1 = V3::select(length.gt(zero), &raw.unscale(length), &V3::splat(0.0));
    let t2 = t1.cross(n);
    [t1, t2]
}

/// The kind of the constraint of `pair` (below `color::KINDS`), by which a colour orders its
/// constraints: how many points it has, whether it rolls (a pair with a ball, when there is
/// rolling resistance), whether a body's inertia differs about some axis (its turns are then
/// read from `Turns`).
pub(crate) fn kind(
    pair: &ContactPair,
    (surface_a, surface_b): (&Surface, &Surface),
    isotropic: (bool, bool),
) -> usize {
    let points = pair.contact.points.len().clamp(1, 4) - 1;
    let rolls = Surface::rolling_resistance(surface_a, surface_b) > 0.0
        && (surface_a.ball_radius > 0.0 || surface_b.ball_radius > 0.0);
    let anisotropic = !(isotropic.0 && isotropic.1);
    points + if rolls { 4 } else { 0 } + if anisotropic { 8 } else { 0 }
}

/// Writes into `lane` of `c` what the constraint of `inputs` is made from, and its points'
/// feature ids into `ids`; [`prepare`] then computes its rows. `None` empties the lane: every
/// value zero, both bodies the fixed state. Last step's impulses warm start the points whose
/// feature ids match and the friction, twist and tilt rows (carried in world space, so that
/// they survive a change of tangents). Until [`prepare`], a point's anchors (from each body's
/// centre of mass to the point) wait in its arms' places.
pub(crate) fn gather<L: Lane>(
    c: &mut Batch<L>,
    lane: usize,
    inputs: Option<&Inputs<'_>>,
    ids: &mut ArrayVec<FeatureId, 4>,
) {
    let zero = Vector3::zeros();
    let fixed = (&SolverBody::FIXED, &SolverBody::FIXED);
    let (state_a, state_b) = inputs.map_or(fixed, |i| i.states);
    let (a, b) = inputs.map_or((0, 0), |i| i.slots);
    c.a.as_mut()[lane] = a;
    c.b.as_mut()[lane] = b;
    c.inverse_mass[0].set_lane(lane, state_a.inverse_mass);
    c.inverse_mass[1].set_lane(lane, state_b.inverse_mass);
    let fixed_pair =
        inputs.is_some() && (state_a.inverse_mass == 0.0 || state_b.inverse_mass == 0.0);
    c.fixed_pair
        .set_lane(lane, if fixed_pair { 1.0 } else { 0.0 });
    // An isotropic body's inverse inertia is its scale `s` (`I^-1 = s 1`); the matrices are
    // written only in the lanes that read them (below).
    let isotropic = inputs.is_none_or(|i| i.isotropic);
    c.cold
        .isotropic
        .set_lane(lane, if isotropic { 1.0 } else { 0.0 });
    c.inverse_inertia_scale[0].set_lane(lane, state_a.inverse_inertia[(0, 0)]);
    c.inverse_inertia_scale[1].set_lane(lane, state_b.inverse_inertia[(0, 0)]);
    let normal = inputs.map_or(zero, |i| i.pair.contact.normal);
    c.normal.set_lane(lane, &normal);
    let materials = inputs.map(|i| (&i.surfaces.0.material, &i.surfaces.1.material));
    let (friction, restitution) = materials.map_or((0.0, 0.0), |(a, b)| {
        (
            Material::mix_friction(a.friction, b.friction),
            Material::mix_restitution(a.restitution, b.restitution),
        )
    });
    c.friction.set_lane(lane, friction);
    c.cold.restitution.set_lane(lane, restitution);
    // Last step's friction and tilt impulses, world space, wait in the friction arms' places
    // (and whether there are any in the first friction impulse's) until [`prepare`] computes
    // the tangents, all lanes at once, and projects them; the twist impulse is kept as it is.
    let cached = inputs.and_then(|i| i.cached);
    let (warm, friction_impulse, twist_impulse, tilt_impulse) = cached
        .map_or((0.0, zero, 0.0, zero), |c| {
            (1.0, c.friction_impulse, c.twist_impulse, c.tilt_impulse)
        });
    c.friction_impulse[0].set_lane(lane, warm);
    c.friction_arms[0][0].set_lane(lane, &friction_impulse);
    c.friction_arms[0][1].set_lane(lane, &tilt_impulse);
    c.twist_impulse.set_lane(lane, twist_impulse);
    // The points: anchors, separation, warm-started normal impulse.
    let points = inputs.map_or(&[][..], |i| &i.pair.contact.points[..]);
    c.point_count.set_lane(lane, points.len() as Real);
    let centers = inputs.map(|i| (i.surfaces.0.center, i.surfaces.1.center));
    ids.clear();
    for (k, slot) in c.points.iter_mut().enumerate() {
        slot.max_normal_impulse.set_lane(lane, 0.0);
        if let (Some(point), Some((center_a, center_b))) = (points.get(k), centers) {
            slot.arm_a.set_lane(lane, &(point.position - center_a));
            slot.arm_b.set_lane(lane, &(point.position - center_b));
            slot.separation.set_lane(lane, -point.depth);
            let warm = cached.and_then(|c| c.points.iter().find(|p| p.id == point.id));
            slot.normal_impulse
                .set_lane(lane, warm.map_or(0.0, |w| w.normal_impulse));
            ids.push(point.id);
        } else {
            slot.arm_a.set_lane(lane, &zero);
            slot.arm_b.set_lane(lane, &zero);
            for x in [
                &mut slot.separation,
                &mut slot.normal_mass,
                &mut slot.normal_impulse,
                &mut slot.lever_arm,
                &mut c.cold.relative_velocity[k],
            ] {
                x.set_lane(lane, 0.0);
            }
        }
    }
    // Rolling resistance, for a pair with a ball.
    let rolling = inputs.map_or(0.0, |i| {
        Surface::rolling_resistance(i.surfaces.0, i.surfaces.1)
            * i.surfaces.0.ball_radius.max(i.surfaces.1.ball_radius)
    });
    // A conveyor's surface speed: a's less b's (Box3D's tangent velocity), projected on the
    // tangents by [`prepare`]. Written only in a batch with one (its other lanes zeroed when
    // the first is met; lanes are gathered in order, lane 0 first).
    if lane == 0 {
        c.has_conveyor = false;
    }
    let conveyor = inputs.map_or(zero, |i| i.conveyor);
    if conveyor != zero {
        if !c.has_conveyor {
            c.cold.conveyor = V3::splat(0.0);
            c.has_conveyor = true;
        }
        c.cold.conveyor.set_lane(lane, &conveyor);
    }
    c.rolling_resistance.set_lane(lane, rolling);
    // Only the lanes that roll read the rolling rows, and only those and the lanes with an
    // anisotropic body read the inverse inertias: elsewhere these keep whatever they held,
    // which no result depends on (every read of them is chosen away in those lanes).
    if rolling > 0.0 {
        let rolling_mass = (state_a.inverse_inertia + state_b.inverse_inertia)
            .try_inverse()
            .unwrap_or_else(geom::Matrix3::zeros);
        set_matrix(&mut c.cold.rolling_mass, lane, |r, k| rolling_mass[(r, k)]);
        c.cold.rolling_impulse.set_lane(lane, &zero);
    }
    if rolling > 0.0 || !isotropic {
        set_matrix(&mut c.cold.inverse_inertia[0], lane, |r, k| {
            state_a.inverse_inertia[(r, k)]
        });
        set_matrix(&mut c.cold.inverse_inertia[1], lane, |r, k| {
            state_b.inverse_inertia[(r, k)]
        });
    }
}

/// Computes the rows of every lane of `c` from what [`gather`] put there: per point the lever
/// arms `r x n`, the turns `I^-1 (r x n)` (stored in `Turns` only when a lane has an
/// anisotropic body), the normal mass and, where some lane bounces, the normal speed at the
/// start of the step (from `bodies`' velocities); the friction centre (Box3D's weighting: points
/// more than twice `speculative_margin` apart hardly count, so the centre moves smoothly as
/// points come and go) with its arms, turns and 2x2 mass, each point's reach from it (twist
/// friction) and the support polygon's (tilt); the twist and tilt rows' masses. A lane without
/// a point, or a point a lane lacks, keeps the zeros [`gather`] gave it.
pub(crate) fn prepare<L: Lane>(c: &mut Batch<L>, bodies: &[SolverBody], speculative_margin: Real) {
    let zero = L::splat(0.0);
    let inverse_tau = L::splat(if speculative_margin > 0.0 {
        1.0 / speculative_margin
    } else {
        0.0
    });
    let n = c.normal;
    let tangents = tangents_of(&n);
    c.tangents = tangents;
    // Last step's friction and tilt impulses (world space, where `gather` left them) in this
    // step's tangents; zero in the lanes without.
    let warm = c.friction_impulse[0].gt(zero);
    let [friction_impulse, tilt_impulse] = c.friction_arms[0];
    let project = |v: &V3<L>| tangents.map(|t| L::select(warm, v.dot(&t), zero));
    c.friction_impulse = project(&friction_impulse);
    c.tilt_impulse = project(&tilt_impulse);
    // A conveyor's speed along the tangents, where a lane has one (the friction row drives
    // the relative tangential speed to it instead of zero).
    if c.has_conveyor {
        let conveyor = c.cold.conveyor;
        c.cold.conveyor_speed = tangents.map(|t| conveyor.dot(&t));
    }
    // Where both bodies are isotropic (`I^-1 = s 1`: cubes, balls, fixed bodies), a turn is
    // the arm scaled by `s`, as the stages compute it when every lane is, and the inverse
    // inertia is built from `s` (`gather` writes the matrices only where a lane reads them).
    let scales = c.inverse_inertia_scale;
    let isotropic = c.cold.isotropic.gt(zero);
    c.isotropic = L::all(isotropic);
    let all_isotropic = c.isotropic;
    let inertia = |side: usize| -> M3<L> {
        let s = scales[side];
        let diagonal = [[s, zero, zero], [zero, s, zero], [zero, zero, s]];
        if all_isotropic {
            return diagonal;
        }
        let stored = &c.cold.inverse_inertia[side];
        std::array::from_fn(|r| {
            std::array::from_fn(|k| L::select(isotropic, diagonal[r][k], stored[r][k]))
        })
    };
    let (inertia_a, inertia_b) = (&inertia(0), &inertia(1));
    let turn = |side: usize, arm: &V3<L>| {
        let scaled = arm.scale(scales[side]);
        if all_isotropic {
            return scaled; // no lane needs the matrix product
        }
        let inertia = if side == 0 { inertia_a } else { inertia_b };
        V3::select(isotropic, &scaled, &mul3(inertia, arm))
    };
    // The normal speeds at the start of the step are read only by the restitution pass, which
    // skips a batch where nothing bounces: the bodies are then not read here either.
    let bounces = L::any(!c.cold.restitution.eq(zero));
    let motions = bounces.then(|| c.motions(bodies));
    let linear = c.inverse_mass[0] + c.inverse_mass[1];
    let mut anchors = [V3::<L>::default(); 4];
    let mut center = [V3::splat(0.0); 2];
    let mut total_weight = zero;
    let mut count = 0;
    let mut point_turns = [[V3::splat(0.0); 2]; 4];
    for (k, anchor) in anchors.iter_mut().enumerate() {
        let has = Which::<L>::new(c.has_point(k));
        if !has.any() {
            break; // points fill their slots in order
        }
        count = k + 1;
        let p = &mut c.points[k];
        let (anchor_a, anchor_b) = (p.arm_a, p.arm_b);
        *anchor = anchor_a;
        let weight =
            (L::splat(2.0) - p.separation * inverse_tau).clamp(L::splat(1e-10), L::splat(1.0));
        center[0] = has.pick3(&center[0].add(&anchor_a.scale(weight)), &center[0]);
        center[1] = has.pick3(&center[1].add(&anchor_b.scale(weight)), &center[1]);
        total_weight = has.pick(total_weight + weight, total_weight);
        let (arm_a, arm_b) = (anchor_a.cross(&n), anchor_b.cross(&n));
        let (turn_a, turn_b) = (turn(0, &arm_a), turn(1, &arm_b));
        let k_normal = linear + arm_a.dot(&turn_a) + arm_b.dot(&turn_b);
        let normal_mass = L::select(k_normal.gt(zero), L::splat(1.0) / k_normal, zero);
        p.arm_a = has.pick3(&arm_a, &p.arm_a);
        p.arm_b = has.pick3(&arm_b, &p.arm_b);
        let zero3 = V3::splat(0.0);
        point_turns[k] = [has.pick3(&turn_a, &zero3), has.pick3(&turn_b, &zero3)];
        p.normal_mass = has.pick(normal_mass, p.normal_mass);
        if let Some([motion_a, motion_b]) = &motions {
            let velocity = |m: &Motion<L>, anchor: &V3<L>| m.linvel.add(&m.angvel.cross(anchor));
            let relative = velocity(motion_b, &anchor_b).sub(&velocity(motion_a, &anchor_a));
            let speed = &mut c.cold.relative_velocity[k];
            *speed = has.pick(relative.dot(&n), *speed);
        }
    }
    let some = c.has_point(0);
    let center_a = center[0].unscale(total_weight);
    let center_b = center[1].unscale(total_weight);
    for (k, (p, anchor)) in c.points.iter_mut().zip(&anchors).take(count).enumerate() {
        let has = Which::<L>::new(c.point_count.gt(L::splat(k as Real)));
        let d = anchor.sub(&center_a);
        p.lever_arm = has.pick(d.dot(&d).sqrt(), p.lever_arm);
    }
    // Friction at the centre: `m_a^-1 + m_b^-1 + (r_a x t_k) . I_a^-1 (r_a x t_l) +
    // (r_b x t_k) . I_b^-1 (r_b x t_l)` couples tangent impulses `k` and `l`.
    let arms =
        |center: &V3<L>| tangents.map(|t| V3::select(some, &center.cross(&t), &V3::splat(0.0)));
    let friction_arms = [arms(&center_a), arms(&center_b)];
    let turns = |side: usize, arms: &[V3<L>; 2]| arms.map(|arm| turn(side, &arm));
    let friction_turns = [turns(0, &friction_arms[0]), turns(1, &friction_arms[1])];
    let k = |i: usize, j: usize| {
        let linear = if i == j { linear } else { zero };
        linear
            + friction_arms[0][i].dot(&friction_turns[0][j])
            + friction_arms[1][i].dot(&friction_turns[1][j])
    };
    let (k11, k22, k12) = (k(0, 0), k(1, 1), k(0, 1));
    c.tangent_mass = inverse_2x2(&[[k11, k12], [k12, k22]]);
    c.friction_arms = friction_arms;
    // Twist about the normal.
    let k_twist = n.dot(&mul3(&add3(inertia_a, inertia_b), &n));
    let twist_turns = [turn(0, &n), turn(1, &n)];
    c.twist_mass = L::select(k_twist.gt(zero), L::splat(1.0) / k_twist, zero);
    // Tilt about the tangents, up to the support polygon's reach.
    let support_radius = support_radius(c, &anchors, &center_a, &tangents);
    let tilt_turns = [turns(0, &tangents), turns(1, &tangents)];
    let tilts = support_radius.gt(zero);
    c.tilt_mass = if L::any(tilts) {
        let k = |i: usize, j: usize| tangents[i].dot(&tilt_turns[0][j].add(&tilt_turns[1][j]));
        let mass = inverse_2x2(&[[k(0, 0), k(0, 1)], [k(1, 0), k(1, 1)]]);
        mass.map(|row| row.map(|x| L::select(tilts, x, zero)))
    } else {
        [[zero; 2]; 2]
    };
    c.support_radius = support_radius;
    if !c.isotropic {
        let turns = Turns {
            points: point_turns,
            friction: friction_turns,
            twist: twist_turns,
            tilt: tilt_turns,
        };
        match c.turns.as_deref_mut() {
            Some(kept) => *kept = turns,
            None => c.turns = Some(Box::new(turns)),
        }
    }
}

/// Per lane, the distance from `center` to the nearest edge of the convex polygon the points
/// (at `anchors` from body a's centre of mass) span in the contact plane; 0 for fewer than
/// three points: an edge or a vertex does not resist tipping. With at most four points, every
/// pair whose line has all the others on one side is a hull edge.
fn support_radius<L: Lane>(
    c: &Batch<L>,
    anchors: &[V3<L>; 4],
    center: &V3<L>,
    tangents: &[V3<L>; 2],
) -> L {
    let zero = L::splat(0.0);
    let enough = c.has_point(2);
    if !L::any(enough) {
        return zero;
    }
    let has: [L::Mask; 4] = std::array::from_fn(|k| c.has_point(k));
    let flat = anchors.map(|anchor| {
        let d = anchor.sub(center);
        [d.dot(&tangents[0]), d.dot(&tangents[1])]
    });
    // `(p - o) perp (q - o)`: positive when `q` is left of the line from `o` through `p`.
    let cross = |o: &[L; 2], p: &[L; 2], q: &[L; 2]| {
        let (u, v) = ([p[0] - o[0], p[1] - o[1]], [q[0] - o[0], q[1] - o[1]]);
        u[0] * v[1] - u[1] * v[0]
    };
    let none = zero.gt(zero);
    let mut radius = L::splat(Real::INFINITY);
    for i in 0..flat.len() {
        for j in i + 1..flat.len() {
            let (p, q) = (&flat[i], &flat[j]);
            let edge = [q[0] - p[0], q[1] - p[1]];
            let length = (edge[0] * edge[0] + edge[1] * edge[1]).sqrt();
            let (mut left, mut right) = (none, none);
            for (k, r) in flat.iter().enumerate() {
                if k != i && k != j {
                    let side = cross(p, q, r);
                    left = left | (has[k] & side.gt(zero));
                    right = right | (has[k] & side.lt(zero));
                }
            }
            // A hull edge (not a diagonal) of two distinct points.
            let hull = has[j] & length.gt(L::splat(Real::EPSILON)) & !(left & right);
            let distance = cross(p, q, &[zero, zero]).abs() / length;
            radius = L::select(hull & distance.lt(radius), distance, radius);
        }
    }
    L::select(enough & radius.lt(L::splat(Real::INFINITY)), radius, zero)
}

/// `a + b`, element by element.
fn add3<L: Lane>(a: &M3<L>, b: &M3<L>) -> M3<L> {
    std::array::from_fn(|r| std::array::from_fn(|k| a[r][k] + b[r][k]))
}

/// The inverse of a 2x2 effective mass matrix per lane, scaled to order one before inverting
/// (a millimetre body's determinant would underflow); zero when singular. nalgebra's
/// `try_inverse` in its order.
fn inverse_2x2<L: Lane>(k: &M2<L>) -> M2<L> {
    let zero = L::splat(0.0);
    let scale = k[0][0].max(k[1][1]);
    let m = k.map(|row| row.map(|x| x / scale));
    let determinant = m[0][0] * m[1][1] - m[1][0] * m[0][1];
    let invertible = scale.gt(zero) & !determinant.eq(zero);
    let inverse = [
        [m[1][1] / determinant, -m[0][1] / determinant],
        [-m[1][0] / determinant, m[0][0] / determinant],
    ];
    inverse.map(|row| row.map(|x| L::select(invertible, x / scale, zero)))
}
