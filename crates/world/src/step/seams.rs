//! Seams between flush static boxes: a face of a static box that another static box of the
//! same orientation covers exactly (their two faces coplanar, opposite and the same rectangle)
//! is *internal*: no body can touch it, since the other box fills the space beyond it. A body
//! sliding across the seam of a floor of flush tiles would otherwise meet the next tile's
//! internal face (or the edge where it meets the top) a fraction of a millimetre above its
//! support, and bump as if it hit a step: the ghost collision users of every engine report.
//!
//! Each static box's internal faces are kept as six bits ([`Seams`], which `step::active`
//! tells of every body that may have changed). A contact against a static box whose normal points out through one
//! of its internal faces (the outward normal's component along the face's normal above
//! [`SEAM_TOLERANCE`]) is dropped, as Box3D drops a mesh triangle's contact on an internal
//! edge: the neighbour, which the body also meets, supports it there, and no normal is
//! invented. A contact on the face itself (the floor's top) is kept.

use super::active::slot_of;
use crate::body::{BodyHandle, BodyKind, RigidBody};
use collide::Contact;
use collide::broad::RestingTree;
use geom::{Aabb, Isometry3, Real, Shape};
use slotmap::{Key, SlotMap};

/// How far a contact's normal may lean out through an internal face (the cosine's complement
/// of about 0.06 degrees) and still be kept.
pub(crate) const SEAM_TOLERANCE: Real = 1e-3;

/// The half extents and world pose of `body`'s box, if it is a static box.
fn static_box(body: &RigidBody) -> Option<(geom::Vector3, Isometry3)> {
    match (body.kind, &body.collider.shape) {
        (BodyKind::Static, Shape::Cuboid { half_extents }) => {
            Some((*half_extents, body.collider.world_pose(&body.pose)))
        }
        _ => None,
    }
}

/// The face of static box `b` that static box `n` covers, if one: `2k` for `+axis k` of `b`'s
/// frame, `2k + 1` for `-axis k`. The two must have the same rotation (bit for bit), their
/// centres be apart along the axis by the sum of their half extents and not across it, and
/// their other half extents agree, each within a millionth of the boxes' size.
pub(crate) fn covered_face(b: &RigidBody, n: &RigidBody) -> Option<usize> {
    let (hb, pb) = static_box(b)?;
    let (hn, pn) = static_box(n)?;
    if pb.rotation.coords != pn.rotation.coords {
        return None;
    }
    let d = pb
        .rotation
        .inverse_transform_vector(&(pn.translation.vector - pb.translation.vector));
    let tolerance = 1e-6 * (hb.norm() + hn.norm() + d.norm());
    for k in 0..3 {
        let across = (0..3).filter(|&m| m != k);
        let aligned = across
            .clone()
            .all(|m| d[m].abs() <= tolerance && (hb[m] - hn[m]).abs() <= tolerance);
        if !aligned {
            continue;
        }
        let gap = hb[k] + hn[k];
        if (d[k] - gap).abs() <= tolerance {
            return Some(2 * k);
        }
        if (d[k] + gap).abs() <= tolerance {
            return Some(2 * k + 1);
        }
    }
    None
}

/// Whether `contact`, between a static box at `pose` with internal faces `covered` (six bits)
/// and another body, points out through an internal face; `static_first` says whether the box
/// is the contact's first body (its normal then points out of the box).
pub(crate) fn through_seam(
    contact: &Contact,
    pose: &Isometry3,
    covered: u8,
    static_first: bool,
) -> bool {
    let outward = if static_first {
        contact.normal
    } else {
        -contact.normal
    };
    let local = pose.rotation.inverse_transform_vector(&outward);
    (0..6).any(|face| {
        let k = face / 2;
        let sign = if face % 2 == 0 { 1.0 } else { -1.0 };
        covered & (1 << face) != 0 && sign * local[k] > SEAM_TOLERANCE
    })
}

/// Every static box's internal faces, kept as static boxes come and go. Static boxes are kept
/// in a tree of their own (live or resting: a floor inserted in the same step as the body that
/// slides on it has its seams already), so that a box's neighbours are found by a query.
/// Derived from the bodies, never saved: made again from every body after a restore.
#[derive(Debug, Clone, Default)]
pub(crate) struct Seams {
    tree: RestingTree,
    /// Per slot of a static box: its handle, its world AABB, its internal faces (six bits).
    handles: Vec<BodyHandle>,
    boxes: Vec<Option<Aabb>>,
    covered: Vec<u8>,
}

impl Seams {
    /// The internal faces of the static box in `slot` (0 for any other body).
    pub(crate) fn covered(&self, slot: u32) -> u8 {
        self.covered.get(slot as usize).copied().unwrap_or(0)
    }

    /// Made again from every body.
    pub(crate) fn rebuild(&mut self, bodies: &SlotMap<BodyHandle, RigidBody>) {
        self.tree.clear();
        self.boxes.clear();
        self.covered.clear();
        for (handle, body) in bodies {
            self.place(handle, body);
        }
        self.tree.settle();
        for slot in 0..self.boxes.len() {
            if let Some(aabb) = self.boxes[slot] {
                let body = &bodies[self.handles[slot]];
                self.covered[slot] = self.faces_of(slot as u32, &aabb, body, bodies);
            }
        }
    }

    /// `handle` may have changed (inserted, removed, moved): its box and its neighbours'
    /// internal faces follow.
    pub(crate) fn update(&mut self, handle: BodyHandle, bodies: &SlotMap<BodyHandle, RigidBody>) {
        let slot = slot_of(handle);
        // Out with the box the slot held, if any: its neighbours' faces are found again.
        if let Some(aabb) = self.boxes.get_mut(slot as usize).and_then(Option::take) {
            self.tree.remove(slot);
            self.covered[slot as usize] = 0;
            let mut neighbours = Vec::new();
            self.for_each_neighbour(slot, &aabb, bodies, |other, _| neighbours.push(other));
            for other in neighbours {
                let (handle, aabb) = (self.handles[other as usize], self.boxes[other as usize]);
                if let (Some(body), Some(aabb)) = (bodies.get(handle), aabb) {
                    self.covered[other as usize] = self.faces_of(other, &aabb, body, bodies);
                }
            }
        }
        // In with the body as it is, covering its neighbours' faces and covered by them.
        let Some(body) = bodies.get(handle) else {
            return;
        };
        let Some(aabb) = self.place(handle, body) else {
            return;
        };
        let mut own = 0;
        let mut theirs = Vec::new();
        self.for_each_neighbour(slot, &aabb, bodies, |other, neighbour| {
            if let Some(face) = covered_face(body, neighbour) {
                own |= 1 << face;
            }
            if let Some(face) = covered_face(neighbour, body) {
                theirs.push((other, face));
            }
        });
        self.covered[slot as usize] = own;
        for (other, face) in theirs {
            self.covered[other as usize] |= 1 << face;
        }
    }

    /// Brings the tree's short list into its hierarchies (after a batch of updates).
    pub(crate) fn settle(&mut self) {
        self.tree.settle();
    }

    /// Puts `body` in the tree if it is a static box; its AABB.
    fn place(&mut self, handle: BodyHandle, body: &RigidBody) -> Option<Aabb> {
        static_box(body)?;
        let slot = slot_of(handle) as usize;
        if self.boxes.len() <= slot {
            self.boxes.resize(slot + 1, None);
            self.covered.resize(slot + 1, 0);
            self.handles.resize(slot + 1, BodyHandle::null());
        }
        let aabb = body.world_aabb();
        self.boxes[slot] = Some(aabb);
        self.covered[slot] = 0;
        self.handles[slot] = handle;
        self.tree.insert(slot as u32, aabb);
        Some(aabb)
    }

    /// The faces of the static box `body` (in `slot`, AABB `aabb`) that other static boxes
    /// cover.
    fn faces_of(
        &self,
        slot: u32,
        aabb: &Aabb,
        body: &RigidBody,
        bodies: &SlotMap<BodyHandle, RigidBody>,
    ) -> u8 {
        let mut covered = 0;
        self.for_each_neighbour(slot, aabb, bodies, |_, neighbour| {
            if let Some(face) = covered_face(body, neighbour) {
                covered |= 1 << face;
            }
        });
        covered
    }

    /// Calls `each` with the slot and body of every static box but `slot` whose AABB meets
    /// `aabb` grown by a millimetre (a flush neighbour's does).
    fn for_each_neighbour(
        &self,
        slot: u32,
        aabb: &Aabb,
        bodies: &SlotMap<BodyHandle, RigidBody>,
        mut each: impl FnMut(u32, &RigidBody),
    ) {
        self.tree.query(&aabb.loosened(1e-3), |other| {
            if other != slot
                && let Some(body) = bodies.get(self.handles[other as usize])
            {
                each(other, body);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::BodyDesc;
    use crate::config::WorldConfig;
    use crate::world::World;
    use geom::{UnitQuaternion, Vector3};

    fn tile(world: &mut World, x: Real, half: Vector3) -> BodyHandle {
        world
            .insert(
                BodyDesc::fixed()
                    .cuboid(half)
                    .position(Vector3::new(x, 0.0, 0.0)),
            )
            .expect("a tile")
    }

    #[test]
    fn a_face_is_covered_only_by_a_flush_box_of_the_same_rectangle_and_turn() {
        let mut world = World::new(WorldConfig::default());
        let half = Vector3::new(0.5, 0.25, 0.5);
        let a = tile(&mut world, 0.0, half);
        let b = tile(&mut world, 1.0, half);
        let apart = tile(&mut world, 2.001, half);
        let taller = tile(&mut world, -1.0, Vector3::new(0.5, 0.3, 0.5));
        let body = |h| &world.bodies[h];
        assert_eq!(covered_face(body(a), body(b)), Some(0));
        assert_eq!(covered_face(body(b), body(a)), Some(1));
        assert_eq!(
            covered_face(body(b), body(apart)),
            None,
            "a millimetre apart"
        );
        assert_eq!(covered_face(body(a), body(taller)), None, "a taller box");
        let mut turned = world.bodies[b].clone();
        turned.pose.rotation = UnitQuaternion::from_euler_angles(0.0, 0.1, 0.0);
        assert_eq!(covered_face(body(a), &turned), None, "a turned box");
    }

    #[test]
    fn seams_follow_tiles_inserted_removed_and_moved() {
        let mut world = World::new(WorldConfig::default());
        let half = Vector3::new(0.5, 0.25, 0.5);
        let tiles: Vec<BodyHandle> = (0..3).map(|k| tile(&mut world, k as Real, half)).collect();
        let covered = |world: &World| -> Vec<u8> {
            tiles
                .iter()
                .map(|&h| world.active.covered(slot_of(h)))
                .collect()
        };
        world.step();
        assert_eq!(covered(&world), [0b01, 0b11, 0b10]);
        let middle = world.remove(tiles[1]).expect("the middle tile");
        world.step();
        assert_eq!(covered(&world)[0], 0);
        assert_eq!(covered(&world)[2], 0);
        // Back in another slot's place: the outer tiles are covered again.
        let back = world.insert(
            BodyDesc::fixed()
                .cuboid(half)
                .position(middle.pose.translation.vector),
        );
        let back = back.expect("the middle tile again");
        world.step();
        assert_eq!(covered(&world)[0], 0b01);
        assert_eq!(world.active.covered(slot_of(back)), 0b11);
        // Moved a millimetre up: no seam any more.
        let moved = world.body_mut(back).expect("the tile");
        moved
            .set_pose(Isometry3::translation(1.0, 0.001, 0.0))
            .expect("a pose");
        world.step();
        assert_eq!(covered(&world)[0], 0);
        assert_eq!(world.active.covered(slot_of(back)), 0);
    }
}
