//! A linear bounding volume hierarchy, rebuilt at every query.
//!
//! Algorithm (after C. Lauterbach et al., "Fast BVH Construction on GPUs", 2009, the LBVH; and
//! Ericson, Real-Time Collision Detection, 7.3.5 on Morton order):
//! 1. Each box's centre gets a 30-bit Morton code within the bounds of all centres, and the boxes
//!    are sorted by (code, id). Between steps bodies move a little, so the previous order is
//!    nearly right and an insertion sort restores it in about linear time (falling back to a
//!    full sort when it is far off).
//! 2. Over that order, a complete binary tree is built bottom up: level 0 holds the boxes, each
//!    node of level `l + 1` the union of two nodes of level `l`. Morton order keeps neighbours in
//!    space close in the order, so the nodes stay tight.
//! 3. The tree is traversed against itself: the pairs within a node are those within each child
//!    plus those across the two children, and two nodes whose boxes do not meet hold no pair.
//!    Each pair is found once; the cost is about linear in the boxes plus the pairs when the
//!    nodes are tight.

use super::{BroadPhase, Proxies, ProxyId, forward_bookkeeping, ordered};
use geom::{Aabb, Point3, Vector3};

/// A step of the tree's self-traversal.
#[derive(Debug, Clone, Copy)]
enum Visit {
    /// Every pair of leaves under one node.
    Within { level: u32, node: u32 },
    /// Every pair with one leaf under each of two nodes of the same level.
    Across { level: u32, a: u32, b: u32 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Leaf {
    code: u32,
    id: u32,
    stamp: u32,
}

/// The default broad phase; see the module documentation.
#[derive(Debug, Clone, Default)]
pub struct LinearBvh {
    proxies: Proxies,
    /// Live proxies in (Morton code, id) order as of the last query.
    order: Vec<Leaf>,
    /// `levels[0]` are the boxes in `order`; `levels[l + 1][j]` merges `levels[l][2j]` and
    /// `levels[l][2j + 1]`.
    levels: Vec<Vec<Aabb>>,
    stack: Vec<Visit>,
}

impl LinearBvh {
    /// An empty broad phase.
    pub fn new() -> Self {
        Self::default()
    }

    /// Brings `order` up to date with the live proxies and their current Morton codes.
    fn sort(&mut self) {
        self.proxies.sync(
            &mut self.order,
            |l| (l.id, l.stamp),
            |id, stamp, _| Leaf { code: 0, id, stamp },
        );
        if self.order.is_empty() {
            return;
        }

        let boxes = &self.proxies.boxes;
        let center = |l: &Leaf| boxes[l.id as usize].map_or(Point3::origin(), |b| b.center());
        let (mut lo, mut hi) = (center(&self.order[0]), center(&self.order[0]));
        for leaf in &self.order {
            let c = center(leaf);
            lo = lo.inf(&c);
            hi = hi.sup(&c);
        }
        let extent = hi - lo;
        let scale = Vector3::from_fn(|k, _| {
            if extent[k] > 0.0 {
                1023.0 / extent[k]
            } else {
                0.0
            }
        });
        for leaf in &mut self.order {
            let q = (center(leaf) - lo).component_mul(&scale);
            leaf.code = morton3(q.x as u32, q.y as u32, q.z as u32);
        }

        // Insertion sort while it stays cheap; a full sort when the order is far off.
        let budget = 8 * self.order.len() + 64;
        let mut moves = 0usize;
        for i in 1..self.order.len() {
            let mut j = i;
            while j > 0 && self.order[j] < self.order[j - 1] {
                self.order.swap(j, j - 1);
                j -= 1;
                moves += 1;
            }
            if moves > budget {
                self.order.sort_unstable();
                break;
            }
        }
    }

    fn build(&mut self) {
        let n = self.order.len();
        if self.levels.is_empty() {
            self.levels.push(Vec::new());
        }
        let leaves = &mut self.levels[0];
        leaves.clear();
        leaves.extend(self.order.iter().map(|l| {
            self.proxies.boxes[l.id as usize]
                .unwrap_or(Aabb::new(Point3::origin(), Point3::origin()))
        }));
        let mut level = 0;
        let mut width = n;
        while width > 1 {
            let next_width = width.div_ceil(2);
            if self.levels.len() <= level + 1 {
                self.levels.push(Vec::new());
            }
            let (below, above) = self.levels.split_at_mut(level + 1);
            let (children, parents) = (&below[level], &mut above[0]);
            parents.clear();
            parents.extend(children.chunks(2).map(|pair| match pair {
                [a, b] => a.merged(b),
                [a] => *a,
                _ => unreachable!("chunks of 2"),
            }));
            level += 1;
            width = next_width;
        }
        self.levels.truncate(level + 1);
    }
}

/// Spreads the low 10 bits of `v` to every third bit.
fn spread_bits(v: u32) -> u32 {
    let mut x = v.min(1023);
    x = (x | (x << 16)) & 0x0300_00FF;
    x = (x | (x << 8)) & 0x0300_F00F;
    x = (x | (x << 4)) & 0x030C_30C3;
    x = (x | (x << 2)) & 0x0924_9249;
    x
}

/// The 30-bit Morton code of a cell with 10-bit coordinates (Ericson 7.3.5).
fn morton3(x: u32, y: u32, z: u32) -> u32 {
    spread_bits(x) | spread_bits(y) << 1 | spread_bits(z) << 2
}

impl BroadPhase for LinearBvh {
    forward_bookkeeping!();

    fn overlapping_pairs(&mut self, pairs: &mut Vec<(ProxyId, ProxyId)>) {
        pairs.clear();
        self.sort();
        self.build();
        let n = self.order.len();
        if n < 2 {
            return;
        }
        let top = (self.levels.len() - 1) as u32;
        let (levels, order) = (&self.levels, &self.order);
        let stack = &mut self.stack;
        stack.clear();
        stack.push(Visit::Within {
            level: top,
            node: 0,
        });
        while let Some(visit) = stack.pop() {
            match visit {
                // All pairs inside one node: those inside each child, then those across them.
                Visit::Within { level, node } => {
                    if level == 0 {
                        continue;
                    }
                    let (left, right) = (2 * node, 2 * node + 1);
                    stack.push(Visit::Within {
                        level: level - 1,
                        node: left,
                    });
                    if (right as usize) < levels[level as usize - 1].len() {
                        stack.push(Visit::Within {
                            level: level - 1,
                            node: right,
                        });
                        stack.push(Visit::Across {
                            level: level - 1,
                            a: left,
                            b: right,
                        });
                    }
                }
                // All pairs with one leaf under `a` and one under `b` (same level).
                Visit::Across { level, a, b } => {
                    let nodes = &levels[level as usize];
                    if !nodes[a as usize].intersects(&nodes[b as usize]) {
                        continue;
                    }
                    if level == 0 {
                        pairs.push(ordered(order[a as usize].id, order[b as usize].id));
                        continue;
                    }
                    let width = levels[level as usize - 1].len() as u32;
                    for ca in [2 * a, 2 * a + 1] {
                        for cb in [2 * b, 2 * b + 1] {
                            if ca < width && cb < width {
                                stack.push(Visit::Across {
                                    level: level - 1,
                                    a: ca,
                                    b: cb,
                                });
                            }
                        }
                    }
                }
            }
        }
        pairs.sort_unstable();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn morton_interleaves() {
        assert_eq!(morton3(1, 0, 0), 1);
        assert_eq!(morton3(0, 1, 0), 2);
        assert_eq!(morton3(0, 0, 1), 4);
        assert_eq!(morton3(1023, 1023, 1023), (1 << 30) - 1);
    }

    #[test]
    fn pairs_once_sorted() {
        let cube =
            |x: f32| Aabb::from_center_half_extents(Point3::new(x, 0.0, 0.0), Vector3::repeat(0.5));
        let mut bvh = LinearBvh::new();
        let ids: Vec<ProxyId> = [0.0, 0.9, 5.0, 1.8, 5.5]
            .iter()
            .map(|&x| bvh.insert(cube(x)))
            .collect();
        let mut pairs = Vec::new();
        bvh.overlapping_pairs(&mut pairs);
        assert_eq!(
            pairs,
            vec![(ids[0], ids[1]), (ids[1], ids[3]), (ids[2], ids[4])]
        );
        bvh.remove(ids[1]);
        bvh.overlapping_pairs(&mut pairs);
        assert_eq!(pairs, vec![(ids[2], ids[4])]);
    }
}
