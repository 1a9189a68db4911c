//! The contact constraint: one per touching pair with a dynamic body, up to four points, each
//! with a non-penetration row (soft, with speculative bias); friction for the whole manifold as
//! Box3D models it, a 2D row at the friction centre clamped to a disc (Coulomb) and a twist row
//! about the normal; and a tilt row that holds a face contact's relative tilt up to the tipping
//! torque its support can take. [`prepare`] makes one constraint once per step; `batch` puts it
//! in its lane and runs the stages on it: per substep warm start, solve with bias, solve
//! without (relax, with friction), and after the substeps restitution.
//!
//! Frames and signs: world space; the normal points from body `a` toward body `b`; anchors run
//! from each body's centre of mass to the contact point and stay fixed for the step, so the
//! rows' lever arms (`r x n`, `I^-1 (r x n)`) are computed once in [`prepare`]; separation is
//! positive for a gap and is updated within the step to first order in the bodies' turns.
//! Source: Box2D v3 `contact_solver.c`, Box3D `contact_solver.c`.

use super::body::SolverBody;
use super::soft::Softness;
use crate::body::{Material, RigidBody};
use crate::config::SolverConfig;
use crate::contact::{CachedContact, ContactPair};
use arrayvec::ArrayVec;
use collide::FeatureId;
type Matrix2 = geom::na::Matrix2<Real>;
use geom::{Real, Vector2, Vector3};

/// One point of a contact constraint: its non-penetration row.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConstraintPoint {
    /// From body a's centre of mass to the point (for the friction centre's reach).
    pub(super) anchor_a: Vector3,
    /// `r_a x n` and `r_b x n`: a unit normal impulse at the point turns the bodies by
    /// `I^-1` times these, and their angular velocities move the point along `n` by these dotted
    /// with them.
    pub(super) arm_a: Vector3,
    pub(super) arm_b: Vector3,
    /// `I_a^-1 (r_a x n)` and `I_b^-1 (r_b x n)`, world space, held for the step.
    pub(super) turn_a: Vector3,
    pub(super) turn_b: Vector3,
    /// The separation at the start of the step (positive for a gap).
    pub(super) separation: Real,
    pub(super) normal_mass: Real,
    /// Normal speed at the start of the step (negative when approaching), for restitution.
    pub(super) relative_velocity: Real,
    pub(crate) normal_impulse: Real,
    /// The largest normal impulse of one iteration: a point that never pushed does not bounce.
    pub(super) max_normal_impulse: Real,
    /// Distance from the friction centre: how much twist friction the point's load can hold.
    pub(super) lever_arm: Real,

    pub(super) id: FeatureId,
}

impl ConstraintPoint {
    /// No point: every row zero.
    pub(crate) const EMPTY: Self = Self {
        anchor_a: Vector3::new(0.0, 0.0, 0.0),
        arm_a: Vector3::new(0.0, 0.0, 0.0),
        arm_b: Vector3::new(0.0, 0.0, 0.0),
        turn_a: Vector3::new(0.0, 0.0, 0.0),
        turn_b: Vector3::new(0.0, 0.0, 0.0),
        separation: 0.0,
        normal_mass: 0.0,
        relative_velocity: 0.0,
        normal_impulse: 0.0,
        max_normal_impulse: 0.0,
        lever_arm: 0.0,
        id: FeatureId(0),
    };
}

/// The constraint of one contact pair: non-penetration at each point; friction as one 2D row
/// at the manifold's friction centre plus a twist row about the normal (Box3D's model).
#[derive(Debug, Clone, Default)]
pub(crate) struct ContactConstraint {
    /// Indices of the bodies in the solver's dense arrays.
    pub(crate) a: u32,
    pub(crate) b: u32,
    pub(super) normal: Vector3,
    pub(super) tangents: [Vector3; 2],
    pub(super) friction: Real,
    pub(super) restitution: Real,
    /// Against a static or kinematic body: stiffer.
    pub(super) fixed_pair: bool,
    pub(crate) points: ArrayVec<ConstraintPoint, 4>,
    /// `c x t_k` for the friction centre `c` seen from each body's centre of mass (`[a, b]`)
    /// and each tangent, and `I^-1` times them.
    pub(super) friction_arms: [[Vector3; 2]; 2],
    pub(super) friction_turns: [[Vector3; 2]; 2],
    /// `I_a^-1 n` and `I_b^-1 n`: how a unit twist impulse turns each body.
    pub(super) twist_turns: [Vector3; 2],
    /// The inverse of the 2x2 mass the pair shows to tangent impulses at the centre.
    pub(super) tangent_mass: Matrix2,
    pub(super) friction_impulse: Vector2,
    pub(super) twist_mass: Real,
    pub(super) twist_impulse: Real,
    /// `I_a^-1 t_k` and `I_b^-1 t_k` (`[a, b]`, then the tangent): how a unit tilt impulse
    /// about each tangent turns each body.
    pub(super) tilt_turns: [[Vector3; 2]; 2],
    /// The inverse of the 2x2 angular mass the pair shows to tilt impulses about the tangents,
    /// `t_k . (I_a^-1 + I_b^-1) t_l`.
    pub(super) tilt_mass: Matrix2,
    /// How far the support polygon reaches from the friction centre in its narrowest
    /// direction: the lever arm of the largest tipping torque the contact resists.
    pub(super) support_radius: Real,
    /// The accumulated tilt impulse about the two tangents.
    pub(super) tilt_impulse: Vector2,
    /// For a pair with a ball: the rolling resistance times the ball's radius (a length: the
    /// largest rolling torque is it times the normal force), 0 otherwise; the inverse of
    /// `I_a^-1 + I_b^-1`; the angular impulse accumulated this step.
    pub(super) rolling_resistance: Real,
    pub(super) rolling_mass: geom::Matrix3,
    pub(super) rolling_impulse: Vector3,
}

/// Two unit tangents completing `normal` to a right-handed frame, chosen from the normal
/// alone (so that equal normals give equal tangents in every step). A unit vector has a
/// component of at least `1/sqrt 3` in magnitude; the first tangent avoids it.
fn tangents_of(normal: &Vector3) -> [Vector3; 2] {
    let t1 = if normal.x.abs() > 0.5 {
        Vector3::new(normal.y, -normal.x, 0.0)
    } else {
        Vector3::new(0.0, normal.z, -normal.y)
    }
    .normalize();
    [t1, t1.cross(normal)]
}

/// Makes `c` the constraint of `pair` (whose bodies sit at indices `a` and `b`), taking last
/// step's impulses from `cached` for the points whose feature ids match. `speculative_margin`
/// weighs points in the friction centre: those more than twice it apart hardly count. `c` is
/// written in place: a constraint is some 600 bytes, and building one elsewhere and moving it
/// into the solver's array cost a tenth of a pyramid's step in copies.
pub(crate) fn prepare(
    c: &mut ContactConstraint,
    pair: &ContactPair,
    (a, b): (u32, u32),
    (body_a, body_b): (&RigidBody, &RigidBody),
    (state_a, state_b): (&SolverBody, &SolverBody),
    cached: Option<&CachedContact>,
    (speculative_margin, rolling_resistance): (Real, Real),
) {
    let normal = pair.contact.normal;
    let tangents = tangents_of(&normal);
    let (center_a, center_b) = (body_a.center_of_mass(), body_b.center_of_mass());
    let inverse_tau = if speculative_margin > 0.0 {
        1.0 / speculative_margin
    } else {
        0.0
    };
    let (mut friction_center_a, mut friction_center_b) = (Vector3::zeros(), Vector3::zeros());
    let mut total_weight = 0.0;
    c.points.clear();
    for point in &pair.contact.points {
        let anchor_a = point.position - center_a;
        let anchor_b = point.position - center_b;
        let separation = -point.depth;
        // Box3D's friction centre weighting: far speculative points barely count, so the
        // centre moves smoothly as points come and go.
        let weight = (2.0 - separation * inverse_tau).clamp(1e-10, 1.0);
        friction_center_a += anchor_a * weight;
        friction_center_b += anchor_b * weight;
        total_weight += weight;
        let warm = cached.and_then(|c| c.points.iter().find(|p| p.id == point.id));
        let relative = state_b.point_velocity(&anchor_b) - state_a.point_velocity(&anchor_a);
        let (arm_a, arm_b) = (anchor_a.cross(&normal), anchor_b.cross(&normal));
        let (turn_a, turn_b) = (
            state_a.inverse_inertia * arm_a,
            state_b.inverse_inertia * arm_b,
        );
        let k =
            state_a.inverse_mass + state_b.inverse_mass + arm_a.dot(&turn_a) + arm_b.dot(&turn_b);
        c.points.push(ConstraintPoint {
            anchor_a,
            arm_a,
            arm_b,
            turn_a,
            turn_b,
            separation,
            normal_mass: if k > 0.0 { 1.0 / k } else { 0.0 },
            relative_velocity: relative.dot(&normal),
            normal_impulse: warm.map_or(0.0, |w| w.normal_impulse),
            max_normal_impulse: 0.0,
            lever_arm: 0.0,
            id: point.id,
        });
    }
    let points = &mut c.points;
    let (center_a, center_b) = (
        friction_center_a / total_weight,
        friction_center_b / total_weight,
    );
    for p in points.iter_mut() {
        p.lever_arm = (p.anchor_a - center_a).norm();
    }
    let k_twist = normal.dot(&((state_a.inverse_inertia + state_b.inverse_inertia) * normal));
    let (friction_impulse, twist_impulse, tilt_impulse) =
        cached.map_or((Vector2::zeros(), 0.0, Vector2::zeros()), |c| {
            let f = c.friction_impulse;
            let tilt = c.tilt_impulse;
            (
                Vector2::new(f.dot(&tangents[0]), f.dot(&tangents[1])),
                c.twist_impulse,
                Vector2::new(tilt.dot(&tangents[0]), tilt.dot(&tangents[1])),
            )
        });
    let support_radius = support_radius(points, &center_a, &tangents);
    let arms = |center: &Vector3| [center.cross(&tangents[0]), center.cross(&tangents[1])];
    let friction_arms = [arms(&center_a), arms(&center_b)];
    let turns = |state: &SolverBody, arms: &[Vector3; 2]| {
        [
            state.inverse_inertia * arms[0],
            state.inverse_inertia * arms[1],
        ]
    };
    let friction_turns = [
        turns(state_a, &friction_arms[0]),
        turns(state_b, &friction_arms[1]),
    ];
    // `m_a^-1 + m_b^-1 + (r_a x t_k) . I_a^-1 (r_a x t_l) + (r_b x t_k) . I_b^-1 (r_b x t_l)`
    // at the friction centre: the coupling of tangent impulses `k` and `l`.
    let k = |i: usize, j: usize| {
        let linear = if i == j {
            state_a.inverse_mass + state_b.inverse_mass
        } else {
            0.0
        };
        linear
            + friction_arms[0][i].dot(&friction_turns[0][j])
            + friction_arms[1][i].dot(&friction_turns[1][j])
    };
    let (k11, k22, k12) = (k(0, 0), k(1, 1), k(0, 1));
    let tangent_mass = inverse_2x2(&Matrix2::new(k11, k12, k12, k22));
    let tilt_turns = [turns(state_a, &tangents), turns(state_b, &tangents)];
    let tilt_mass = if support_radius > 0.0 {
        let k = |i: usize, j: usize| tangents[i].dot(&(tilt_turns[0][j] + tilt_turns[1][j]));
        inverse_2x2(&Matrix2::new(k(0, 0), k(0, 1), k(1, 0), k(1, 1)))
    } else {
        Matrix2::zeros()
    };
    c.a = a;
    c.b = b;
    c.normal = normal;
    c.tangents = tangents;
    c.friction = Material::mix_friction(body_a.material.friction, body_b.material.friction);
    c.restitution =
        Material::mix_restitution(body_a.material.restitution, body_b.material.restitution);
    c.fixed_pair = state_a.inverse_mass == 0.0 || state_b.inverse_mass == 0.0;
    c.friction_arms = friction_arms;
    c.friction_turns = friction_turns;
    c.twist_turns = [
        state_a.inverse_inertia * normal,
        state_b.inverse_inertia * normal,
    ];
    c.tangent_mass = tangent_mass;
    c.friction_impulse = friction_impulse;
    c.twist_mass = if k_twist > 0.0 { 1.0 / k_twist } else { 0.0 };
    c.twist_impulse = twist_impulse;
    c.tilt_turns = tilt_turns;
    c.tilt_mass = tilt_mass;
    c.support_radius = support_radius;
    c.tilt_impulse = tilt_impulse;
    let ball_radius = |body: &RigidBody| match body.collider.shape {
        geom::Shape::Ball { radius } => radius,
        geom::Shape::Cuboid { .. } => 0.0,
    };
    c.rolling_resistance = rolling_resistance * ball_radius(body_a).max(ball_radius(body_b));
    c.rolling_mass = if c.rolling_resistance > 0.0 {
        (state_a.inverse_inertia + state_b.inverse_inertia)
            .try_inverse()
            .unwrap_or_else(geom::Matrix3::zeros)
    } else {
        geom::Matrix3::zeros()
    };
    c.rolling_impulse = Vector3::zeros();
}

/// The distance from `center` to the nearest edge of the convex polygon the points span in
/// the contact plane (0 for fewer than three points: an edge or a vertex does not resist
/// tipping). With at most four points, every pair whose line has all the others on one side
/// is a hull edge.
fn support_radius(points: &[ConstraintPoint], center: &Vector3, tangents: &[Vector3; 2]) -> Real {
    if points.len() < 3 {
        return 0.0;
    }
    let flat: ArrayVec<Vector2, 4> = points
        .iter()
        .map(|p| {
            let d = p.anchor_a - center;
            Vector2::new(d.dot(&tangents[0]), d.dot(&tangents[1]))
        })
        .collect();
    let cross = |o: &Vector2, p: &Vector2, q: &Vector2| (p - o).perp(&(q - o));
    let mut radius = Real::INFINITY;
    for i in 0..flat.len() {
        for j in i + 1..flat.len() {
            let (p, q) = (&flat[i], &flat[j]);
            let length = (q - p).norm();
            if length <= Real::EPSILON {
                continue;
            }
            let sides = flat
                .iter()
                .enumerate()
                .filter(|&(k, _)| k != i && k != j)
                .map(|(_, r)| cross(p, q, r));
            let (mut left, mut right) = (false, false);
            for side in sides {
                left |= side > 0.0;
                right |= side < 0.0;
            }
            if left && right {
                continue; // a diagonal
            }
            let distance = cross(p, q, &Vector2::zeros()).abs() / length;
            radius = radius.min(distance);
        }
    }
    if radius.is_finite() { radius } else { 0.0 }
}

/// The inverse of a 2x2 effective mass matrix, scaled to order one before inverting (a
/// millimetre body's determinant would underflow); zero when singular.
fn inverse_2x2(k: &Matrix2) -> Matrix2 {
    let scale = k.diagonal().max();
    if scale.is_nan() || scale <= 0.0 {
        return Matrix2::zeros();
    }
    (k / scale)
        .try_inverse()
        .map_or_else(Matrix2::zeros, |m| m / scale)
}

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

/// Overlaps deeper than this (metres) are pushed out through the push-out velocities, which
/// move positions and are then dropped (Bullet's split impulse, with its threshold idea), while
/// the point's velocity row stays rigid. Box2D and Box3D push every overlap out through the real
/// velocity and rely on the relax iteration to take the push back out; one Gauss-Seidel pass
/// cannot, across a chain of overlaps: a pyramid of five rows created a quarter overlapped
/// threw its top cube out at 8 m/s with a push-out cap of 3. Resting contacts sink far less
/// than this (a third of a millimetre under twenty cubes) and keep the soft push-out.
pub(crate) const DEEP_OVERLAP: Real = 0.01;

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
