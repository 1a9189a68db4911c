//! Shape casts: a shape swept along a translation (without turning) against a volume, by
//! separating-axis advancement.
//!
//! The cast shape and each convex piece of the target (the target itself, a compound's
//! parts, a surface's triangles near the sweep) are convex. For a pair apart, the pair's
//! contact test proposes an axis `n` (its normal, from the cast shape toward the piece), and
//! the support functions give the exact separation along it, `s = min_B n.b - max_A n.a`.
//! Under a translation `d` that separation falls linearly, by `d . n` per unit of the cast,
//! so the shapes cannot touch before the fraction `t + s / (d . n)`, and never if
//! `d . n <= 0` while `s > 0` (the axis separates them all the way). The cast advances to
//! that fraction, asks again, and stops when the pair's test says they are within a
//! tolerance: it never steps past the first touch. Polytopes have finitely many candidate
//! axes (faces and edge pairs, fixed under translation), each of which reaches zero once, so
//! their casts end in a few steps; curved shapes converge as Newton's method does on the
//! distance. (Conservative advancement, Mirtich 1996, advances by the distance over the whole
//! speed instead, which crawls when a cast grazes.) The contact test's own depth is not used
//! to advance: a box's clipped manifold can lie farther than the corner beside it.

use crate::dispatch::volume_contact_within;
use crate::pair::box_box::obb_obb_sat;
use crate::pair::hull::Poly;
use crate::pair::triangle::{box_triangle, capsule_triangle, hull_triangle, sphere_triangle};
use geom::{Isometry3, Point3, PosedSurface, Real, Shape, Surface, Vector3, Volume};

/// Where a cast shape first touches what it was cast against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShapeCastHit {
    /// The fraction of the translation at which the shape touches, in `[0, 1]`; 0 when it
    /// starts touching or overlapping.
    pub fraction: Real,
    /// The unit normal of the surface hit, pointing from it toward the cast shape.
    pub normal: Vector3,
    /// The point where they touch, world space.
    pub point: Point3,
}

/// The gap under which a cast counts as touching, metres.
pub const CAST_TOLERANCE: Real = 1e-5;

/// At most this many advances per convex pair; a cast still apart after them has not touched
/// yet, and is reported as a miss.
const MAX_ADVANCES: usize = 64;

/// `shape` at `pose`, swept by `translation` (world space, without turning), against `target`:
/// where it first touches it, or `None` when it passes by (or `shape` is a surface: surfaces
/// are not cast).
pub fn cast_shape(
    shape: &Shape,
    pose: &Isometry3,
    translation: &Vector3,
    target: &Volume,
) -> Option<ShapeCastHit> {
    match shape {
        Shape::Compound { compound } => first(
            compound
                .parts()
                .iter()
                .map(|part| cast_shape(&part.shape, &(pose * part.offset), translation, target)),
        ),
        Shape::TriMesh { .. } | Shape::HeightField { .. } => None,
        Shape::Cuboid { .. }
        | Shape::Ball { .. }
        | Shape::Capsule { .. }
        | Shape::ConvexHull { .. } => cast_convex(shape, pose, translation, target),
    }
}

/// The earliest of some hits (the first on a tie).
fn first(hits: impl Iterator<Item = Option<ShapeCastHit>>) -> Option<ShapeCastHit> {
    hits.flatten()
        .fold(None, |best: Option<ShapeCastHit>, hit| match best {
            Some(b) if b.fraction <= hit.fraction => Some(b),
            _ => Some(hit),
        })
}

/// A convex `shape` cast against `target`, piece by convex piece.
fn cast_convex(
    shape: &Shape,
    pose: &Isometry3,
    translation: &Vector3,
    target: &Volume,
) -> Option<ShapeCastHit> {
    match target {
        Volume::Compound(compound) => first(
            (0..compound.compound.parts().len())
                .map(|i| cast_convex(shape, pose, translation, &compound.part(i))),
        ),
        Volume::TriMesh(surface) => cast_surface(shape, pose, translation, surface),
        Volume::HeightField(surface) => cast_surface(shape, pose, translation, surface),
        Volume::Obb(_) | Volume::Sphere(_) | Volume::Capsule(_) | Volume::Hull(_) => {
            advance(shape, pose, translation, |a, reach| {
                probe_convex(a, target, reach)
            })
        }
    }
}

/// The test of a convex pair at one fraction. Two boxes: the exact separating axis test (the
/// axis of greatest separation among the fifteen). Other pairs: the contact test's normal,
/// and the separation along it from the supports.
fn probe_convex(a: &Volume, b: &Volume, reach: Real) -> Option<Probe> {
    if let (Volume::Obb(box_a), Volume::Obb(box_b)) = (a, b) {
        let sat = obb_obb_sat(box_a, box_b);
        if sat.separation > reach {
            return None;
        }
        // The point: the cast box's corner deepest along the axis.
        let corner = box_a.center
            + box_a
                .axes()
                .iter()
                .enumerate()
                .map(|(k, u)| u * (box_a.half_extents[k] * u.dot(&sat.normal).signum()))
                .sum::<Vector3>();
        return Some(Probe {
            normal: sat.normal,
            gap: sat.separation,
            separation: sat.separation,
            lower_bound: true,
            point: corner,
        });
    }
    let contact = volume_contact_within(a, b, reach)?;
    let n = contact.normal;
    let point = contact
        .points
        .iter()
        .max_by(|p, q| p.depth.total_cmp(&q.depth))?
        .position;
    Some(Probe {
        normal: n,
        gap: -contact.depth,
        separation: -support(b, &-n)? - support(a, &n)?,
        // The hull pairs' depth is their separating axis test's; the round shapes' their
        // distance.
        lower_bound: true,
        point,
    })
}

/// A convex `shape` cast against the triangles of a surface near its sweep.
fn cast_surface<S: Surface>(
    shape: &Shape,
    pose: &Isometry3,
    translation: &Vector3,
    surface: &PosedSurface<S>,
) -> Option<ShapeCastHit> {
    let start = shape.aabb(pose);
    let swept = start.merged(&start.translated(translation));
    let local = swept
        .loosened(CAST_TOLERANCE)
        .transformed(&surface.pose.inverse());
    let solid = surface.surface.solid_below();
    let mut triangles = Vec::new();
    surface.surface.query(&local, |index| triangles.push(index));
    first(triangles.into_iter().map(|index| {
        let triangle = surface.surface.triangle(index);
        let corners = triangle.vertices.map(|v| surface.pose * v);
        let up = surface.pose.rotation * triangle.normal();
        advance(shape, pose, translation, |a, reach| {
            let contact = match a {
                Volume::Sphere(s) => sphere_triangle(s, &corners, &up, reach, solid),
                Volume::Obb(b) => box_triangle(b, &corners, &up, reach, solid),
                Volume::Capsule(c) => capsule_triangle(c, &corners, &up, reach, solid),
                Volume::Hull(h) => hull_triangle(
                    &Poly::of_hull(&h.hull, &h.pose),
                    &corners,
                    &up,
                    reach,
                    solid,
                ),
                Volume::Compound(_) | Volume::TriMesh(_) | Volume::HeightField(_) => None,
            }?;
            // The test's normal points from the triangle toward the shape.
            let n = -contact.normal;
            let deepest = contact
                .points
                .iter()
                .max_by(|p, q| p.depth.total_cmp(&q.depth))?;
            let nearest = corners
                .iter()
                .map(|c| c.coords.dot(&n))
                .fold(Real::INFINITY, Real::min);
            Some(Probe {
                normal: n,
                gap: -deepest.depth,
                separation: nearest - support(a, &n)?,
                lower_bound: false,
                point: deepest.position,
            })
        })
    }))
}

/// What a convex pair's test says at one fraction of the cast.
struct Probe {
    /// Unit, from the cast shape toward the piece.
    normal: Vector3,
    /// The test's gap (negative when they overlap).
    gap: Real,
    /// The exact separation along `normal` (supports), at most the distance.
    separation: Real,
    /// Whether `gap` is at most the distance too (a separating axis test's, or a distance).
    lower_bound: bool,
    /// Where they touch or come closest.
    point: Point3,
}

/// The cast of a convex `shape` against one convex piece, `probe` being the pair's test at a
/// placed shape, speculative up to a reach.
fn advance(
    shape: &Shape,
    pose: &Isometry3,
    translation: &Vector3,
    probe: impl Fn(&Volume, Real) -> Option<Probe>,
) -> Option<ShapeCastHit> {
    let length = translation.norm();
    let mut fraction: Real = 0.0;
    for _ in 0..MAX_ADVANCES {
        let at = Isometry3::from_parts(
            (pose.translation.vector + translation * fraction).into(),
            pose.rotation,
        );
        let reach = length * (1.0 - fraction) + CAST_TOLERANCE;
        let found = probe(&shape.world(&at), reach)?;
        if found.gap <= CAST_TOLERANCE {
            return Some(ShapeCastHit {
                fraction,
                normal: -found.normal,
                point: found.point,
            });
        }
        let closing = translation.dot(&found.normal);
        if closing <= 0.0 && found.separation > 0.0 {
            return None;
        }
        let mut step = if closing > 0.0 {
            found.separation.max(0.0) / closing
        } else {
            0.0
        };
        // The axis has closed, but the test still sees a gap (a face preferred over an edge
        // axis that separates a little more): the gap, when it is at most the distance, is
        // how far the shape may still travel; else the tolerance.
        if found.lower_bound && found.separation <= CAST_TOLERANCE {
            step = step.max(found.gap / length);
        }
        let next = fraction + step.max(CAST_TOLERANCE / length.max(CAST_TOLERANCE));
        if next > 1.0 {
            return None;
        }
        fraction = next;
    }
    None
}

/// The largest `dir . x` over the points `x` of a convex volume (`None` for the others).
fn support(volume: &Volume, dir: &Vector3) -> Option<Real> {
    Some(match volume {
        Volume::Obb(obb) => {
            let axes = obb.axes();
            obb.center.coords.dot(dir)
                + (0..3)
                    .map(|k| obb.half_extents[k] * axes[k].dot(dir).abs())
                    .sum::<Real>()
        }
        Volume::Sphere(sphere) => sphere.center.coords.dot(dir) + sphere.radius * dir.norm(),
        Volume::Capsule(capsule) => {
            capsule.a.coords.dot(dir).max(capsule.b.coords.dot(dir)) + capsule.radius * dir.norm()
        }
        Volume::Hull(posed) => {
            let local = posed.pose.rotation.inverse_transform_vector(dir);
            let vertex = posed.hull.vertices()[posed.hull.support(&local)];
            (posed.pose * vertex).coords.dot(dir)
        }
        Volume::Compound(_) | Volume::TriMesh(_) | Volume::HeightField(_) => return None,
    })
}
