//! The contact constraint: one per touching pair with a dynamic body, up to four points, each
//! with a non-penetration row (soft, with speculative bias), and friction for the whole
//! manifold as Box3D models it: a 2D row at the friction centre clamped to a disc (Coulomb) and
//! a twist row about the normal. Stages, as `super` calls them: [`prepare`] once per step, then per
//! substep [`warm_start`], [`solve`] with bias, [`solve`] without (relax, with friction), and
//! after the substeps [`restitution`] and [`store_impulses`].
//!
//! Frames and signs: world space; the normal points from body `a` toward body `b`; anchors run
//! from each body's centre of mass to the contact point and stay fixed for the step;
//! separation is positive for a gap. Source: Box2D v3 `contact_solver.c`, Box3D's soft step.

use super::body::SolverBody;
use super::soft::Softness;
use crate::body::{Material, RigidBody};
use crate::config::SolverConfig;
use crate::contact::{CachedContact, CachedPoint, ContactPair};
use arrayvec::ArrayVec;
use collide::FeatureId;
type Matrix2 = geom::na::Matrix2<Real>;
use geom::{Matrix3, Real, Vector2, Vector3};

/// One point of a contact constraint: its non-penetration row.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConstraintPoint {
    anchor_a: Vector3,
    anchor_b: Vector3,
    /// The separation at the start of the step minus `(r_b - r_a) . n`, so that the current
    /// separation is `(dp_b + dq_b r_b - dp_a - dq_a r_a) . n` plus this.
    adjusted_separation: Real,
    normal_mass: Real,
    /// Normal speed at the start of the step (negative when approaching), for restitution.
    relative_velocity: Real,
    pub(crate) normal_impulse: Real,
    /// The largest normal impulse of one iteration: a point that never pushed does not bounce.
    max_normal_impulse: Real,
    /// Distance from the friction centre: how much twist friction the point's load can hold.
    lever_arm: Real,

    id: FeatureId,
}

/// The constraint of one contact pair: non-penetration at each point; friction as one 2D row
/// at the manifold's friction centre plus a twist row about the normal (Box3D's model).
#[derive(Debug, Clone)]
pub(crate) struct ContactConstraint {
    /// Indices of the bodies in the solver's dense arrays.
    pub(crate) a: u32,
    pub(crate) b: u32,
    normal: Vector3,
    tangents: [Vector3; 2],
    friction: Real,
    restitution: Real,
    /// Against a static or kinematic body: stiffer.
    fixed_pair: bool,
    pub(crate) points: ArrayVec<ConstraintPoint, 4>,
    /// The friction centre, from each body's centre of mass.
    center_a: Vector3,
    center_b: Vector3,
    /// The inverse of the 2x2 mass the pair shows to tangent impulses at the centre.
    tangent_mass: Matrix2,
    friction_impulse: Vector2,
    twist_mass: Real,
    twist_impulse: Real,
    /// The inverse of the pair's angular mass, `(I_a^-1 + I_b^-1)^-1`, for the tilt row.
    tilt_mass: Matrix3,
    /// How far the support polygon reaches from the friction centre in its narrowest
    /// direction: the lever arm of the largest tipping torque the contact resists.
    support_radius: Real,
    tilt_impulse: Vector3,
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

/// `m_a^-1 + m_b^-1 + (r_a x d) . I_a^-1 (r_a x e) + (r_b x d) . I_b^-1 (r_b x e)`: the
/// coupling of impulses along `d` and `e` at the anchors.
fn inverse_mass_term(
    a: &SolverBody,
    b: &SolverBody,
    (ra, rb): (&Vector3, &Vector3),
    d: &Vector3,
    e: &Vector3,
) -> Real {
    let linear = if d == e {
        a.inverse_mass + b.inverse_mass
    } else {
        0.0
    };
    linear
        + ra.cross(d).dot(&(a.inverse_inertia * ra.cross(e)))
        + rb.cross(d).dot(&(b.inverse_inertia * rb.cross(e)))
}

/// Builds the constraint of `pair` (whose bodies sit at indices `a` and `b`), taking last
/// step's impulses from `cached` for the points whose feature ids match. `speculative_margin`
/// weighs points in the friction centre: those more than twice it apart hardly count.
pub(crate) fn prepare(
    pair: &ContactPair,
    (a, b): (u32, u32),
    (body_a, body_b): (&RigidBody, &RigidBody),
    (state_a, state_b): (&SolverBody, &SolverBody),
    cached: Option<&CachedContact>,
    speculative_margin: Real,
) -> ContactConstraint {
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
    let mut points: ArrayVec<ConstraintPoint, 4> = pair
        .contact
        .points
        .iter()
        .map(|point| {
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
            let k = inverse_mass_term(state_a, state_b, (&anchor_a, &anchor_b), &normal, &normal);
            ConstraintPoint {
                anchor_a,
                anchor_b,
                adjusted_separation: separation - (anchor_b - anchor_a).dot(&normal),
                normal_mass: if k > 0.0 { 1.0 / k } else { 0.0 },
                relative_velocity: relative.dot(&normal),
                normal_impulse: warm.map_or(0.0, |w| w.normal_impulse),
                max_normal_impulse: 0.0,
                lever_arm: 0.0,
                id: point.id,
            }
        })
        .collect();
    let (center_a, center_b) = (
        friction_center_a / total_weight,
        friction_center_b / total_weight,
    );
    for p in &mut points {
        p.lever_arm = (p.anchor_a - center_a).norm();
    }
    let anchors = (&center_a, &center_b);
    let k11 = inverse_mass_term(state_a, state_b, anchors, &tangents[0], &tangents[0]);
    let k22 = inverse_mass_term(state_a, state_b, anchors, &tangents[1], &tangents[1]);
    let k12 = inverse_mass_term(state_a, state_b, anchors, &tangents[0], &tangents[1]);
    let tangent_mass = Matrix2::new(k11, k12, k12, k22)
        .try_inverse()
        .unwrap_or_else(Matrix2::zeros);
    let k_twist = normal.dot(&((state_a.inverse_inertia + state_b.inverse_inertia) * normal));
    let (friction_impulse, twist_impulse, tilt_impulse) =
        cached.map_or((Vector2::zeros(), 0.0, Vector3::zeros()), |c| {
            let f = c.friction_impulse;
            let tilt = c.tilt_impulse - normal * c.tilt_impulse.dot(&normal);
            (
                Vector2::new(f.dot(&tangents[0]), f.dot(&tangents[1])),
                c.twist_impulse,
                tilt,
            )
        });
    let support_radius = support_radius(&points, &center_a, &tangents);
    let tilt_mass = if support_radius > 0.0 {
        angular_mass(&(state_a.inverse_inertia + state_b.inverse_inertia))
    } else {
        Matrix3::zeros()
    };
    ContactConstraint {
        a,
        b,
        normal,
        tangents,
        friction: Material::mix_friction(body_a.material.friction, body_b.material.friction),
        restitution: Material::mix_restitution(
            body_a.material.restitution,
            body_b.material.restitution,
        ),
        fixed_pair: state_a.inverse_mass == 0.0 || state_b.inverse_mass == 0.0,
        points,
        center_a,
        center_b,
        tangent_mass,
        friction_impulse,
        twist_mass: if k_twist > 0.0 { 1.0 / k_twist } else { 0.0 },
        twist_impulse,
        tilt_mass,
        support_radius,
        tilt_impulse,
    }
}

/// The distance from `center` to the nearest edge of the convex polygon the points span in
/// the contact plane (0 for fewer than three points: an edge or a vertex does not resist
/// tipping).
fn support_radius(points: &[ConstraintPoint], center: &Vector3, tangents: &[Vector3; 2]) -> Real {
    if points.len() < 3 {
        return 0.0;
    }
    let mut flat: ArrayVec<Vector2, 4> = points
        .iter()
        .map(|p| {
            let d = p.anchor_a - center;
            Vector2::new(d.dot(&tangents[0]), d.dot(&tangents[1]))
        })
        .collect();
    flat.sort_by(|p, q| p.y.atan2(p.x).total_cmp(&q.y.atan2(q.x)));
    let mut radius = Real::INFINITY;
    for k in 0..flat.len() {
        let (p, q) = (flat[k], flat[(k + 1) % flat.len()]);
        let edge = q - p;
        let length = edge.norm();
        if length <= Real::EPSILON {
            continue;
        }
        // The centre's distance to the edge's line, signed positive inside.
        let inside = (edge.x * -p.y - edge.y * -p.x) / length;
        radius = radius.min(inside);
    }
    if radius.is_finite() {
        radius.max(0.0)
    } else {
        0.0
    }
}

/// `(I_a^-1 + I_b^-1)^-1`, scaled to order one before inverting (a millimetre body's
/// determinant would underflow); zero when singular.
fn angular_mass(inverse_sum: &Matrix3) -> Matrix3 {
    let scale = inverse_sum.diagonal().max();
    if scale.is_nan() || scale <= 0.0 {
        return Matrix3::zeros();
    }
    (inverse_sum / scale)
        .try_inverse()
        .map_or_else(Matrix3::zeros, |m| m / scale)
}

/// The two bodies of a constraint, copied out of the dense array (and written back after).
fn pair_of(bodies: &[SolverBody], c: &ContactConstraint) -> (SolverBody, SolverBody) {
    (bodies[c.a as usize], bodies[c.b as usize])
}

fn write_back(bodies: &mut [SolverBody], c: &ContactConstraint, a: SolverBody, b: SolverBody) {
    // Fixed bodies (zero inverse mass) are never changed; skipping them keeps a ground shared
    // by many constraints untouched.
    if a.inverse_mass > 0.0 {
        bodies[c.a as usize] = a;
    }
    if b.inverse_mass > 0.0 {
        bodies[c.b as usize] = b;
    }
}

/// Applies the accumulated impulses, once per substep (the accumulated impulse is the
/// per-substep one, as in Box2D).
pub(crate) fn warm_start(bodies: &mut [SolverBody], constraints: &[ContactConstraint]) {
    for c in constraints {
        let (mut a, mut b) = pair_of(bodies, c);
        for p in &c.points {
            let impulse = c.normal * p.normal_impulse;
            a.apply(&p.anchor_a, &-impulse);
            b.apply(&p.anchor_b, &impulse);
        }
        let friction = c.tangents[0] * c.friction_impulse.x + c.tangents[1] * c.friction_impulse.y;
        a.apply(&c.center_a, &-friction);
        b.apply(&c.center_b, &friction);
        let twist = c.normal * c.twist_impulse + c.tilt_impulse;
        a.apply_angular(&-twist);
        b.apply_angular(&twist);
        write_back(bodies, c, a, b);
    }
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

/// The stiffest contact spring, as a fraction of the substep rate (Box2D's quarter): stiffer
/// springs are no longer soft within one substep, and Gauss-Seidel then chatters.
pub(crate) const MAX_HERTZ_PER_SUBSTEP_RATE: Real = 0.25;

impl SolveSettings {
    /// The contact spring for this substep: `contact_hertz` capped at a quarter of the substep
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

/// One Gauss-Seidel pass over the constraints. With `use_bias` (the soft iteration): points
/// still apart get the speculative bias `s / h`, which lets them close exactly; penetrating
/// points are pushed out softly, at most at `max_push_out_speed`; then the tilt row; no
/// friction. Without (the relax iteration): rigid, no bias, then the tilt row, twist and
/// friction at the friction centre, clamped by Coulomb's law to `mu` times the manifold's
/// normal impulse (a disc for the 2D friction).
pub(crate) fn solve(
    bodies: &mut [SolverBody],
    constraints: &mut [ContactConstraint],
    settings: &SolveSettings,
    use_bias: bool,
) {
    for c in constraints.iter_mut() {
        let (mut a, mut b) = pair_of(bodies, c);
        let softness = if c.fixed_pair {
            settings.fixed_softness
        } else {
            settings.softness
        };
        let moved = b.delta_position - a.delta_position;
        let n = c.normal;
        let mut total_normal_impulse = 0.0;
        let mut twist_limit = 0.0;
        for p in c.points.iter_mut() {
            let ra_now = a.delta_rotation * p.anchor_a;
            let rb_now = b.delta_rotation * p.anchor_b;
            let separation = (moved + rb_now - ra_now).dot(&n) + p.adjusted_separation;
            let (bias, mass_scale, impulse_scale) = if separation > 0.0 {
                (separation * settings.inverse_h, 1.0, 0.0)
            } else if use_bias {
                let bias = (softness.mass_scale * softness.bias_rate * separation)
                    .max(-settings.max_push_out_speed);
                (bias, softness.mass_scale, softness.impulse_scale)
            } else {
                (0.0, 1.0, 0.0)
            };
            let vn = (b.point_velocity(&p.anchor_b) - a.point_velocity(&p.anchor_a)).dot(&n);
            let impulse =
                -p.normal_mass * (mass_scale * vn + bias) - impulse_scale * p.normal_impulse;
            let total = (p.normal_impulse + impulse).max(0.0);
            let impulse = total - p.normal_impulse;
            p.normal_impulse = total;
            p.max_normal_impulse = p.max_normal_impulse.max(impulse);
            total_normal_impulse += total;
            twist_limit += p.lever_arm * total;
            let impulse = n * impulse;
            a.apply(&p.anchor_a, &-impulse);
            b.apply(&p.anchor_b, &impulse);
        }
        if c.support_radius > 0.0 {
            hold_tilt(c, &mut a, &mut b, total_normal_impulse);
        }
        if !use_bias {
            // Twist about the normal.
            let twist_speed = n.dot(&(b.angvel - a.angvel));
            let limit = c.friction * twist_limit;
            let old = c.twist_impulse;
            c.twist_impulse = (old - c.twist_mass * twist_speed).clamp(-limit, limit);
            let twist = n * (c.twist_impulse - old);
            a.apply_angular(&-twist);
            b.apply_angular(&twist);
            // Sliding, at the friction centre.
            let dv = b.point_velocity(&c.center_b) - a.point_velocity(&c.center_a);
            let vt = Vector2::new(dv.dot(&c.tangents[0]), dv.dot(&c.tangents[1]));
            let mut total = c.friction_impulse - c.tangent_mass * vt;
            let limit = c.friction * total_normal_impulse;
            let length_sq = total.norm_squared();
            if length_sq > limit * limit {
                total *= limit / length_sq.sqrt();
            }
            let delta = total - c.friction_impulse;
            c.friction_impulse = total;
            let impulse = c.tangents[0] * delta.x + c.tangents[1] * delta.y;
            a.apply(&c.center_a, &-impulse);
            b.apply(&c.center_b, &impulse);
        }
        write_back(bodies, c, a, b);
    }
}

/// The tilt row: a face contact holds the two bodies' relative tilt (rotation about axes in
/// the contact plane) until the tipping torque exceeds the load times the support polygon's
/// reach, as a rigid face does. Soft points alone let a tall stack lean like a column on
/// springs: a tilt compresses one side's springs by `r theta` and they push back with a torque
/// that grows like the spring stiffness, while the weight above tips it further with a torque
/// that grows like the load times its height, so a stack of twenty unit cubes buckles at 30 Hz.
/// Solved in both passes, so that the position update never sees a lean the row would refuse.
fn hold_tilt(
    c: &mut ContactConstraint,
    a: &mut SolverBody,
    b: &mut SolverBody,
    total_normal_impulse: Real,
) {
    let n = c.normal;
    let relative = b.angvel - a.angvel;
    let relative = relative - n * relative.dot(&n);
    let old = c.tilt_impulse;
    let mut total = old - c.tilt_mass * relative;
    total -= n * total.dot(&n);
    let limit = total_normal_impulse * c.support_radius;
    let length_sq = total.norm_squared();
    if length_sq > limit * limit {
        total *= limit / length_sq.sqrt();
    }
    c.tilt_impulse = total;
    let delta = total - old;
    a.apply_angular(&-delta);
    b.apply_angular(&delta);
}

/// Restitution, once after the substeps: a point that approached faster than `threshold` and
/// pushed leaves at `e` times its approach speed.
pub(crate) fn restitution(
    bodies: &mut [SolverBody],
    constraints: &mut [ContactConstraint],
    threshold: Real,
) {
    for c in constraints.iter_mut() {
        if c.restitution == 0.0 {
            continue;
        }
        let (mut a, mut b) = pair_of(bodies, c);
        for p in c.points.iter_mut() {
            if p.relative_velocity > -threshold || p.max_normal_impulse == 0.0 {
                continue;
            }
            let vn = (b.point_velocity(&p.anchor_b) - a.point_velocity(&p.anchor_a)).dot(&c.normal);
            let impulse = -p.normal_mass * (vn + c.restitution * p.relative_velocity);
            let total = (p.normal_impulse + impulse).max(0.0);
            let impulse = total - p.normal_impulse;
            p.normal_impulse = total;
            let impulse = c.normal * impulse;
            a.apply(&p.anchor_a, &-impulse);
            b.apply(&p.anchor_b, &impulse);
        }
        write_back(bodies, c, a, b);
    }
}

/// The impulses of a constraint, for the persistent contact set.
pub(crate) fn store_impulses(c: &ContactConstraint, pair: &ContactPair) -> CachedContact {
    CachedContact {
        a: pair.a,
        b: pair.b,
        points: c
            .points
            .iter()
            .map(|p| CachedPoint {
                id: p.id,
                normal_impulse: p.normal_impulse,
            })
            .collect(),
        friction_impulse: c.tangents[0] * c.friction_impulse.x
            + c.tangents[1] * c.friction_impulse.y,
        twist_impulse: c.twist_impulse,
        tilt_impulse: c.tilt_impulse,
    }
}

/// Whether the solver pushed the pair apart this step (a resting contact may sit a hair apart
/// and still carry the weight above it).
pub(crate) fn pushed(c: &ContactConstraint) -> bool {
    c.points
        .iter()
        .any(|p| p.normal_impulse > 0.0 || p.max_normal_impulse > 0.0)
}
