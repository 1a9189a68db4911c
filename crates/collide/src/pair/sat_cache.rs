//! Temporal coherence for two polyhedra (Box3D's `b3SATCache` in `b3CollideHulls`): the axis
//! that held a pair at its last test is tried first at the next.
//!
//! - A cached axis that still separates the pair by more than the margin: apart, without the
//!   rest of the separating axis test.
//! - Else the contact is rebuilt on the cached feature (the reference face clipped, or the two
//!   edges' closest points); it stands when its least separation is within
//!   [`AXIS_CACHE_TOLERANCE`] of the separation the full test found when it cached the axis.
//!   The cache keeps that separation (a reuse does not update it), so that a pair drifting
//!   step by step is tested in full once it has drifted the tolerance.
//! - Anything else (a face whose clipping leaves nothing, edges whose arcs no longer cross on
//!   the Gauss map or whose closest points left the edges, an index out of range): the full
//!   test, whose axis is cached for the next. Its choice prefers a face: an edge axis wins
//!   only by [`FACE_PREFERENCE`] more, as Box3D's does.
//!
//! A reused axis need not be the axis of least penetration, nor need the full test's here: the
//! contact can differ from a fresh test's while the pair stays within the tolerance of where
//! the full test last saw it, and by the face preference, as Box3D's does. The pair functions
//! ([`crate::hull_hull_contact_within`] and the dispatch) never read a cache nor prefer a
//! face; only [`crate::volume_contact_cached`] does.

use super::hull::{
    Poly, apart_along_centres, arcs_cross, contact_and_axis, edge_axis, edge_manifold,
    face_contact, face_manifold, sat_past_centres,
};
use crate::contact::Contact;
use geom::{Point3, Real};
use serde::{Deserialize, Serialize};

/// How far (metres) a pair's separation on its cached axis may move from the separation the
/// full test found before the full test runs again: Box3D's linear slop, as its cache uses.
pub const AXIS_CACHE_TOLERANCE: Real = 0.005;

/// How much deeper (metres) a face axis may be than the best edge axis and still make a world's
/// contact (Box3D's linear slop, as `b3CollideHulls` prefers its face contact), at most a
/// twentieth of the smaller shape's size (half its largest extent). Two faces
/// pressed together turn a little as a pile moves, and without a preference the least
/// penetration passes from a face to a pair of edges and back from step to step: a contact of
/// four points becomes one of a single point, whose impulses do not carry over, and which
/// holds neither a tilt nor a twist. Measured on Box3D's junkyard at its effort (rocks pushed
/// together ahead of its pusher), every 25 steps over its last 150: with no preference the
/// overlapping rock contacts reached 48-62 mm at the 99th percentile with 72-105 points over
/// 10 cm deep; with this one 22-33 mm and 5-50 points; Box3D's own 22-26 mm and 5-10 points.
pub const FACE_PREFERENCE: Real = 0.005;

/// The feature whose axis held a pair of polyhedra at its last test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AxisFeature {
    /// A face of the first polyhedron (its index).
    FaceA(u16),
    /// A face of the second.
    FaceB(u16),
    /// An edge of each, as its half-edge of lower index (the first's, the second's).
    Edges(u16, u16),
}

/// A pair of polyhedra's cached axis: the feature and the separation along it when the full
/// test found it (negative: overlap). Simulation state of the pair: a world keeps one per
/// pair of hulls (or a hull and a box) that the last step tested.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AxisCache {
    /// The feature.
    pub feature: AxisFeature,
    /// The separation then (metres).
    pub separation: Real,
}

impl AxisCache {
    /// The cache of `feature` at `separation`.
    pub fn new(feature: AxisFeature, separation: Real) -> Self {
        Self {
            feature,
            separation,
        }
    }
}

/// A cached axis as a world keeps it for a pair of bodies: the axis of one pair of parts.
/// `parts` names the part of each side's compound (0 for a side that is not a compound), so
/// that a compound body pair keeps one axis per pair of polyhedral parts that met, as Box3D
/// keeps one per pair of shapes; ordered by `parts`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PartAxis {
    /// The part of each side (0 for a side that is not a compound).
    pub parts: [u16; 2],
    /// The axis.
    pub axis: AxisCache,
}

/// What a cached axis tells of a pair now.
enum Cached {
    /// It separates them by more than the margin.
    Apart,
    /// The contact rebuilt on it stands.
    Contact(Contact),
    /// Test in full.
    Stale,
}

/// The contact of two polyhedra, speculative up to `margin` (normal from a toward b), trying
/// `cache` first; `cache` is left with the axis for the next test (unchanged when it was
/// reused; `None` when the pair was apart by the line of the centres or touched by a vertex
/// alone). `b`'s planes may be left to place (see [`Poly`]): the cached axis reads one or
/// two of them, and they are all placed only for the full test.
pub(crate) fn poly_poly_contact_cached(
    a: &Poly<'_>,
    b: &mut Poly<'_>,
    margin: Real,
    cache: &mut Option<AxisCache>,
) -> Option<Contact> {
    if let Some(old) = *cache {
        match try_cached(a, b, margin, &old) {
            Cached::Apart => return None,
            Cached::Contact(contact) => return Some(contact),
            Cached::Stale => {}
        }
    }
    // (Checked before `b`'s planes are placed: most pairs it finds apart never need them.)
    if apart_along_centres(a, b, margin) {
        *cache = None;
        return None;
    }
    b.place_planes();
    let b = &*b;
    match sat_past_centres(a, b, margin, FACE_PREFERENCE, &|_| true) {
        Err(apart) => {
            *cache = apart;
            None
        }
        Ok(chosen) => {
            let (contact, held) = contact_and_axis(a, b, chosen, margin)?;
            *cache = held;
            Some(contact)
        }
    }
}

/// Whether the separation `now` on a cached axis is still within the tolerance of `old`'s.
fn holds(old: &AxisCache, now: Real) -> bool {
    (now - old.separation).abs() < AXIS_CACHE_TOLERANCE
}

/// The pair seen along `old`'s axis (see [`Cached`]).
fn try_cached(a: &Poly<'_>, b: &Poly<'_>, margin: Real, old: &AxisCache) -> Cached {
    match old.feature {
        AxisFeature::FaceA(f) => face(a, b, usize::from(f), margin, old, false),
        AxisFeature::FaceB(f) => face(b, a, usize::from(f), margin, old, true),
        AxisFeature::Edges(ea, eb) => edges(a, b, usize::from(ea), usize::from(eb), margin, old),
    }
}

/// Face `f` of `reference` against `incident` (`reference_is_b`: the pair's second shape).
fn face(
    reference: &Poly<'_>,
    incident: &Poly<'_>,
    f: usize,
    margin: Real,
    old: &AxisCache,
    reference_is_b: bool,
) -> Cached {
    if f >= reference.topology.faces().len() {
        return Cached::Stale;
    }
    let n = reference.normal(f);
    let deepest = incident.support_index(&-n);
    let separation = reference.distance(f, &incident.vertices[deepest]);
    if separation > margin {
        return Cached::Apart;
    }
    let points = face_contact(reference, f, incident, deepest, margin, reference_is_b);
    if points.four.is_empty() || !holds(old, points.least_separation) {
        return Cached::Stale;
    }
    Cached::Contact(face_manifold(points.normal, points.four, separation))
}

/// The edge pair `ea` of `a` and `eb` of `b`: their axis while their arcs cross on the Gauss
/// map (they make a face of the Minkowski difference), oriented and measured as the edge query
/// does; the contact while their lines' closest points lie on both edges.
fn edges(
    a: &Poly<'_>,
    b: &Poly<'_>,
    ea: usize,
    eb: usize,
    margin: Real,
    old: &AxisCache,
) -> Cached {
    let edge_count = |p: &Poly<'_>| p.topology.half_edges().len();
    if ea >= edge_count(a) || eb >= edge_count(b) || a.is_flat() || b.is_flat() {
        return Cached::Stale;
    }
    let ((pa, qa), (pb, qb)) = (a.edge(ea), b.edge(eb));
    let (da, db) = (qa - pa, qb - pb);
    let ((ua, va), (ub, vb)) = (a.edge_normals(ea), b.edge_normals(eb));
    let (cba, dba) = (ub.dot(&da), vb.dot(&da));
    let (adc, bdc) = (ua.dot(&db), va.dot(&db));
    if !arcs_cross(cba, dba, adc, bdc) {
        return Cached::Stale;
    }
    let Some(axis) = edge_axis(a, (ea, pa, &da), (eb, pb, &db)) else {
        return Cached::Stale;
    };
    if axis.separation > margin {
        return Cached::Apart;
    }
    if !holds(old, axis.separation) || !closest_within(pa, &da, pb, &db) {
        return Cached::Stale;
    }
    let (contact, _) = edge_manifold(a, b, &axis);
    Cached::Contact(contact)
}

/// Whether the closest points of the lines through `pa` along `da` and `pb` along `db` lie
/// on both segments (the edges, not parallel: the caller's arcs cross).
fn closest_within(pa: &Point3, da: &geom::Vector3, pb: &Point3, db: &geom::Vector3) -> bool {
    let r = pa - pb;
    let (aa, ee, bb) = (da.norm_squared(), db.norm_squared(), da.dot(db));
    let (c, f) = (da.dot(&r), db.dot(&r));
    let denom = aa * ee - bb * bb;
    if denom <= 0.0 {
        return false;
    }
    let s = (bb * f - c * ee) / denom;
    let t = (aa * f - bb * c) / denom;
    (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pair::hull::poly_poly_contact_within;
    use geom::{ConvexHull, Isometry3, Obb, Vector3};

    /// A contact's bits, to compare two to the bit.
    fn bits(c: &Option<Contact>) -> Option<Vec<u32>> {
        c.as_ref().map(|c| {
            let mut v: Vec<u32> = c.normal.iter().map(|x| x.to_bits()).collect();
            v.push(c.depth.to_bits());
            for p in &c.points {
                v.extend(p.position.iter().map(|x| x.to_bits()));
                v.push(p.depth.to_bits());
                v.push(p.id.0);
            }
            v
        })
    }

    fn hulls(rng: &mut testbed::SplitMix) -> Vec<ConvexHull> {
        (0..6)
            .map(|k| {
                let points: Vec<Point3> = (0..6 + 8 * k).map(|_| rng.point(1.5)).collect();
                ConvexHull::new(&points).expect("a hull of random points")
            })
            .collect()
    }

    #[test]
    fn a_pair_tested_again_where_it_was_gives_the_fresh_contact_from_its_cached_axis() {
        let mut rng = testbed::SplitMix(31);
        let hulls = hulls(&mut rng);
        let (mut kinds, mut reused, mut apart, mut preferred) = ([0; 3], 0, 0, 0);
        for round in 0..3000 {
            let pa = Isometry3::from_parts(rng.point(0.3).coords.into(), rng.rotation());
            let pb = Isometry3::from_parts(rng.point(2.2).coords.into(), rng.rotation());
            let a = Poly::of_hull(&hulls[round % hulls.len()], &pa);
            // The second as the world gives it: a hull with its planes left to place.
            let second = || {
                if round % 4 == 0 {
                    Poly::of_box(&Obb {
                        center: pb.translation.vector.into(),
                        half_extents: Vector3::new(0.6, 0.4, 0.9),
                        rotation: pb.rotation,
                    })
                } else {
                    Poly::of_hull_vertices(&hulls[(round / 3) % hulls.len()], &pb)
                }
            };
            let mut b = second();
            b.place_planes();
            let margin = 0.04;
            let exact = poly_poly_contact_within(&a, &b, margin);
            let fresh = preferring_faces(&a, &b, margin);
            // The face preference: the same contact but where a face axis came within it (and
            // the bias) of a better edge axis: then a face's, at most that much deeper.
            if bits(&fresh) != bits(&exact) {
                let (f, x) = (fresh.as_ref().unwrap(), exact.as_ref().unwrap());
                assert!(
                    f.depth >= x.depth
                        && f.depth <= x.depth + FACE_PREFERENCE + 2e-3 * f.depth.abs() + 1e-4,
                    "round {round}: {} {}",
                    f.depth,
                    x.depth
                );
                preferred += 1;
            }
            let mut cache = None;
            let first = poly_poly_contact_cached(&a, &mut second(), margin, &mut cache);
            assert_eq!(bits(&first), bits(&fresh), "round {round}: the full test");
            let Some(held) = cache else {
                continue;
            };
            kinds[match held.feature {
                AxisFeature::FaceA(_) => 0,
                AxisFeature::FaceB(_) => 1,
                AxisFeature::Edges(..) => 2,
            }] += 1;
            match try_cached(&a, &second(), margin, &held) {
                Cached::Apart => {
                    assert!(fresh.is_none(), "round {round}");
                    apart += 1;
                }
                Cached::Contact(contact) => {
                    assert_eq!(bits(&Some(contact)), bits(&fresh), "round {round}");
                    reused += 1;
                }
                Cached::Stale => {}
            }
            let again = poly_poly_contact_cached(&a, &mut second(), margin, &mut cache);
            assert_eq!(bits(&again), bits(&fresh), "round {round}: from the cache");
            assert_eq!(cache, Some(held), "round {round}: the cache is kept");
        }
        assert!(kinds.iter().all(|&k| k > 50), "{kinds:?}");
        assert!(reused > 500 && apart > 200, "{reused} {apart}");
        assert!(preferred > 10, "{preferred}");
    }

    #[test]
    fn a_small_pairs_face_preference_shrinks_with_it() {
        // The pairs of the test above at a hundredth of the size: a face is preferred by at
        // most a twentieth of the smaller shape's size (about 0.75 mm here), not 5 mm.
        let mut rng = testbed::SplitMix(37);
        let hulls: Vec<ConvexHull> = hulls(&mut rng)
            .iter()
            .map(|h| {
                let small: Vec<Point3> = h.vertices().iter().map(|p| p * 0.01).collect();
                ConvexHull::new(&small).expect("a small hull")
            })
            .collect();
        let mut preferred = 0;
        for round in 0..3000 {
            let pa = Isometry3::from_parts((rng.point(0.3).coords * 0.01).into(), rng.rotation());
            let pb = Isometry3::from_parts((rng.point(2.2).coords * 0.01).into(), rng.rotation());
            let (ha, hb) = (
                &hulls[round % hulls.len()],
                &hulls[(round / 3) % hulls.len()],
            );
            let (a, b) = (Poly::of_hull(ha, &pa), Poly::of_hull(hb, &pb));
            let (exact, fresh) = (
                poly_poly_contact_within(&a, &b, 0.0004),
                preferring_faces(&a, &b, 0.0004),
            );
            if bits(&fresh) != bits(&exact) {
                let (f, x) = (fresh.unwrap(), exact.unwrap());
                let preference = 0.05 * a.size.min(b.size);
                assert!(preference < 0.2 * FACE_PREFERENCE, "round {round}");
                assert!(
                    f.depth >= x.depth && f.depth <= x.depth + preference + 2e-3 * f.depth.abs(),
                    "round {round}: {} {}",
                    f.depth,
                    x.depth
                );
                preferred += 1;
            }
        }
        assert!(preferred > 0);
    }

    /// The full test as a world runs it (preferring faces), without a cache.
    fn preferring_faces(a: &Poly<'_>, b: &Poly<'_>, margin: Real) -> Option<Contact> {
        if apart_along_centres(a, b, margin) {
            return None;
        }
        let chosen = sat_past_centres(a, b, margin, FACE_PREFERENCE, &|_| true).ok()?;
        contact_and_axis(a, b, chosen, margin).map(|(contact, _)| contact)
    }

    #[test]
    fn a_cached_face_stands_within_the_tolerance_and_the_full_test_runs_past_it() {
        // A cube on a cube, face to face: the upper cube's bottom face or the lower one's top
        // holds them. Pressed in by less than the tolerance the cached face is reused; by more,
        // the full test runs (and finds the same face).
        let cube = ConvexHull::new(
            &(0..8)
                .map(|k| {
                    let s = |bit: usize| if k & bit == 0 { -0.5 } else { 0.5 };
                    Point3::new(s(1), s(2), s(4))
                })
                .collect::<Vec<_>>(),
        )
        .expect("a cube");
        let at = |y: Real| Isometry3::translation(0.1, y, 0.05);
        let lower = Poly::of_hull(&cube, &Isometry3::identity());
        let mut cache = None;
        let margin = 0.02;
        let first = poly_poly_contact_cached(
            &lower,
            &mut Poly::of_hull(&cube, &at(0.999)),
            margin,
            &mut cache,
        );
        let held = cache.expect("a face holds them");
        assert!(matches!(
            held.feature,
            AxisFeature::FaceA(_) | AxisFeature::FaceB(_)
        ));
        assert!((first.expect("touching").depth - 0.001).abs() < 1e-6);
        let pressed = |y| Poly::of_hull(&cube, &at(y));
        let within = pressed(0.999 - 0.6 * AXIS_CACHE_TOLERANCE);
        assert!(matches!(
            try_cached(&lower, &within, margin, &held),
            Cached::Contact(_)
        ));
        let past = pressed(0.999 - 1.5 * AXIS_CACHE_TOLERANCE);
        assert!(matches!(
            try_cached(&lower, &past, margin, &held),
            Cached::Stale
        ));
        let mut again = cache;
        let contact = poly_poly_contact_cached(
            &lower,
            &mut pressed(0.999 - 1.5 * AXIS_CACHE_TOLERANCE),
            margin,
            &mut again,
        );
        assert_eq!(
            bits(&contact),
            bits(&poly_poly_contact_within(&lower, &past, margin))
        );
        assert_ne!(again, cache, "the full test caches its own separation");
        // Lifted clear of the margin: apart by the cached face, the cache kept.
        let mut lifted = pressed(1.1);
        let mut kept = cache;
        assert!(poly_poly_contact_cached(&lower, &mut lifted, margin, &mut kept).is_none());
        assert_eq!(kept, cache);
    }

    #[test]
    fn a_cache_that_names_no_feature_of_the_pair_is_tested_in_full() {
        let mut rng = testbed::SplitMix(5);
        let hulls = hulls(&mut rng);
        let a = Poly::of_hull(&hulls[2], &Isometry3::identity());
        let b = Poly::of_hull(&hulls[3], &Isometry3::translation(1.0, 0.4, 0.0));
        let fresh = poly_poly_contact_within(&a, &b, 0.01);
        assert!(fresh.is_some());
        for feature in [
            AxisFeature::FaceA(u16::MAX),
            AxisFeature::FaceB(999),
            AxisFeature::Edges(0, u16::MAX),
            AxisFeature::Edges(u16::MAX, 0),
        ] {
            let mut cache = Some(AxisCache::new(feature, 0.0));
            let contact = poly_poly_contact_cached(
                &a,
                &mut Poly::of_hull_vertices(&hulls[3], &Isometry3::translation(1.0, 0.4, 0.0)),
                0.01,
                &mut cache,
            );
            assert_eq!(bits(&contact), bits(&fresh), "{feature:?}");
            assert_ne!(cache, Some(AxisCache::new(feature, 0.0)));
        }
    }
}
