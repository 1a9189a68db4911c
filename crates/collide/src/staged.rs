//! Seed 004's staged filter: bounding spheres first, then AABBs, then the exact test, each stage
//! cheaper than the next and rejecting what it can. The counts show what each stage saves.

use crate::contact::Contact;
use crate::dispatch::{volume_contact, volume_contact_within};
use geom::{Aabb, Isometry3, Real, Shape, Sphere, Volume};

/// A shape placed in the world, with the bounding volumes the filter's first stages test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Posed {
    /// The exact world-space volume.
    pub volume: Volume,
    /// Its world AABB.
    pub aabb: Aabb,
    /// A sphere holding it.
    pub sphere: Sphere,
}

impl Posed {
    /// `shape` placed at `pose`, with its bounding volumes.
    #[inline]
    pub fn new(shape: &Shape, pose: &Isometry3) -> Self {
        let volume = shape.world(pose);
        Self {
            aabb: volume.aabb(),
            sphere: volume.bounding_sphere(),
            volume,
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

    fn staged(
        &mut self,
        a: &Posed,
        b: &Posed,
        margin: Real,
        exact: impl Fn(&Volume, &Volume) -> Option<Contact>,
    ) -> Option<Contact> {
        self.counts.pairs += 1;
        let reach = a.sphere.radius + b.sphere.radius + margin;
        if (a.sphere.center - b.sphere.center).norm_squared() > reach * reach {
            self.counts.rejected_by_sphere += 1;
            return None;
        }
        let aabbs_meet = if margin > 0.0 {
            a.aabb.loosened(margin).intersects(&b.aabb)
        } else {
            a.aabb.intersects(&b.aabb)
        };
        if !aabbs_meet {
            self.counts.rejected_by_aabb += 1;
            return None;
        }
        let contact = exact(&a.volume, &b.volume);
        match contact {
            Some(_) => self.counts.touching += 1,
            None => self.counts.rejected_by_exact += 1,
        }
        contact
    }
}
