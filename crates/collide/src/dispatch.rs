//! Pair tests for posed shapes: an exhaustive `match` on the shape pair, so that a new shape
//! that lacks a pair test fails to compile. A reversed pair calls the canonical one and flips it.

use crate::contact::Contact;
use crate::pair::box_box::{obb_obb_contact, obb_obb_contact_within, obb_obb_intersects};
use crate::pair::capsule::{
    capsule_capsule_contact_within, capsule_obb_contact_within, sphere_capsule_contact_within,
};
use crate::pair::hull::{
    Poly, poly_capsule_contact_within, poly_poly_contact_within, poly_sphere_contact_within,
};
use crate::pair::sat_cache::{AxisCache, PartAxis, poly_poly_contact_cached};
use crate::pair::sphere_box::{sphere_obb_contact_within, sphere_obb_intersects};
use crate::pair::sphere_sphere::sphere_sphere_contact_within;
use crate::pair::surface::{MAX_MANIFOLDS, Other, surface_contacts_within};
use arrayvec::ArrayVec;
use geom::{Isometry3, Obb, Point3, PosedCompound, PosedHull, Real, Shape, Volume};

/// The contact of `shape_a` placed at `pose_a` and `shape_b` at `pose_b`, or `None` when apart.
/// The normal points from a toward b.
pub fn contact(
    shape_a: &Shape,
    pose_a: &Isometry3,
    shape_b: &Shape,
    pose_b: &Isometry3,
) -> Option<Contact> {
    volume_contact(&shape_a.world(pose_a), &shape_b.world(pose_b))
}

/// Whether the posed shapes intersect (touching counts).
pub fn intersects(
    shape_a: &Shape,
    pose_a: &Isometry3,
    shape_b: &Shape,
    pose_b: &Isometry3,
) -> bool {
    volume_intersects(&shape_a.world(pose_a), &shape_b.world(pose_b))
}

/// [`contact`] with a speculative `margin >= 0` (metres): shapes up to `margin` apart get a
/// contact too, its depth minus the gap (see [`crate::obb_obb_contact_within`]).
pub fn contact_within(
    shape_a: &Shape,
    pose_a: &Isometry3,
    shape_b: &Shape,
    pose_b: &Isometry3,
    margin: Real,
) -> Option<Contact> {
    volume_contact_within(&shape_a.world(pose_a), &shape_b.world(pose_b), margin)
}

/// A ball, a box or a capsule, for the surface tests; `None` for a surface (two surfaces never touch:
/// surfaces belong to bodies that are never pushed).
fn solid(volume: &Volume) -> Option<Other<'_>> {
    match volume {
        Volume::Obb(obb) => Some(Other::Obb(obb)),
        Volume::Sphere(sphere) => Some(Other::Sphere(sphere)),
        Volume::Capsule(capsule) => Some(Other::Capsule(capsule)),
        Volume::Hull(hull) => Some(Other::Hull(hull)),
        Volume::Compound(_) | Volume::TriMesh(_) | Volume::HeightField(_) => None,
    }
}

/// The manifolds of a surface (`a`) and another volume, normals from the surface toward it.
fn surface_first(a: &Volume, b: &Volume, margin: Real) -> ArrayVec<Contact, MAX_MANIFOLDS> {
    let Some(other) = solid(b) else {
        return ArrayVec::new();
    };
    match a {
        Volume::TriMesh(mesh) => surface_contacts_within(mesh, other, margin),
        Volume::HeightField(field) => surface_contacts_within(field, other, margin),
        Volume::Obb(_)
        | Volume::Sphere(_)
        | Volume::Capsule(_)
        | Volume::Hull(_)
        | Volume::Compound(_) => ArrayVec::new(),
    }
}

/// The contact of two world-space volumes; the normal points from a toward b. A ball or a box
/// against a surface: the deepest manifold with the surface's triangles, internal edges
/// filtered (every manifold: [`volume_contacts_within`]); two surfaces: `None`.
pub fn volume_contact(a: &Volume, b: &Volume) -> Option<Contact> {
    match (a, b) {
        (Volume::Obb(a), Volume::Obb(b)) => obb_obb_contact(a, b),
        _ => volume_contact_within(a, b, 0.0),
    }
}

/// The manifolds of a pair with at least one surface: the surface first, flipped when it was
/// second.
fn surface_manifolds(a: &Volume, b: &Volume, margin: Real) -> ArrayVec<Contact, MAX_MANIFOLDS> {
    match a {
        Volume::TriMesh(_) | Volume::HeightField(_) => surface_first(a, b, margin),
        Volume::Obb(_)
        | Volume::Sphere(_)
        | Volume::Capsule(_)
        | Volume::Hull(_)
        | Volume::Compound(_) => surface_first(b, a, margin)
            .into_iter()
            .map(Contact::flipped)
            .collect(),
    }
}

/// The deepest of a surface pair's manifolds (ties to the first), for the one-contact forms.
fn surface_pair(a: &Volume, b: &Volume, margin: Real) -> Option<Contact> {
    surface_manifolds(a, b, margin)
        .into_iter()
        .rev()
        .max_by(|p, q| p.depth.total_cmp(&q.depth))
}

/// Two polyhedra (hulls, or a hull and a box) seen from the first one's frame, lent to `test`
/// with where that frame is: the pair tests run there, so that only the second is placed (the
/// first's vertices and normals are its own, exactly), and their contact is placed after.
/// The second's planes may be left to place ([`Poly::place_planes`]).
/// `None` for any other pair, two boxes included (they have their own test). (The polyhedra
/// are built where `test` reads them: handed back, their fields' copies were a tenth of a
/// cached test.)
#[inline(always)]
fn with_polyhedra<R>(
    a: &Volume,
    b: &Volume,
    test: impl FnOnce(&Poly<'_>, &mut Poly<'_>, &Isometry3) -> R,
) -> Option<R> {
    // The frame and the first polyhedron are made apart, each where it is read: made as a
    // pair and taken apart, they were copied (the copy's load was the cached test's slowest
    // instruction).
    let frame = match (a, b) {
        // (The second checked first, so that nothing is placed for a pair that is not one.)
        (Volume::Obb(_), Volume::Obb(_))
        | (
            _,
            Volume::Sphere(_)
            | Volume::Capsule(_)
            | Volume::Compound(_)
            | Volume::TriMesh(_)
            | Volume::HeightField(_),
        ) => return None,
        (Volume::Hull(posed), _) => posed.pose,
        (Volume::Obb(obb), _) => Isometry3::from_parts(obb.center.coords.into(), obb.rotation),
        _ => return None,
    };
    let a_local = match a {
        Volume::Hull(posed) => Poly::of_hull_local(&posed.hull),
        Volume::Obb(obb) => Poly::of_box_local(&obb.half_extents),
        _ => return None,
    };
    let inverse = frame.inverse();
    let mut b_local = match b {
        Volume::Hull(posed) => Poly::of_hull_vertices(&posed.hull, &(inverse * posed.pose)),
        Volume::Obb(obb) => Poly::of_box(&Obb {
            center: inverse * obb.center,
            half_extents: obb.half_extents,
            rotation: inverse.rotation * obb.rotation,
        }),
        _ => return None,
    };
    Some(test(&a_local, &mut b_local, &frame))
}

/// Whether two polyhedra (hulls, or a hull and a box) are apart by more than `margin` between
/// the balls about their vertices' means that hold them, loosened by far more than rounding
/// ([`slack`]). Where it holds, the SAT's first check (the pair's extents along the line of
/// the centres) finds them apart too, and [`poly_poly_contact_cached`] gives `None` and no
/// cached axis: this answers the same without placing either polyhedron.
fn balls_apart(a: &Volume, b: &Volume, margin: Real) -> bool {
    if matches!((a, b), (Volume::Obb(_), Volume::Obb(_))) {
        return false;
    }
    let (Some((ca, ra)), Some((cb, rb))) = (polyhedron_ball(a), polyhedron_ball(b)) else {
        return false;
    };
    let reach = ra + rb;
    (cb - ca).norm() > reach + margin + slack(reach, &ca, &cb)
}

/// The ball about a hull's vertices' mean (a box's centre) that holds it; `None` for any
/// other volume.
fn polyhedron_ball(v: &Volume) -> Option<(Point3, Real)> {
    match v {
        Volume::Hull(posed) => {
            let (centre, _) = posed.hull.inner_ball();
            Some((posed.pose * centre, posed.hull.outer_radius()))
        }
        Volume::Obb(obb) => Some((obb.center, obb.half_extents.norm())),
        _ => None,
    }
}

/// How much the ball tests loosen their answer: a thousandth of the balls' `reach`, and a
/// ten-thousandth of the centres' distance from the origin. The rounding they must stay
/// above (of the centres placed in world space here, and of the SAT's in one shape's frame)
/// is some hundred times smaller.
fn slack(reach: Real, ca: &Point3, cb: &Point3) -> Real {
    let far = ca.coords.amax().max(cb.coords.amax());
    1e-3 * reach + 1e-4 * far
}

/// The contact of two polyhedra (see [`with_polyhedra`]), speculative up to `margin`.
fn polyhedra_contact(a: &Volume, b: &Volume, margin: Real) -> Option<Contact> {
    with_polyhedra(a, b, |pa, pb, frame| {
        pb.place_planes();
        poly_poly_contact_within(pa, pb, margin).map(|c| c.placed(frame))
    })?
}

/// A posed hull as a polyhedron in world space.
fn hull_poly(posed: &PosedHull) -> Poly<'_> {
    Poly::of_hull(&posed.hull, &posed.pose)
}

/// Whether either volume is a surface (a mesh or a heightfield).
#[inline]
pub fn has_surface(a: &Volume, b: &Volume) -> bool {
    let surface = |v: &Volume| matches!(v, Volume::TriMesh(_) | Volume::HeightField(_));
    surface(a) || surface(b)
}

/// Whether a pair may have several manifolds: a surface or a compound is in it.
#[inline]
pub fn has_several_manifolds(a: &Volume, b: &Volume) -> bool {
    has_surface(a, b) || compounds(a, b) != (false, false)
}

/// A manifold of part `k` of a compound (`side` 0 the first volume, 1 the second) with its
/// feature ids made its own: each xor-ed with a mix of the part and the side, so that a
/// body pair's manifolds keep apart ids (a warm start matches them by id).
fn tagged(mut contact: Contact, k: usize, side: u32) -> Contact {
    let mask = (k as u32)
        .wrapping_mul(2)
        .wrapping_add(side + 1)
        .wrapping_mul(0x9e37_79b1);
    for p in &mut contact.points {
        p.id.0 ^= mask;
    }
    contact
}

/// The parts of `posed` whose boxes (in its frame) meet `other`'s box turned into its frame
/// and loosened by `margin`: a superset of those whose placed boxes meet it, found without
/// placing any part.
///
/// A hull part is passed over too when the ball that holds `other` (a hull or a box) lies
/// beyond one of its faces' planes by more than `margin` (and [`slack`]): the SAT of the two
/// finds that face, or an earlier axis, apart by more than the margin, and gives no contact.
fn parts_near<'a>(
    posed: &'a PosedCompound,
    other: &Volume,
    margin: Real,
) -> impl Iterator<Item = usize> + 'a {
    let inverse = posed.pose.inverse();
    let local = other.aabb().transformed(&inverse).loosened(margin);
    let ball = polyhedron_ball(other).map(|(centre, radius)| {
        let reach = radius + margin + slack(radius, &centre, &posed.pose.translation.vector.into());
        (inverse * centre, reach)
    });
    let parts = posed.compound.parts();
    (posed.compound.parts_meeting(&local)).filter(move |&k| {
        !ball.is_some_and(|(centre, reach)| beyond_a_face(&parts[k], &centre, reach))
    })
}

/// Whether `centre` (in the compound's frame) lies more than `reach` beyond one of hull part
/// `part`'s face planes (`false` for any other part).
fn beyond_a_face(part: &geom::Part, centre: &Point3, reach: Real) -> bool {
    let Shape::ConvexHull { hull } = &part.shape else {
        return false;
    };
    let at = part.offset.inverse_transform_point(centre).coords;
    (hull.normals().iter().zip(hull.plane_offsets())).any(|(n, offset)| n.dot(&at) - offset > reach)
}

/// Each pair of leaves of a pair, handed to `leaf` with their `parts` (see [`PartAxis`]):
/// each part of a compound whose box meets the other's (loosened by the margin; see
/// [`parts_near`]) against the other, a compound's parts in turn, in order of `parts`; a pair
/// without a compound is its own one pair of leaves.
fn compound_leaves(
    a: &Volume,
    b: &Volume,
    margin: Real,
    leaf: &mut dyn FnMut([u16; 2], &Volume, &Volume),
) {
    // (A compound holds at most `geom::MAX_PARTS` parts: their indices fit.)
    let index = |k: usize| k as u16;
    match (a, b) {
        (Volume::Compound(posed), Volume::Compound(other)) => {
            for k in parts_near(posed, b, margin) {
                let part = posed.part(k);
                for j in parts_near(other, &part, margin) {
                    leaf([index(k), index(j)], &part, &other.part(j));
                }
            }
        }
        (Volume::Compound(posed), _) => {
            for k in parts_near(posed, b, margin) {
                leaf([index(k), 0], &posed.part(k), b);
            }
        }
        (_, Volume::Compound(posed)) => {
            for j in parts_near(posed, a, margin) {
                leaf([0, index(j)], a, &posed.part(j));
            }
        }
        _ => leaf([0, 0], a, b),
    }
}

/// A leaf pair's manifold with its feature ids made those of its parts (see [`tagged`]):
/// `compounds` says which sides are compounds.
fn tagged_parts(contact: Contact, [k, j]: [u16; 2], compounds: (bool, bool)) -> Contact {
    let contact = if compounds.1 {
        tagged(contact, j.into(), 1)
    } else {
        contact
    };
    if compounds.0 {
        tagged(contact, k.into(), 0)
    } else {
        contact
    }
}

/// Which sides of a pair are compounds.
fn compounds(a: &Volume, b: &Volume) -> (bool, bool) {
    let compound = |v: &Volume| matches!(v, Volume::Compound(_));
    (compound(a), compound(b))
}

/// Every manifold of a pair with a compound in it: each pair of leaves' (see
/// [`compound_leaves`]).
fn compound_manifolds(a: &Volume, b: &Volume, margin: Real, found: &mut dyn FnMut(Contact)) {
    let sides = compounds(a, b);
    compound_leaves(a, b, margin, &mut |parts, x, y| {
        volume_contacts_within(x, y, margin, |c| found(tagged_parts(c, parts, sides)));
    });
}

/// The deepest manifold of a pair with a compound in it (ties to the first).
fn compound_pair(a: &Volume, b: &Volume, margin: Real) -> Option<Contact> {
    let mut deepest: Option<Contact> = None;
    compound_manifolds(a, b, margin, &mut |c| {
        if deepest.as_ref().is_none_or(|d| c.depth > d.depth) {
            deepest = Some(c);
        }
    });
    deepest
}

/// Every manifold of two world-space volumes, speculative up to `margin`, each handed to
/// `found` (normals from a toward b): the one of [`volume_contact_within`] for two solids, one
/// per group of normals for a solid against a surface (at most four; a shape in a crease
/// between two slopes meets both), as Box3D keeps them, and each part's for a compound.
pub fn volume_contacts_within(
    a: &Volume,
    b: &Volume,
    margin: Real,
    mut found: impl FnMut(Contact),
) {
    if matches!(a, Volume::Compound(_)) || matches!(b, Volume::Compound(_)) {
        compound_manifolds(a, b, margin, &mut found);
    } else if has_surface(a, b) {
        surface_manifolds(a, b, margin).into_iter().for_each(found);
    } else if let Some(contact) = volume_contact_within(a, b, margin) {
        found(contact);
    }
}

/// [`volume_contact`] with a speculative `margin >= 0` (metres), and box-box manifolds that
/// prefer faces (see [`crate::obb_obb_contact_within`]): what a solver wants.
pub fn volume_contact_within(a: &Volume, b: &Volume, margin: Real) -> Option<Contact> {
    match (a, b) {
        (Volume::Obb(a), Volume::Obb(b)) => obb_obb_contact_within(a, b, margin),
        (Volume::Sphere(a), Volume::Sphere(b)) => sphere_sphere_contact_within(a, b, margin),
        (Volume::Sphere(a), Volume::Obb(b)) => sphere_obb_contact_within(a, b, margin),
        (Volume::Obb(a), Volume::Sphere(b)) => {
            sphere_obb_contact_within(b, a, margin).map(Contact::flipped)
        }
        (Volume::Sphere(a), Volume::Capsule(b)) => sphere_capsule_contact_within(a, b, margin),
        (Volume::Capsule(a), Volume::Sphere(b)) => {
            sphere_capsule_contact_within(b, a, margin).map(Contact::flipped)
        }
        (Volume::Capsule(a), Volume::Capsule(b)) => capsule_capsule_contact_within(a, b, margin),
        (Volume::Capsule(a), Volume::Obb(b)) => capsule_obb_contact_within(a, b, margin),
        (Volume::Obb(a), Volume::Capsule(b)) => {
            capsule_obb_contact_within(b, a, margin).map(Contact::flipped)
        }
        (Volume::Hull(_), Volume::Hull(_) | Volume::Obb(_)) | (Volume::Obb(_), Volume::Hull(_)) => {
            polyhedra_contact(a, b, margin)
        }
        (Volume::Hull(a), Volume::Sphere(b)) => {
            poly_sphere_contact_within(&hull_poly(a), b, margin)
        }
        (Volume::Sphere(a), Volume::Hull(b)) => {
            poly_sphere_contact_within(&hull_poly(b), a, margin).map(Contact::flipped)
        }
        (Volume::Hull(a), Volume::Capsule(b)) => {
            poly_capsule_contact_within(&hull_poly(a), b, margin)
        }
        (Volume::Capsule(a), Volume::Hull(b)) => {
            poly_capsule_contact_within(&hull_poly(b), a, margin).map(Contact::flipped)
        }
        (Volume::Compound(_), _) | (_, Volume::Compound(_)) => compound_pair(a, b, margin),
        (Volume::TriMesh(_) | Volume::HeightField(_), _)
        | (_, Volume::TriMesh(_) | Volume::HeightField(_)) => surface_pair(a, b, margin),
    }
}

/// [`volume_contact_within`] for a pair a world tests step after step: two hulls, or a hull
/// and a box, try the axis `cache` kept from the pair's last test first and leave this test's
/// in it (see [`AxisCache`]; Box3D's separating axis cache). Other pairs are tested in full,
/// and `cache` is left empty.
pub fn volume_contact_cached(
    a: &Volume,
    b: &Volume,
    margin: Real,
    cache: &mut Option<AxisCache>,
) -> Option<Contact> {
    // A pair with no cached axis: most are apart, and the balls about the two centres that
    // the SAT's first check uses show most of those without placing either.
    if cache.is_none() && balls_apart(a, b, margin) {
        return None;
    }
    let cached = with_polyhedra(a, b, |pa, pb, frame| {
        poly_poly_contact_cached(pa, pb, margin, cache).map(|c| c.placed(frame))
    });
    if let Some(contact) = cached {
        return contact;
    }
    *cache = None;
    volume_contact_within(a, b, margin)
}

/// [`volume_contacts_within`] for a pair a world tests step after step, with an axis cache
/// per pair of polyhedral leaves (two hulls or a hull and a box, whole or parts of
/// compounds): `before` holds the axes the pair's last test left, ordered by parts; each
/// leaf pair tries its own first ([`volume_contact_cached`]), and the axes this test leaves
/// are handed to `after` in the same order. Other leaf pairs are tested in full and leave
/// none. Box3D keeps such a cache per pair of shapes; here a compound's parts are one body's
/// shape, so the cache is per pair of parts.
#[inline(never)]
pub fn volume_contacts_cached(
    a: &Volume,
    b: &Volume,
    margin: Real,
    before: &[PartAxis],
    after: &mut dyn FnMut(PartAxis),
    found: &mut dyn FnMut(Contact),
) {
    let mut rest = before;
    let sides = compounds(a, b);
    compound_leaves(a, b, margin, &mut |parts, x, y| {
        let mut found = |c| found(tagged_parts(c, parts, sides));
        if has_surface(x, y) {
            volume_contacts_within(x, y, margin, found);
        } else if let Some(contact) =
            leaf_contact_cached(x, y, margin, parts, &mut rest, &mut *after)
        {
            found(contact);
        }
    });
}

/// [`volume_contact_cached`] for one pair of solid leaves, `parts`, with its axis found in
/// `rest` (a pair's axes ordered by parts, the leaves' before `parts` already taken: those
/// passed over are dropped) and the axis it leaves handed to `after`.
#[inline]
pub(crate) fn leaf_contact_cached(
    a: &Volume,
    b: &Volume,
    margin: Real,
    parts: [u16; 2],
    rest: &mut &[PartAxis],
    mut after: impl FnMut(PartAxis),
) -> Option<Contact> {
    while rest.first().is_some_and(|e| e.parts < parts) {
        *rest = &rest[1..];
    }
    let mut cache = rest.first().filter(|e| e.parts == parts).map(|e| e.axis);
    let contact = volume_contact_cached(a, b, margin, &mut cache);
    if let Some(axis) = cache {
        after(PartAxis { parts, axis });
    }
    contact
}

/// Whether two world-space volumes intersect (touching counts).
pub fn volume_intersects(a: &Volume, b: &Volume) -> bool {
    match (a, b) {
        (Volume::Obb(a), Volume::Obb(b)) => obb_obb_intersects(a, b),
        (Volume::Sphere(a), Volume::Sphere(b)) => a.intersects(b),
        (Volume::Sphere(a), Volume::Obb(b)) => sphere_obb_intersects(a, b),
        (Volume::Obb(a), Volume::Sphere(b)) => sphere_obb_intersects(b, a),
        _ => volume_contact_within(a, b, 0.0).is_some_and(|c| c.depth >= 0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geom::Vector3;

    /// A pair with no cached axis gives the same contact and leaves the same cache whether
    /// the balls about the centres answer first or the polyhedra are placed and tested, on
    /// pairs from overlapping to well apart (the balls answer a good share of them).
    #[test]
    fn the_balls_answer_an_uncached_pair_as_the_sat_does() {
        let mut rng = testbed::SplitMix(77);
        let shapes: Vec<Shape> = (0..6)
            .map(|k| {
                let points: Vec<Point3> = (0..5 + 6 * k).map(|_| rng.point(1.0)).collect();
                Shape::convex_hull(&points).expect("a hull of random points")
            })
            .chain([Shape::cuboid(Vector3::new(0.7, 0.3, 1.1)).expect("a box")])
            .collect();
        let bits = |c: &Option<Contact>| {
            c.as_ref().map(|c| {
                let mut v: Vec<u32> = c.normal.iter().map(|x| x.to_bits()).collect();
                v.push(c.depth.to_bits());
                for p in &c.points {
                    v.extend(p.position.iter().map(|x| x.to_bits()));
                    v.push(p.id.0);
                }
                v
            })
        };
        let mut answered = 0;
        for round in 0..4000 {
            let pa = Isometry3::from_parts(rng.point(20.0).coords.into(), rng.rotation());
            let offset = rng.point(3.0).coords;
            let pb = Isometry3::from_parts((pa.translation.vector + offset).into(), rng.rotation());
            let (a, b) = (
                shapes[round % shapes.len()].world(&pa),
                shapes[(round / 7) % shapes.len()].world(&pb),
            );
            if matches!((&a, &b), (Volume::Obb(_), Volume::Obb(_))) {
                continue;
            }
            let margin = 0.05 * (round % 3) as Real;
            answered += usize::from(balls_apart(&a, &b, margin));
            let mut cache = None;
            let contact = volume_contact_cached(&a, &b, margin, &mut cache);
            let mut placed_cache = None;
            let placed = with_polyhedra(&a, &b, |pa, pb, frame| {
                poly_poly_contact_cached(pa, pb, margin, &mut placed_cache).map(|c| c.placed(frame))
            })
            .expect("two polyhedra");
            assert_eq!(bits(&contact), bits(&placed), "round {round}");
            assert_eq!(cache, placed_cache, "round {round}");
        }
        assert!(answered > 500, "{answered}");
    }

    /// A compound's manifolds with a hull or a box are those of every part tested in turn:
    /// the parts passed over by their boxes or by a face plane beyond the other's ball give
    /// none, on pairs from deep inside a ring of slabs to well clear of it.
    #[test]
    fn the_parts_passed_over_give_no_contact() {
        let mut rng = testbed::SplitMix(41);
        // A ring of eight slabs, like the washer's drum, about the z axis.
        let parts: Vec<geom::Part> = (0..8)
            .map(|k| {
                let angle = std::f32::consts::FRAC_PI_4 * k as Real;
                let turn = geom::UnitQuaternion::from_axis_angle(&Vector3::z_axis(), angle);
                let corners: Vec<geom::Point3> = (0..8)
                    .map(|c| {
                        let s = |bit: usize, lo: Real, hi: Real| if c & bit == 0 { lo } else { hi };
                        let p = Vector3::new(s(1, 3.0, 3.6), s(2, -1.2, 1.2), s(4, -2.0, 2.0));
                        geom::Point3::from(turn * p)
                    })
                    .collect();
                let hull = Shape::convex_hull(&corners).expect("a slab");
                geom::Part::new(hull, Isometry3::identity())
            })
            .collect();
        let ring = Shape::compound(parts).expect("a ring");
        let others = [
            Shape::cuboid(Vector3::new(0.3, 0.2, 0.4)).expect("a box"),
            Shape::convex_hull(&(0..12).map(|_| rng.point(0.5)).collect::<Vec<_>>())
                .expect("a rock"),
        ];
        let (mut passed_over, mut touching) = (0, 0);
        for round in 0..3000 {
            let pose = Isometry3::from_parts(rng.point(5.0).coords.into(), rng.rotation());
            let at = Isometry3::from_parts(rng.point(4.5).coords.into(), rng.rotation());
            let (a, b) = (ring.world(&pose), others[round % 2].world(&(pose * at)));
            let Volume::Compound(posed) = &a else {
                panic!("a compound");
            };
            let margin = 0.1 * (round % 3) as Real;
            let mut filtered = Vec::new();
            volume_contacts_within(&a, &b, margin, |c| filtered.push(c));
            let mut every = Vec::new();
            for k in 0..posed.compound.parts().len() {
                volume_contacts_within(&posed.part(k), &b, margin, |c| every.push(tagged(c, k, 0)));
            }
            assert_eq!(filtered, every, "round {round}");
            touching += usize::from(!every.is_empty());
            let local = b.aabb().transformed(&posed.pose.inverse()).loosened(margin);
            let boxes_meet = (posed.compound.part_aabbs().iter())
                .filter(|aabb| aabb.intersects(&local))
                .count();
            passed_over += boxes_meet - parts_near(posed, &b, margin).count();
        }
        assert!(touching > 300, "{touching}");
        assert!(passed_over > 300, "{passed_over}");
    }
}
