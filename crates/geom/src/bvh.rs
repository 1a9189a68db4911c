//! A bounding volume hierarchy over boxes, built once and never rebalanced: what the broad
//! phase's resting set (`collide::broad::RestingTree`) and a triangle mesh
//! ([`crate::TriMesh`]) keep their boxes in.
//!
//! Built top down: the items split at the median of their centres along the longest axis of
//! those centres, ties broken by id, up to [`Bvh::LEAF`] items a leaf. The build depends only
//! on the items given (never on an order of insertion beyond ties of equal ids), and a walk
//! visits exactly the items whose boxes the caller's test accepts.

use crate::{Aabb, Real};

/// Nodes a walk keeps to visit at most: a hierarchy of median splits over fewer than 2^32
/// items is at most 32 levels deep, and a walk keeps at most one node per level waiting.
const STACK: usize = 64;

/// One box in a hierarchy, with the caller's id for it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BvhItem {
    /// The box (finite, corners in order).
    pub aabb: Aabb,
    /// The caller's id; [`Bvh::DEAD`] marks an item no walk reports.
    pub id: u32,
}

/// A node: a leaf holds `items[start..start + count]`; an inner node (`count == 0`) has its
/// children at `start` and `start + 1`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Node {
    aabb: Aabb,
    start: u32,
    count: u32,
}

/// The hierarchy and its items, in leaf order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bvh {
    nodes: Vec<Node>,
    items: Vec<BvhItem>,
}

impl Bvh {
    /// Items per leaf at most.
    pub const LEAF: usize = 4;
    /// The id of an item taken out ([`Bvh::kill`]): walks skip it.
    pub const DEAD: u32 = u32::MAX;

    /// A hierarchy over `items`, whose boxes must be finite with corners in order.
    pub fn build(mut items: Vec<BvhItem>) -> Self {
        let mut nodes = Vec::with_capacity(2 * items.len().div_ceil(Self::LEAF));
        if !items.is_empty() {
            nodes.push(Node {
                aabb: items[0].aabb,
                start: 0,
                count: 0,
            });
        }
        let mut stack = vec![(0usize, 0usize, items.len())];
        while let Some((node, start, end)) = stack.pop() {
            let slice = &mut items[start..end];
            if slice.is_empty() {
                continue;
            }
            let aabb = slice
                .iter()
                .skip(1)
                .fold(slice[0].aabb, |b, item| b.merged(&item.aabb));
            if slice.len() <= Self::LEAF {
                nodes[node] = Node {
                    aabb,
                    start: start as u32,
                    count: slice.len() as u32,
                };
                continue;
            }
            let centre = |item: &BvhItem, axis: usize| item.aabb.mins[axis] + item.aabb.maxs[axis];
            let (mut low, mut high) = ([Real::INFINITY; 3], [Real::NEG_INFINITY; 3]);
            for item in slice.iter() {
                for axis in 0..3 {
                    low[axis] = low[axis].min(centre(item, axis));
                    high[axis] = high[axis].max(centre(item, axis));
                }
            }
            let spread = |axis: usize| high[axis] - low[axis];
            let axis = (0..3)
                .reduce(|a, b| if spread(b) > spread(a) { b } else { a })
                .unwrap_or(0);
            let mid = slice.len() / 2;
            slice.select_nth_unstable_by(mid, |a, b| {
                centre(a, axis)
                    .total_cmp(&centre(b, axis))
                    .then(a.id.cmp(&b.id))
            });
            let left = nodes.len();
            nodes.push(nodes[node]);
            nodes.push(nodes[node]);
            nodes[node] = Node {
                aabb,
                start: left as u32,
                count: 0,
            };
            stack.push((left, start, start + mid));
            stack.push((left + 1, start + mid, end));
        }
        Self { nodes, items }
    }

    /// The items, in leaf order (the dead ones too).
    #[inline]
    pub fn items(&self) -> &[BvhItem] {
        &self.items
    }

    /// The box around every item, or `None` when there are none.
    #[inline]
    pub fn bounds(&self) -> Option<Aabb> {
        self.nodes.first().map(|root| root.aabb)
    }

    /// Marks the item at `index` (of [`Bvh::items`]) dead, and returns its id. Its box stays
    /// in its nodes' boxes until the hierarchy is built again.
    pub fn kill(&mut self, index: usize) -> u32 {
        std::mem::replace(&mut self.items[index].id, Self::DEAD)
    }

    /// Calls `each` with the id of every live item whose box `meets` accepts, visiting only
    /// the nodes whose boxes it accepts (a node's children are tested before they are kept to
    /// visit). `meets` must accept a node's box whenever it accepts a box inside it.
    #[inline]
    pub fn walk(&self, meets: impl Fn(&Aabb) -> bool, mut each: impl FnMut(u32)) {
        let Some(root) = self.nodes.first() else {
            return;
        };
        if !meets(&root.aabb) {
            return;
        }
        let mut stack = [0u32; STACK];
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let node = &self.nodes[stack[top] as usize];
            let start = node.start as usize;
            if node.count == 0 {
                for child in [node.start, node.start + 1] {
                    if meets(&self.nodes[child as usize].aabb) {
                        stack[top] = child;
                        top += 1;
                    }
                }
            } else {
                for item in &self.items[start..start + node.count as usize] {
                    if item.id != Self::DEAD && meets(&item.aabb) {
                        each(item.id);
                    }
                }
            }
        }
    }
}
