//! Seed 004's staged filter: bounding spheres first, then AABBs, then the exact test, each stage
//! cheaper than the next and rejecting what it can. The counts show what each stage saves.

use crate::contact::Contact;
use crate::dispatch::{
    has_several_manifolds, leaf_contact_cached, volume_contact, volume_contact_within,
    volume_contacts_cached, volume_contacts_within,
};
use crate::pair::box_box::{FoundAxes, obb_obb_axes_within, obb_obb_manifold_within};
use crate::pair::sat_cache::PartAxis;
use arrayvec::ArrayVec;
use geom::{Aabb, Isometry3, Obb, Real, Shape, Sphere, Volume};

/// How many pairs [`StagedFilter::contacts_within`] takes through its stages at a time.
const WINDOW: usize = 32;

/// The cached form's axes: each pair's from its last test, and the list this test's are
/// appended to (see [`StagedFilter::contacts_within_cached`]).
type Caches<'a, 'b> = (&'a [&'b [PartAxis]], &'a mut Vec<(usize, PartAxis)>);

/// A shape placed in the world, with the bounding volumes the filter's first stages test.
#[derive(Debug, Clone, PartialEq)]
pub struct Posed {
    /// The exact world-space volume.
    pub volume: Volume,
    /// Its world AABB.
    pub aabb: Aabb,
    /// A sphere holding it.
    pub sphere: Sphere,
}

impl Posed {
    /// `shape` placed at `pose`, with its bounding volumes (a box's and a ball's built with
    /// one look at the shape: this runs for every moving body every step).
    #[inline]
    pub fn new(shape: &Shape, pose: &Isometry3) -> Self {
        match *shape {
            Shape::Cuboid { half_extents } => {
                let obb = Obb::from_pose(pose, half_extents);
                Self {
                    aabb: obb.aabb(),
                    sphere: obb.bounding_sphere(),
                    volume: Volume::Obb(obb),
                }
            }
            Shape::Ball { radius } => {
                let sphere = Sphere::new(pose.translation.vector.into(), radius);
                Self {
                    aabb: sphere.aabb(),
                    sphere,
                    volume: Volume::Sphere(sphere),
                }
            }
            Shape::Capsule { .. }
            | Shape::ConvexHull { .. }
            | Shape::Compound { .. }
            | Shape::TriMesh { .. }
            | Shape::HeightField { .. } => {
                let volume = shape.world(pose);
                Self {
                    aabb: volume.aabb(),
                    sphere: volume.bounding_sphere(),
                    volume,
                }
            }
        }
    }
}

/// How many pairs each stage saw and rejected.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StageCounts {
    /// Pairs handed to the filter.
    pub pairs: u64,
    /// Rejected by the bounding spheres.
    pub rejected_by_sphere: u64,
    /// Past the spheres, rejected by the AABBs.
    pub rejected_by_aabb: u64,
    /// Past both, found apart by the exact test.
    pub rejected_by_exact: u64,
    /// Found touching.
    pub touching: u64,
}

/// The staged filter with its counters.
#[derive(Debug, Clone, Default)]
pub struct StagedFilter {
    /// What each stage did since the last reset.
    pub counts: StageCounts,
}

impl StagedFilter {
    /// A filter with zeroed counts.
    pub fn new() -> Self {
        Self::default()
    }

    /// The contact of `a` and `b` (normal from a toward b), trying the cheap stages first.
    pub fn contact(&mut self, a: &Posed, b: &Posed) -> Option<Contact> {
        self.staged(a, b, 0.0, volume_contact)
    }

    /// [`StagedFilter::contact`] with a speculative `margin >= 0` (metres), for a solver: every
    /// stage counts shapes up to `margin` apart as meeting, and the exact test is
    /// [`crate::volume_contact_within`] (gaps as negative depths, box manifolds that prefer
    /// faces).
    pub fn contact_within(&mut self, a: &Posed, b: &Posed, margin: Real) -> Option<Contact> {
        self.staged(a, b, margin, |a, b| volume_contact_within(a, b, margin))
    }

    /// [`StagedFilter::contact_within`] of each pair `(a, b, margin)` of `pairs`: `found`
    /// gets each pair that meets, its index in `pairs` and its contact, in order (a pair with
    /// a surface once per manifold, [`crate::volume_contacts_within`]). The same
    /// contacts, bit for bit, and the same counts as one pair at a time; but the box pairs
    /// that pass the bounding volumes run their separating axis tests eight at a time, in SIMD
    /// lanes (a pyramid's narrow phase is mostly box pairs).
    pub fn contacts_within(
        &mut self,
        pairs: &[(&Posed, &Posed, Real)],
        found: impl FnMut(usize, Contact),
    ) {
        self.windows(pairs, None, found);
    }

    /// [`StagedFilter::contacts_within`] for pairs a world tests step after step: `before[k]`
    /// holds the axes pair `k`'s last test left, ordered by parts, which its polyhedral leaves
    /// (two hulls, or a hull and a box, whole or parts of compounds) try first
    /// ([`crate::volume_contacts_cached`]); the axes this test leaves are appended to `after`
    /// with their pair's index, in order of pair and parts (none for the pairs the bounding
    /// volumes reject).
    pub fn contacts_within_cached(
        &mut self,
        pairs: &[(&Posed, &Posed, Real)],
        before: &[&[PartAxis]],
        after: &mut Vec<(usize, PartAxis)>,
        found: impl FnMut(usize, Contact),
    ) {
        assert_eq!(pairs.len(), before.len(), "one list of axes per pair");
        self.windows(pairs, Some((before, after)), found);
    }

    fn windows(
        &mut self,
        pairs: &[(&Posed, &Posed, Real)],
        mut caches: Option<Caches<'_, '_>>,
        mut found: impl FnMut(usize, Contact),
    ) {
        for (start, window) in (0..).step_by(WINDOW).zip(pairs.chunks(WINDOW)) {
            // The bounding volumes' stages, and the box pairs that pass them.
            let mut passed = [false; WINDOW];
            let mut boxes = ArrayVec::<(&Obb, &Obb, Real), WINDOW>::new();
            let mut box_of = [0u8; WINDOW];
            for (k, &(a, b, margin)) in window.iter().enumerate() {
                passed[k] = self.bounds_meet(a, b, margin);
                if let (true, Volume::Obb(obb_a), Volume::Obb(obb_b)) =
                    (passed[k], &a.volume, &b.volume)
                {
                    box_of[k] = boxes.len() as u8;
                    boxes.push((obb_a, obb_b, margin));
                }
            }
            let mut axes = [FoundAxes::default(); WINDOW];
            obb_obb_axes_within(&boxes, &mut axes[..boxes.len()]);
            for (k, &(a, b, margin)) in window.iter().enumerate() {
                if !passed[k] {
                    continue;
                }
                let contact = match (&a.volume, &b.volume, caches.as_mut()) {
                    (Volume::Obb(obb_a), Volume::Obb(obb_b), _) => {
                        obb_obb_manifold_within(obb_a, obb_b, margin, &axes[box_of[k] as usize])
                    }
                    (a, b, Some((before, after))) if !has_several_manifolds(a, b) => {
                        // (Most cached pairs are these: one pair of leaves, called directly.)
                        let pair = start + k;
                        let mut rest = before[pair];
                        leaf_contact_cached(a, b, margin, [0, 0], &mut rest, |axis| {
                            after.push((pair, axis))
                        })
                    }
                    (a, b, Some((before, after))) => {
                        let mut any = false;
                        let pair = start + k;
                        volume_contacts_cached(
                            a,
                            b,
                            margin,
                            before[pair],
                            &mut |axis| after.push((pair, axis)),
                            &mut |contact| {
                                any = true;
                                found(pair, contact);
                            },
                        );
                        self.count_exact(any);
                        continue;
                    }
                    (a, b, None) if has_several_manifolds(a, b) => {
                        self.exact_manifolds(a, b, margin, |contact| found(start + k, contact));
                        continue;
                    }
                    (a, b, None) => volume_contact_within(a, b, margin),
                };
                self.count_exact(contact.is_some());
                if let Some(contact) = contact {
                    found(start + k, contact);
                }
            }
        }
    }

    /// The first two stages (bounding spheres, then AABBs, each loosened by `margin`), counted:
    /// whether the pair goes on to the exact test.
    #[inline]
    fn bounds_meet(&mut self, a: &Posed, b: &Posed, margin: Real) -> bool {
        self.counts.pairs += 1;
        let reach = a.sphere.radius + b.sphere.radius + margin;
        if (a.sphere.center - b.sphere.center).norm_squared() > reach * reach {
            self.counts.rejected_by_sphere += 1;
            return false;
        }
        let aabbs_meet = if margin > 0.0 {
            a.aabb.loosened(margin).intersects(&b.aabb)
        } else {
            a.aabb.intersects(&b.aabb)
        };
        if !aabbs_meet {
            self.counts.rejected_by_aabb += 1;
        }
        aabbs_meet
    }

    /// Every manifold of `a` and `b` within `margin` ([`crate::volume_contacts_within`]),
    /// trying the cheap stages first, each handed to `found`.
    pub fn contacts_of(&mut self, a: &Posed, b: &Posed, margin: Real, found: impl FnMut(Contact)) {
        if self.bounds_meet(a, b, margin) {
            self.exact_manifolds(&a.volume, &b.volume, margin, found);
        }
    }

    /// The exact stage of [`StagedFilter::contacts_of`], counted once for the pair.
    fn exact_manifolds(
        &mut self,
        a: &Volume,
        b: &Volume,
        margin: Real,
        mut found: impl FnMut(Contact),
    ) {
        let mut any = false;
        volume_contacts_within(a, b, margin, |contact| {
            any = true;
            found(contact);
        });
        self.count_exact(any);
    }

    /// Counts the exact test's answer.
    #[inline]
    fn count_exact(&mut self, touching: bool) {
        if touching {
            self.counts.touching += 1;
        } else {
            self.counts.rejected_by_exact += 1;
        }
    }

    fn staged(
        &mut self,
        a: &Posed,
        b: &Posed,
        margin: Real,
        exact: impl Fn(&Volume, &Volume) -> Option<Contact>,
    ) -> Option<Contact> {
        if !self.bounds_meet(a, b, margin) {
            return None;
        }
        let contact = exact(&a.volume, &b.volume);
        self.count_exact(contact.is_some());
        contact
    }
}
