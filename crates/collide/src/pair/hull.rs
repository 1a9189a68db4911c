//! Convex polyhedra (hulls, and boxes and triangles seen as hulls) against each other, a
//! ball and a capsule. World space; the normal points from the first shape toward the second.
//!
//! Two polyhedra: the separating axis test over each one's face normals and the crosses of
//! their edges, the edge pairs pruned on the Gauss map to those that make a face of the
//! Minkowski difference (D. Gregorius, "The Separating Axis Test between Convex Polyhedra",
//! GDC 2013; Box3D's `hull.c`). A face axis: the other's face most against the reference face
//! clipped by the reference face's sides, the points up to the margin above it, at most four
//! kept. An edge axis: the closest points of the two edges. Axes are taken in order (A's
//! faces, B's faces, edges), a later kind winning only by the box pair's bias, so that a hull
//! made from a box's corners gives the box pair's contact.
//!
//! A ball or a capsule: the distance between the centre or the segment and the polyhedron
//! (exact: a segment's closest points lie on one of its ends or on one of the polyhedron's
//! edges), or, where the core is inside, the least-penetrating face (or, for a segment, a
//! cross of it with an edge).

use super::capsule::with_points;
use super::sat_cache::{AxisCache, AxisFeature};
use crate::contact::{Contact, ContactPoint, FeatureId};
use crate::segment::closest_points_on_segments;
use arrayvec::ArrayVec;
use geom::{Aabb, Capsule, ConvexHull, Isometry3, Matrix3, Obb, Point3, Real, Sphere, Vector3};
use std::borrow::Cow;
use std::cell::RefCell;
use std::thread::LocalKey;

/// A challenger axis must beat the best by this fraction of its separation, plus
/// [`BIAS_ABSOLUTE`] times the shapes' size (the box pair's bias).
const BIAS_RELATIVE: Real = 1e-3;
/// See [`BIAS_RELATIVE`].
const BIAS_ABSOLUTE: Real = 1e-5;
/// Edge crosses shorter than this (relative, squared) are parallel edges: skipped.
const PARALLEL_SQ: Real = 1e-6;
/// The queries' bounds on a separation (see [`Poly::kept_edges`]) are loosened by this fraction
/// of the two shapes' sizes, far above their rounding, before an axis is passed over for them.
const SLACK: Real = 1e-3;
/// A face contact whose clipping leaves nothing falls back on the best edge axis if it is
/// within this fraction of the larger shape's size of the face's separation.
const FALLBACK: Real = 1e-3;

/// A polyhedron placed in world space: its topology, its vertices and face planes in world
/// space, a point inside it (the mean of its vertices), the radius of the ball about that
/// point that it holds, and its size.
///
/// A hull in its own frame lends its own arrays ([`Poly::of_hull_local`]); a placed one owns
/// them, in buffers kept per thread. A hull placed by [`Poly::of_hull_vertices`] has its
/// vertices placed and its planes not yet: [`Poly::normal`] and [`Poly::offset`] place one
/// face's at a time (what a test on a cached axis reads), [`Poly::place_planes`] all of them
/// and the centre (what the full test reads), each exactly as the other does it. Until then
/// its centre is the origin, which nothing reads: the full test checks that the planes are
/// placed, and a test on a cached axis reads the first polyhedron's centre alone.
pub(crate) struct Poly<'a> {
    pub(crate) topology: &'a ConvexHull,
    pub(crate) vertices: Cow<'a, [Point3]>,
    /// Every face's normal, once the planes are placed (empty before).
    pub(crate) normals: Cow<'a, [Vector3]>,
    /// Every face's offset, once the planes are placed (empty before).
    pub(crate) offsets: Cow<'a, [Real]>,
    pub(crate) centre: Point3,
    pub(crate) inner: Real,
    pub(crate) size: Real,
    /// The turn the topology's normals are placed by (for the planes not yet placed).
    turn: Matrix3,
}

impl<'a> Poly<'a> {
    /// `hull` placed at `pose`.
    pub(crate) fn of_hull(hull: &'a ConvexHull, pose: &Isometry3) -> Self {
        let mut poly = Self::of_hull_vertices(hull, pose);
        poly.place_planes();
        poly
    }

    /// `hull` placed at `pose`, its planes left to place (see [`Poly`]).
    pub(crate) fn of_hull_vertices(hull: &'a ConvexHull, pose: &Isometry3) -> Self {
        let mut buffers = PolyBuffers::take();
        // A matrix turns a vector in half the operations a quaternion does.
        let (turn, shift) = (pose.rotation.to_rotation_matrix(), pose.translation.vector);
        (buffers.vertices).extend(hull.vertices().iter().map(|v| turn * v + shift));
        let PolyBuffers {
            vertices,
            normals,
            offsets,
        } = buffers;
        Self {
            topology: hull,
            vertices: Cow::Owned(vertices),
            normals: Cow::Owned(normals),
            offsets: Cow::Owned(offsets),
            // (Placed with the planes: only the full test reads it.)
            centre: Point3::origin(),
            inner: hull.inner_ball().1,
            size: 0.5 * hull.local_aabb().extents().max(),
            turn: *turn.matrix(),
        }
    }

    /// Places every face's normal and offset and the centre, if they are not yet (see
    /// [`Poly`]).
    pub(crate) fn place_planes(&mut self) {
        if self.has_planes() {
            return;
        }
        self.centre = mean(&self.vertices);
        let turn = self.turn;
        let mut normals = owned(&mut self.normals);
        normals.clear();
        normals.extend(self.topology.normals().iter().map(|n| turn * n));
        let mut offsets = owned(&mut self.offsets);
        offsets.clear();
        plane_offsets(self.topology, &normals, &self.vertices, &mut offsets);
        self.normals = Cow::Owned(normals);
        self.offsets = Cow::Owned(offsets);
    }

    /// Whether every face's normal and offset is placed.
    pub(crate) fn has_planes(&self) -> bool {
        let faces = self.topology.faces().len();
        self.normals.len() == faces && self.offsets.len() == faces
    }

    /// Face `f`'s outward normal (placed now if the planes are not yet).
    #[inline]
    pub(crate) fn normal(&self, f: usize) -> Vector3 {
        match self.normals.get(f) {
            Some(n) => *n,
            None => self.turn * self.topology.normals()[f],
        }
    }

    /// Face `f`'s offset, `n . v` for its normal and first vertex (placed now if the planes
    /// are not yet).
    #[inline]
    fn offset(&self, f: usize) -> Real {
        match self.offsets.get(f) {
            Some(o) => *o,
            None => {
                let first = self.topology.face_first_vertices()[f];
                (self.normal(f)).dot(&self.vertices[usize::from(first)].coords)
            }
        }
    }

    /// `hull` in its own frame (what [`Poly::of_hull`] gives at the identity, to the bit: the
    /// hull keeps its offsets and centre computed as [`Poly::finish`] computes them), its
    /// arrays lent, not copied.
    pub(crate) fn of_hull_local(hull: &'a ConvexHull) -> Self {
        let (centre, inner) = hull.inner_ball();
        Self {
            topology: hull,
            vertices: Cow::Borrowed(hull.vertices()),
            normals: Cow::Borrowed(hull.normals()),
            offsets: Cow::Borrowed(hull.plane_offsets()),
            centre,
            inner,
            size: 0.5 * hull.local_aabb().extents().max(),
            turn: Matrix3::identity(),
        }
    }

    /// A box of half extents `half` in its own frame (what [`Poly::of_box`] gives for it
    /// unturned at the origin, to the bit).
    pub(crate) fn of_box_local(half: &Vector3) -> Self {
        let cube = ConvexHull::unit_box();
        let mut buffers = PolyBuffers::take();
        (buffers.vertices).extend(
            cube.vertices()
                .iter()
                .map(|v| Point3::from(v.coords.component_mul(half))),
        );
        (buffers.normals).extend(cube.faces().iter().map(|f| f.normal));
        Self::finish(cube, buffers, half.max(), half.min())
    }

    /// A box as a polyhedron.
    pub(crate) fn of_box(obb: &Obb) -> Self {
        let cube = ConvexHull::unit_box();
        let size = obb.half_extents.max();
        let mut buffers = PolyBuffers::take();
        let turn = obb.rotation.to_rotation_matrix();
        buffers.vertices.extend(
            (cube.vertices().iter())
                .map(|v| obb.center + turn * v.coords.component_mul(&obb.half_extents)),
        );
        (buffers.normals).extend(cube.faces().iter().map(|f| turn * f.normal));
        Self::finish(cube, buffers, size, obb.half_extents.min())
    }

    /// A triangle as a flat polyhedron (front face 0 along `normal`, back face 1).
    pub(crate) fn of_triangle(tri: &[Point3; 3], normal: &Vector3) -> Self {
        let size = 0.5 * Aabb::from_points(tri).map_or(0.0, |b| b.extents().max());
        let mut buffers = PolyBuffers::take();
        buffers.vertices.extend_from_slice(tri);
        buffers.normals.extend([*normal, -normal]);
        Self::finish(ConvexHull::unit_triangle(), buffers, size, 0.0)
    }

    /// `buffers` holding the placed vertices and normals. `size`: half the largest extent (a
    /// box's largest half extent), for the bias; `inner`: the radius of the ball about the
    /// mean of the vertices that it holds (or less), for the queries' bounds.
    fn finish(topology: &'a ConvexHull, buffers: PolyBuffers, size: Real, inner: Real) -> Self {
        let PolyBuffers {
            vertices,
            normals,
            mut offsets,
        } = buffers;
        plane_offsets(topology, &normals, &vertices, &mut offsets);
        let centre = mean(&vertices);
        Self {
            topology,
            vertices: Cow::Owned(vertices),
            normals: Cow::Owned(normals),
            offsets: Cow::Owned(offsets),
            centre,
            inner,
            size,
            turn: Matrix3::identity(),
        }
    }

    /// The vertex farthest along `dir` (the first of equals).
    pub(crate) fn support(&self, dir: &Vector3) -> &Point3 {
        &self.vertices[self.support_index(dir)]
    }

    /// The index of [`Poly::support`]'s vertex.
    pub(crate) fn support_index(&self, dir: &Vector3) -> usize {
        let mut best = (0, Real::NEG_INFINITY);
        for (i, v) in self.vertices.iter().enumerate() {
            let d = v.coords.dot(dir);
            if d > best.1 {
                best = (i, d);
            }
        }
        best.0
    }

    /// Each face's reach toward `centre` (`n . centre - offset`, its plane's distance to it),
    /// in place of what `out` held.
    fn reaches(&self, centre: &Point3, out: &mut Vec<Real>) {
        out.clear();
        out.extend(
            (self.normals.iter().zip(self.offsets.iter())).map(|(n, o)| n.dot(&centre.coords) - o),
        );
    }

    /// `p` moved halfway to face `f`'s plane (where a contact point on that face is placed).
    fn halfway(&self, f: usize, p: &Point3) -> Point3 {
        p - self.normal(f) * (0.5 * self.distance(f, p))
    }

    /// The signed distance of `p` to face `f`'s plane.
    pub(crate) fn distance(&self, f: usize, p: &Point3) -> Real {
        self.normal(f).dot(&p.coords) - self.offset(f)
    }

    /// Face `f`'s corners, counter-clockwise from outside, with their half-edges.
    fn face(&self, f: usize) -> impl Iterator<Item = (u16, &Point3)> + '_ {
        let edges = self.topology.half_edges();
        let first = self.topology.faces()[f].edge;
        let mut at = Some(first);
        std::iter::from_fn(move || {
            let e = at?;
            let edge = edges[usize::from(e)];
            at = (edge.next != first).then_some(edge.next);
            Some((e, &self.vertices[usize::from(edge.origin)]))
        })
    }

    /// Half-edge `e`'s two ends.
    pub(crate) fn edge(&self, e: usize) -> (&Point3, &Point3) {
        let edges = self.topology.half_edges();
        let next = edges[usize::from(edges[e].next)].origin;
        (
            &self.vertices[usize::from(edges[e].origin)],
            &self.vertices[usize::from(next)],
        )
    }

    /// One half-edge of each edge (the one below its twin).
    fn unique_edges(&self) -> impl Iterator<Item = usize> + '_ {
        (self.topology.edge_list().iter()).map(|e| usize::from(e.half_edge))
    }

    /// The normals of the two faces at half-edge `e` (its own, its twin's).
    pub(crate) fn edge_normals(&self, e: usize) -> (Vector3, Vector3) {
        let edges = self.topology.half_edges();
        let twin = usize::from(edges[e].twin);
        (
            self.normal(usize::from(edges[e].face)),
            self.normal(usize::from(edges[twin].face)),
        )
    }
}

/// Each face's offset, `n . v` for its normal `n` and its first vertex `v`, appended to `out`
/// (what [`Poly::offset`] computes for one face, and the hull its own).
fn plane_offsets(
    topology: &ConvexHull,
    normals: &[Vector3],
    vertices: &[Point3],
    out: &mut Vec<Real>,
) {
    out.extend(
        (normals.iter().zip(topology.face_first_vertices()))
            .map(|(n, &v)| n.dot(&vertices[usize::from(v)].coords)),
    );
}

/// The mean of `points` (as [`ConvexHull`] computes its centre).
fn mean(points: &[Point3]) -> Point3 {
    Point3::from(points.iter().map(|v| v.coords).sum::<Vector3>() / points.len() as Real)
}

/// A polyhedron's buffers (placed vertices, normals, offsets), kept per thread when it is
/// dropped for the next one made there: a pair test allocates nothing once they have grown.
#[derive(Default)]
pub(crate) struct PolyBuffers {
    vertices: Vec<Point3>,
    normals: Vec<Vector3>,
    offsets: Vec<Real>,
}

/// How many sets of buffers a thread keeps (a pair test holds two or three polyhedra).
const KEPT_BUFFERS: usize = 8;

thread_local! {
    static POLY_BUFFERS: RefCell<Vec<PolyBuffers>> = const { RefCell::new(Vec::new()) };
}

impl PolyBuffers {
    /// A set of empty buffers, this thread's kept ones if it has any.
    fn take() -> Self {
        (POLY_BUFFERS.try_with(|kept| kept.borrow_mut().pop()))
            .ok()
            .flatten()
            .unwrap_or_default()
    }
}

/// The vector a [`Cow`] owns, taken out of it (empty for a borrowed one).
fn owned<T: Clone>(c: &mut Cow<'_, [T]>) -> Vec<T> {
    match std::mem::take(c) {
        Cow::Owned(v) => v,
        Cow::Borrowed(_) => Vec::new(),
    }
}

impl Drop for Poly<'_> {
    fn drop(&mut self) {
        // (A lent hull's arrays are its own: nothing to keep.)
        let mut buffers = PolyBuffers {
            vertices: owned(&mut self.vertices),
            normals: owned(&mut self.normals),
            offsets: owned(&mut self.offsets),
        };
        if buffers.vertices.capacity() == 0 {
            return;
        }
        buffers.vertices.clear();
        buffers.normals.clear();
        buffers.offsets.clear();
        // (A thread being torn down keeps nothing.)
        let _ = POLY_BUFFERS.try_with(|kept| {
            if let Ok(mut kept) = kept.try_borrow_mut()
                && kept.len() < KEPT_BUFFERS
            {
                kept.push(buffers);
            }
        });
    }
}

/// The best face of `a` against `b`: its index and separation.
/// Stops at the first face that separates them by more than `margin` (the pair is apart).
///
/// A face's separation is `n . p - offset` for `b`'s support point `p` along `-n`, that is the
/// least `n . v` over `b`'s vertices less the offset (`v . -n` is `-(n . v)` to the bit, and
/// the least of some numbers is the same whatever the order they are looked at in): found
/// [`LANES`] vertices at a time over `b`'s vertices as columns, the same value as a scan.
#[cfg(test)]
fn face_query(
    a: &Poly<'_>,
    b: &Poly<'_>,
    margin: Real,
    allowed: &impl Fn(&Vector3) -> bool,
) -> (usize, Real) {
    lent(&SAT_SCRATCH, |s| {
        face_query_in(a, b, margin, allowed, &mut s.columns, &mut s.reach_a)
    })
}

/// [`face_query`] with the buffer `columns`, leaving in `reach` every face's `n . c - offset`
/// for `b`'s centre `c`, which [`Poly::kept_edges`] reads.
fn face_query_in(
    a: &Poly<'_>,
    b: &Poly<'_>,
    margin: Real,
    allowed: &impl Fn(&Vector3) -> bool,
    columns: &mut Vec<Real>,
    reach: &mut Vec<Real>,
) -> (usize, Real) {
    let padded = b.vertices.len().next_multiple_of(LANES);
    columns.clear();
    for axis in 0..3 {
        columns.extend(b.vertices.iter().map(|v| v[axis]));
        // Padded with the first vertex, which changes no least value.
        columns.resize((axis + 1) * padded, b.vertices[0][axis]);
    }
    let (xs, rest) = columns.split_at(padded);
    let (ys, zs) = rest.split_at(padded);
    let separation = |f: usize| {
        let n = a.normals[f];
        let mut lanes = [Real::INFINITY; LANES];
        for ((x, y), z) in xs
            .chunks_exact(LANES)
            .zip(ys.chunks_exact(LANES))
            .zip(zs.chunks_exact(LANES))
        {
            for i in 0..LANES {
                let d = n.x * x[i] + n.y * y[i] + n.z * z[i];
                lanes[i] = if d < lanes[i] { d } else { lanes[i] };
            }
        }
        let least = lanes
            .into_iter()
            .fold(Real::INFINITY, |m, d| if d < m { d } else { m });
        least - a.offsets[f]
    };
    // `b` holds the ball of radius `inner` about its centre `c`, so its least `n . v` is at
    // most `n . c - inner`: a face's separation is at most its reach (`n . c - offset`) less
    // `inner`, and a face whose bound is below the best cannot be it.
    a.reaches(&b.centre, reach);
    let slack = SLACK * (a.size + b.size);
    let bound = |f: usize| reach[f] - b.inner + slack;
    // The allowed face of greatest reach is measured first: it is usually the best, and the
    // bound then passes over most of the others.
    let mut first = (usize::MAX, Real::NEG_INFINITY);
    for (f, &r) in reach.iter().enumerate() {
        if r > first.1 && allowed(&a.normals[f]) {
            first = (f, r);
        }
    }
    let first = first.0;
    if first == usize::MAX {
        return (usize::MAX, Real::NEG_INFINITY);
    }
    let s = separation(first);
    if s > margin {
        // Apart: the answer is the first face in order that shows it, as a scan in order
        // stops at (a face whose bound is at most the margin cannot show it).
        for f in 0..first {
            if allowed(&a.normals[f]) && bound(f) > margin {
                let s = separation(f);
                if s > margin {
                    return (f, s);
                }
            }
        }
        return (first, s);
    }
    // Then the others in order: the greatest separation, the first face of it on a tie, or
    // the first face that shows the pair apart (every face before it showed it no more than
    // the margin), as a scan in order finds them.
    let mut best = (first, s);
    for f in 0..a.normals.len() {
        if f == first || !allowed(&a.normals[f]) || bound(f) < best.1 {
            continue;
        }
        let s = separation(f);
        if s > margin {
            return (f, s);
        }
        if s > best.1 || (s == best.1 && f < best.0) {
            best = (f, s);
        }
    }
    best
}

/// How many vertices [`face_query`] takes at once (the SIMD lanes it is written for).
const LANES: usize = 8;

/// The separating axis test's buffers, kept per thread so that a test allocates nothing once
/// they have grown: the face queries' vertex columns and faces' distances to the other's
/// centre (`a`'s, `b`'s), and the edge query's.
#[derive(Default)]
struct SatScratch {
    columns: Vec<Real>,
    reach_a: Vec<Real>,
    reach_b: Vec<Real>,
    edges: EdgeScratch,
}

thread_local! {
    static SAT_SCRATCH: RefCell<SatScratch> = Default::default();
}

/// An edge axis: the two half-edges, its unit normal (from a toward b) and separation.
#[derive(Clone, Copy)]
pub(crate) struct EdgeAxis {
    pub(crate) edge_a: usize,
    pub(crate) edge_b: usize,
    pub(crate) normal: Vector3,
    pub(crate) separation: Real,
}

impl EdgeAxis {
    /// The axis as a cache's feature.
    pub(crate) fn feature(&self) -> AxisFeature {
        AxisFeature::Edges(self.edge_a as u16, self.edge_b as u16)
    }
}

/// An edge for the edge query: its half-edge, a point on it, its direction, and the normals
/// of the faces on either side (its own `u`, its twin's `v`).
#[derive(Clone, Copy)]
struct EdgeData {
    index: usize,
    p: Point3,
    d: Vector3,
    u: Vector3,
    v: Vector3,
}

impl Poly<'_> {
    /// Each edge once, for the edge query, but those whose every axis separates this polyhedron
    /// from `other` by less than `floor`. The separation along an axis `l` whose support on
    /// this one is the edge (`l` on the edge's arc of the Gauss map, outward from this one;
    /// for the other polyhedron's edges, the axis reversed) is `other`'s least `l . x` less
    /// `l . p` for `p` on the edge, and `other` holds the ball of radius `inner` about its
    /// centre `c`: at most `l . (c - p) - inner`. On the arc, with `w = c - p` and `m` the
    /// larger of its two faces' `n . w`, `l . w` is at most `m` when `m` is not positive (a
    /// normalised mean of the two normals is no shorter than a unit vector scaled down) and
    /// at most `m` times the edge's arc secant when it is (the arc's unit vectors are a mean
    /// of the two of weights summing to at most that secant; see
    /// [`ConvexHull::edge_arc_secants`]). A face's `n . w` is the same for every point of the
    /// face: `c`'s distance to its plane, `reach_of_face` (as the face query leaves it; it
    /// differs from `n . (c - p)` by rounding and the face's flatness, far below the
    /// [`SLACK`] in `floor`). The kept edges are pushed onto `kept`, in order.
    fn kept_edges(
        &self,
        other: &Poly<'_>,
        floor: Real,
        reach_of_face: &[Real],
        marks: &mut Vec<u64>,
        kept: &mut Vec<EdgeData>,
    ) {
        let reach = floor + other.inner;
        let topology = self.topology;
        let (edges, secants) = (topology.edge_list(), topology.edge_arc_secants());
        let bound = |most: Real, secant: Real| if most <= 0.0 { most } else { most * secant };
        // (A NaN bound keeps the edge.)
        let keeps = |bound: Real| bound >= reach || bound.is_nan();
        // An edge's bound is the larger of its faces' with its secant, at most the face's own
        // with the widest secant: only the edges of faces that reach the floor by that are
        // looked at, marked in a word per 64 edges so that they come out once and in order.
        marks.clear();
        marks.resize(edges.len().div_ceil(64), 0);
        let widest = topology.widest_edge_arc_secant();
        // The faces that reach, a word of 64 at a time without a branch (few do).
        for (w, chunk) in reach_of_face.chunks(64).enumerate() {
            let mut hot = 0u64;
            for (i, &d) in chunk.iter().enumerate() {
                hot |= u64::from(keeps(bound(d, widest))) << i;
            }
            while hot != 0 {
                let f = w * 64 + hot.trailing_zeros() as usize;
                hot &= hot - 1;
                for &e in topology.face_edges(f) {
                    marks[usize::from(e) / 64] |= 1 << (e % 64);
                }
            }
        }
        for (w, &word) in marks.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let k = w * 64 + word.trailing_zeros() as usize;
                word &= word - 1;
                let e = &edges[k];
                let most =
                    reach_of_face[usize::from(e.face)].max(reach_of_face[usize::from(e.twin_face)]);
                if keeps(bound(most, secants[k])) {
                    kept.push(self.edge_data(e));
                }
            }
        }
    }

    /// Each edge once (its half-edge of lower index, in order).
    fn all_edges(&self) -> impl Iterator<Item = EdgeData> + '_ {
        (self.topology.edge_list().iter()).map(|e| self.edge_data(e))
    }

    /// Edge `e`'s data for the edge query.
    #[inline]
    fn edge_data(&self, e: &geom::HullEdge) -> EdgeData {
        let p = self.vertices[usize::from(e.start)];
        EdgeData {
            index: usize::from(e.half_edge),
            p,
            d: self.vertices[usize::from(e.end)] - p,
            u: self.normals[usize::from(e.face)],
            v: self.normals[usize::from(e.twin_face)],
        }
    }

    /// Whether it is flat (a triangle): its two faces' normals are opposite, so its edges'
    /// arcs on the Gauss map are half circles, which the Minkowski-face test cannot tell apart.
    pub(crate) fn is_flat(&self) -> bool {
        std::ptr::eq(self.topology, ConvexHull::unit_triangle())
    }

    /// The interval of its vertices along `l`.
    fn interval(&self, l: &Vector3) -> (Real, Real) {
        self.vertices
            .iter()
            .map(|v| v.coords.dot(l))
            .fold((Real::INFINITY, Real::NEG_INFINITY), |(lo, hi), x| {
                (lo.min(x), hi.max(x))
            })
    }
}

/// The edge query's buffers, kept per thread so that a query allocates nothing once they have
/// grown: `a`'s edges, `b`'s as columns, which of `b`'s edges cross the one of `a` being
/// tested (a byte each, padded to whole words of eight), and the edges marked to look at.
#[derive(Default)]
struct EdgeScratch {
    edges_a: Vec<EdgeData>,
    edges_b: Vec<EdgeData>,
    columns: EdgeColumns,
    crosses: Vec<u8>,
    /// [`Poly::kept_edges`]' marks: a bit per edge to look at.
    marks: Vec<u64>,
}

/// Runs `f` on this thread's buffer `key`, taken out for the call (so that `f` may not reach
/// it again) and put back after.
fn lent<T: Default, R>(key: &'static LocalKey<RefCell<T>>, f: impl FnOnce(&mut T) -> R) -> R {
    let mut buffer = key.with(|b| std::mem::take(&mut *b.borrow_mut()));
    let result = f(&mut buffer);
    key.with(|b| *b.borrow_mut() = buffer);
    result
}

/// The edges of a polyhedron as columns (each component its own array), so that the edge
/// query's inner loop runs over contiguous numbers the compiler can put in SIMD lanes.
#[derive(Default)]
struct EdgeColumns {
    index: Vec<usize>,
    p: [Vec<Real>; 3],
    d: [Vec<Real>; 3],
    u: [Vec<Real>; 3],
    v: [Vec<Real>; 3],
}

impl EdgeColumns {
    /// The columns of `edges`, in place of what they held, the direction and normal columns
    /// padded with zeros to whole words of eight (a zero edge crosses no arc), so that the arc
    /// test runs in whole SIMD words: one pass writing every column.
    fn fill(&mut self, edges: &[EdgeData]) {
        let padded = edges.len().next_multiple_of(8);
        self.index.clear();
        self.index.extend(edges.iter().map(|e| e.index));
        for column in self.p.iter_mut() {
            column.clear();
            column.resize(edges.len(), 0.0);
        }
        for column in self.d.iter_mut().chain(&mut self.u).chain(&mut self.v) {
            column.clear();
            column.resize(padded, 0.0);
        }
        let [p0, p1, p2] = self.p.each_mut().map(|c| &mut c[..edges.len()]);
        let [d0, d1, d2] = self.d.each_mut().map(|c| &mut c[..edges.len()]);
        let [u0, u1, u2] = self.u.each_mut().map(|c| &mut c[..edges.len()]);
        let [v0, v1, v2] = self.v.each_mut().map(|c| &mut c[..edges.len()]);
        for (k, e) in edges.iter().enumerate() {
            (p0[k], p1[k], p2[k]) = (e.p.x, e.p.y, e.p.z);
            (d0[k], d1[k], d2[k]) = (e.d.x, e.d.y, e.d.z);
            (u0[k], u1[k], u2[k]) = (e.u.x, e.u.y, e.u.z);
            (v0[k], v1[k], v2[k]) = (e.v.x, e.v.y, e.v.z);
        }
    }

    fn point(&self, k: usize) -> Point3 {
        Point3::new(self.p[0][k], self.p[1][k], self.p[2][k])
    }

    fn direction(&self, k: usize) -> Vector3 {
        Vector3::new(self.d[0][k], self.d[1][k], self.d[2][k])
    }
}

/// The best edge axis. Between two solids, only the edge pairs that make a face of the
/// Minkowski difference (Gregorius): their arcs on the Gauss map cross, tested with the edges'
/// directions, which lie along the crosses of their faces' normals (Box3D's form, four dot
/// products, computed for all of `b`'s edges at once), and the separation is then the distance
/// between the two edges' lines along the axis. With a flat polyhedron (a triangle) every
/// pair, the separation measured between the projections.
/// Stops at the first pair that separates them by more than `margin` (the pair is apart).
/// Between solids, the edges whose axes all separate the two by less than `floor` are passed
/// over ([`Poly::kept_edges`]): an answer below the floor may then be missed (`None`, or another
/// pair below it), but every pair at or above it is found as without the floor.
#[cfg(test)]
fn edge_query(
    a: &Poly<'_>,
    b: &Poly<'_>,
    margin: Real,
    floor: Real,
    allowed: &impl Fn(&Vector3) -> bool,
) -> Option<EdgeAxis> {
    lent(&SAT_SCRATCH, |s| {
        a.reaches(&b.centre, &mut s.reach_a);
        b.reaches(&a.centre, &mut s.reach_b);
        edge_query_in(
            a,
            b,
            margin,
            floor,
            allowed,
            (&s.reach_a, &s.reach_b),
            &mut s.edges,
        )
    })
}

/// [`edge_query`] in the buffers `scratch`, with each face's distance to the other's centre
/// (`a`'s, `b`'s; see [`face_query_in`]).
fn edge_query_in(
    a: &Poly<'_>,
    b: &Poly<'_>,
    margin: Real,
    floor: Real,
    allowed: &impl Fn(&Vector3) -> bool,
    (reach_a, reach_b): (&[Real], &[Real]),
    scratch: &mut EdgeScratch,
) -> Option<EdgeAxis> {
    let EdgeScratch {
        edges_a,
        edges_b,
        columns,
        crosses,
        marks,
    } = scratch;
    edges_a.clear();
    edges_b.clear();
    let flat = a.is_flat() || b.is_flat();
    if flat {
        edges_a.extend(a.all_edges());
        edges_b.extend(b.all_edges());
    } else {
        a.kept_edges(b, floor, reach_a, marks, edges_a);
        b.kept_edges(a, floor, reach_b, marks, edges_b);
    }
    columns.fill(edges_b);
    let nb = columns.index.len();
    let padded = nb.next_multiple_of(8);
    crosses.clear();
    crosses.resize(padded, 0);
    let context = EdgeContext {
        a,
        b,
        flat,
        margin,
        columns,
    };
    let mut best: Option<EdgeAxis> = None;
    for ea in edges_a.iter() {
        if flat {
            crosses[..nb].fill(1);
        } else {
            // Every column cut to the padded length (its tail zeros, which cross nothing), so
            // that the loop is free of bounds checks and runs in whole SIMD words.
            let [d0, d1, d2] = columns.d.each_ref().map(|c| &c[..padded]);
            let [u0, u1, u2] = columns.u.each_ref().map(|c| &c[..padded]);
            let [v0, v1, v2] = columns.v.each_ref().map(|c| &c[..padded]);
            let out = &mut crosses[..padded];
            for k in 0..padded {
                let cba = u0[k] * ea.d.x + u1[k] * ea.d.y + u2[k] * ea.d.z;
                let dba = v0[k] * ea.d.x + v1[k] * ea.d.y + v2[k] * ea.d.z;
                let adc = ea.u.x * d0[k] + ea.u.y * d1[k] + ea.u.z * d2[k];
                let bdc = ea.v.x * d0[k] + ea.v.y * d1[k] + ea.v.z * d2[k];
                out[k] = u8::from(arcs_cross(cba, dba, adc, bdc));
            }
        }
        // The crossing edges of `b`, in order: eight flags a word, skipping the words with
        // none (most: few pairs of edges make a face of the Minkowski difference).
        for (word_index, word) in crosses.chunks_exact(8).enumerate() {
            let mut word = u64::from_le_bytes(word.try_into().expect("eight flags"));
            while word != 0 {
                let byte = word.trailing_zeros() / 8;
                word &= !(0xff << (byte * 8));
                let k = word_index * 8 + byte as usize;
                if context.try_pair(ea, k, allowed, &mut best) {
                    return best;
                }
            }
        }
    }
    best
}

/// Whether the arcs of two edges cross on the Gauss map (Box3D's form): `cba` and `dba` are
/// the second edge's face normals dotted with the first edge's direction, `adc` and `bdc` the
/// first's normals with the second's direction. Branch free, for the edge query's lanes.
#[inline]
pub(crate) fn arcs_cross(cba: Real, dba: Real, adc: Real, bdc: Real) -> bool {
    (cba * dba < 0.0) & (adc * bdc < 0.0) & (cba * bdc < 0.0)
}

/// The axis of two solids' edges: `a`'s half-edge `ea` from `pa` along `da` and `b`'s `eb`
/// from `pb` along `db`. Their cross, unit, pointing out of `a` (away from its centre), and
/// the distance between the edges' lines along it; `None` for parallel edges.
pub(crate) fn edge_axis(
    a: &Poly<'_>,
    (ea, pa, da): (usize, &Point3, &Vector3),
    (eb, pb, db): (usize, &Point3, &Vector3),
) -> Option<EdgeAxis> {
    let l = da.cross(db);
    let length_sq = l.norm_squared();
    if length_sq <= PARALLEL_SQ * da.norm_squared() * db.norm_squared() {
        return None;
    }
    let mut l = l / length_sq.sqrt();
    if l.dot(&(pa - a.centre)) < 0.0 {
        l = -l;
    }
    Some(EdgeAxis {
        edge_a: ea,
        edge_b: eb,
        normal: l,
        separation: l.dot(&(pb - pa)),
    })
}

/// What the edge query's pairs are measured against.
struct EdgeContext<'a, 'p> {
    a: &'a Poly<'p>,
    b: &'a Poly<'p>,
    flat: bool,
    margin: Real,
    columns: &'a EdgeColumns,
}

impl EdgeContext<'_, '_> {
    /// The axis of `a`'s edge `ea` and `b`'s `k`-th, kept in `best` when it is allowed and
    /// separates more; true when it separates them by more than the margin (the pair is
    /// apart).
    #[inline]
    fn try_pair(
        &self,
        ea: &EdgeData,
        k: usize,
        allowed: &impl Fn(&Vector3) -> bool,
        best: &mut Option<EdgeAxis>,
    ) -> bool {
        let (a, b) = (self.a, self.b);
        let db = self.columns.direction(k);
        let (l, separation) = if self.flat {
            let l = ea.d.cross(&db);
            let length_sq = l.norm_squared();
            if length_sq <= PARALLEL_SQ * ea.d.norm_squared() * db.norm_squared() {
                return false;
            }
            let mut l = l / length_sq.sqrt();
            if l.dot(&(b.centre - a.centre)) < 0.0 {
                l = -l;
            }
            let ((_, a_hi), (b_lo, _)) = (a.interval(&l), b.interval(&l));
            (l, b_lo - a_hi)
        } else {
            let pb = self.columns.point(k);
            let index_b = self.columns.index[k];
            match edge_axis(a, (ea.index, &ea.p, &ea.d), (index_b, &pb, &db)) {
                Some(axis) => (axis.normal, axis.separation),
                None => return false,
            }
        };
        if !allowed(&l) {
            return false;
        }
        if best.is_none_or(|e| separation > e.separation) {
            *best = Some(EdgeAxis {
                edge_a: ea.index,
                edge_b: self.columns.index[k],
                normal: l,
                separation,
            });
            return separation > self.margin;
        }
        false
    }
}

/// A vertex of a polygon being clipped and the labels of the two sides that made it.
#[derive(Clone, Copy)]
struct Clipped {
    p: Point3,
    labels: (u16, u16),
}

/// `polygon` clipped to `(x - origin) . inward >= 0`, into `out`; new vertices get `label`.
fn clip(
    polygon: &[Clipped],
    origin: &Point3,
    inward: &Vector3,
    label: u16,
    out: &mut Vec<Clipped>,
) {
    out.clear();
    for (i, current) in polygon.iter().enumerate() {
        let next = &polygon[(i + 1) % polygon.len()];
        let (f, g) = (
            (current.p - origin).dot(inward),
            (next.p - origin).dot(inward),
        );
        if f >= 0.0 {
            out.push(*current);
        }
        if (f >= 0.0) != (g >= 0.0) {
            let s = f / (f - g);
            out.push(Clipped {
                p: current.p + (next.p - current.p) * s,
                labels: if f >= 0.0 {
                    (current.labels.1, label)
                } else {
                    (label, current.labels.1)
                },
            });
        }
    }
}

/// The face contact's buffers, kept per thread: the polygon being clipped (two, in turn), the
/// reference face's sides and the points kept before the four are chosen.
#[derive(Default)]
struct ClipScratch {
    polygon: Vec<Clipped>,
    clipped: Vec<Clipped>,
    sides: Vec<(u16, Point3)>,
    kept: Vec<ContactPoint>,
}

/// A face contact's points: at most four of those the clipping kept (none when it kept none),
/// the least separation of all it kept, and the contact's normal they were chosen about.
pub(crate) struct FacePoints {
    pub(crate) four: ArrayVec<ContactPoint, 4>,
    pub(crate) least_separation: Real,
    pub(crate) normal: Vector3,
}

thread_local! {
    static CLIP_SCRATCH: RefCell<ClipScratch> = Default::default();
}

/// The face contact of reference face `f` of `reference` against `incident`: the incident
/// face (the one most against `f`) clipped by `f`'s sides, the points up to `margin` above
/// it, reduced to four about `normal` (`f`'s, or its opposite: the contact's). (In buffers
/// kept per thread: a list handed back was a heap allocation per contact.)
pub(crate) fn face_contact(
    reference: &Poly<'_>,
    f: usize,
    incident: &Poly<'_>,
    deepest: usize,
    margin: Real,
    reference_is_b: bool,
) -> FacePoints {
    lent(&CLIP_SCRATCH, |scratch| {
        face_contact_in(
            reference,
            f,
            incident,
            deepest,
            margin,
            reference_is_b,
            scratch,
        )
    })
}

/// [`face_contact`] in the buffers `scratch`.
fn face_contact_in(
    reference: &Poly<'_>,
    f: usize,
    incident: &Poly<'_>,
    deepest: usize,
    margin: Real,
    reference_is_b: bool,
    scratch: &mut ClipScratch,
) -> FacePoints {
    let ClipScratch {
        polygon,
        clipped,
        sides,
        kept,
    } = scratch;
    let n = reference.normal(f);
    // The incident face: of the faces about the incident shape's deepest vertex along the
    // axis, the one most against the reference face (Box3D's `b3FindIncidentFace` also starts
    // from that vertex), so that the clipped polygon holds the deepest point whenever it lies
    // within the reference face's sides. The face most against it over the whole shape need
    // not hold that vertex: clipped, it can leave nothing within the margin while the shapes
    // overlap.
    let g = usize::from(
        (incident.topology.vertex_faces(deepest))
            .min_by(|&x, &y| {
                (incident.normal(usize::from(x)).dot(&n))
                    .total_cmp(&incident.normal(usize::from(y)).dot(&n))
            })
            .unwrap_or(0),
    );
    polygon.clear();
    polygon.extend(incident.face(g).map(|(e, p)| Clipped {
        p: *p,
        labels: (e, e),
    }));
    sides.clear();
    sides.extend(reference.face(f).map(|(e, p)| (e, *p)));
    for k in 0..sides.len() {
        let (e, v0) = (sides[k].0, sides[k].1);
        let v1 = sides[(k + 1) % sides.len()].1;
        let inward = n.cross(&(v1 - v0));
        // Labels of the reference's sides are set apart from the incident's edges.
        clip(polygon, &v0, &inward, 0x8000 | e, clipped);
        std::mem::swap(polygon, clipped);
        if polygon.is_empty() {
            break;
        }
    }
    kept.clear();
    kept.extend(polygon.iter().filter_map(|c| {
        let s = reference.distance(f, &c.p);
        (s <= margin).then(|| ContactPoint {
            position: c.p - n * (0.5 * s),
            depth: -s,
            id: FeatureId::hull_face(reference_is_b, f, g, c.labels),
        })
    }));
    let normal = if reference_is_b { -n } else { n };
    FacePoints {
        four: super::surface::reduce(kept, &normal),
        least_separation: least_separation(kept),
        normal,
    }
}

/// The edge contact: one point midway between the closest points of the two edges.
pub(crate) fn edge_contact(a: &Poly<'_>, b: &Poly<'_>, axis: &EdgeAxis) -> ContactPoint {
    let (pa, qa) = a.edge(axis.edge_a);
    let (pb, qb) = b.edge(axis.edge_b);
    let (on_a, on_b) = closest_points_on_segments(pa, qa, pb, qb);
    ContactPoint {
        position: geom::na::center(&on_a, &on_b),
        depth: -axis.separation,
        id: FeatureId::hull_edge(axis.edge_a, axis.edge_b),
    }
}

/// Which axis the SAT chose.
pub(crate) enum Chosen {
    FaceA(usize),
    FaceB(usize),
    Edge(EdgeAxis),
}

/// The SAT between two polyhedra: `None` when an axis separates them by more than `margin`;
/// else the chosen axis (A's faces, then B's and the edges winning only by the bias) and its
/// separation. Only axes `allowed` (as normals from a toward b) are looked at.
pub(crate) fn sat(
    a: &Poly<'_>,
    b: &Poly<'_>,
    margin: Real,
    allowed: &impl Fn(&Vector3) -> bool,
) -> Option<(Chosen, Real, Option<EdgeAxis>)> {
    sat_or_apart(a, b, margin, allowed).ok()
}

/// [`sat`], with the axis that found the pair apart when it did (`None` for the line of the
/// centres, which is no feature of either).
pub(crate) fn sat_or_apart(
    a: &Poly<'_>,
    b: &Poly<'_>,
    margin: Real,
    allowed: &impl Fn(&Vector3) -> bool,
) -> Result<(Chosen, Real, Option<EdgeAxis>), Option<AxisCache>> {
    if apart_along_centres(a, b, margin) {
        return Err(None);
    }
    sat_past_centres(a, b, margin, 0.0, allowed)
}

/// The full test's first check: whether the pair's extents along the line of their centres
/// are apart by more than `margin`. Most pairs the broad phase hands on are apart, and this
/// usually shows it at the cost of two support points. `b`'s planes need not be placed: its
/// centre is then worked out as [`Poly::place_planes`] works it out.
pub(crate) fn apart_along_centres(a: &Poly<'_>, b: &Poly<'_>, margin: Real) -> bool {
    let centre = if b.has_planes() {
        b.centre
    } else {
        mean(&b.vertices)
    };
    (centre - a.centre)
        .try_normalize(Real::MIN_POSITIVE)
        .is_some_and(|l| {
            let ((_, a_hi), (b_lo, _)) = (a.interval(&l), b.interval(&l));
            b_lo - a_hi > margin
        })
}

/// [`sat_or_apart`] after its first check ([`apart_along_centres`]) let the pair through. An
/// edge axis wins over the faces' only by `face_preference` (metres; at most a twentieth of
/// the smaller shape's size, so that a small shape's contact stays near its least
/// penetration) more than the bias: 0 for the least penetration, which the pair functions
/// give; a world's contacts prefer the face (see `sat_cache::FACE_PREFERENCE`).
pub(crate) fn sat_past_centres(
    a: &Poly<'_>,
    b: &Poly<'_>,
    margin: Real,
    face_preference: Real,
    allowed: &impl Fn(&Vector3) -> bool,
) -> Result<(Chosen, Real, Option<EdgeAxis>), Option<AxisCache>> {
    debug_assert!(
        a.has_planes() && b.has_planes(),
        "the full test reads every plane"
    );
    lent(&SAT_SCRATCH, |scratch| {
        let SatScratch {
            columns,
            reach_a,
            reach_b,
            edges,
        } = scratch;
        let apart = |feature, separation| Err(Some(AxisCache::new(feature, separation)));
        let (fa, sa) = face_query_in(a, b, margin, allowed, columns, reach_a);
        if sa > margin {
            return apart(AxisFeature::FaceA(fa as u16), sa);
        }
        let (fb, sb) = face_query_in(b, a, margin, &|n: &Vector3| allowed(&-n), columns, reach_b);
        if sb > margin {
            return apart(AxisFeature::FaceB(fb as u16), sb);
        }
        let bias = BIAS_ABSOLUTE * (a.size + b.size);
        let face_preference = face_preference.min(0.05 * a.size.min(b.size));
        let beats =
            |challenger: Real, best: Real| challenger > best + BIAS_RELATIVE * best.abs() + bias;
        let mut best = (Chosen::FaceA(fa), sa);
        // (No face of A allowed: B's best stands alone.)
        if fa == usize::MAX || (fb != usize::MAX && beats(sb, sa)) {
            best = (Chosen::FaceB(fb), sb);
        }
        // An edge axis matters only at or above the chosen face's separation, less the width
        // in which `contact_and_axis` falls back on it: below that it can neither win nor be
        // the fallback, so edges whose every axis lies below are passed over.
        let floor = if fa == usize::MAX || fb == usize::MAX {
            Real::NEG_INFINITY
        } else {
            best.1 - FALLBACK * a.size.max(b.size) - SLACK * (a.size + b.size)
        };
        let edge = edge_query_in(a, b, margin, floor, allowed, (reach_a, reach_b), edges);
        if let Some(e) = edge.filter(|e| e.separation > margin) {
            return apart(e.feature(), e.separation);
        }
        if let Some(e) = edge
            && (best.1 == Real::NEG_INFINITY || beats(e.separation, best.1 + face_preference))
        {
            best = (Chosen::Edge(e), e.separation);
        }
        if best.1 > Real::NEG_INFINITY {
            Ok((best.0, best.1, edge))
        } else {
            Err(None)
        }
    })
}

/// The contact of two polyhedra from the SAT's choice (separation `separation`). A face
/// contact whose clipping leaves nothing within the margin falls back on the edge axis, or
/// on the incident shape's deepest vertex.
pub(crate) fn contact_of(
    a: &Poly<'_>,
    b: &Poly<'_>,
    chosen: (Chosen, Real, Option<EdgeAxis>),
    margin: Real,
) -> Option<Contact> {
    contact_and_axis(a, b, chosen, margin).map(|(contact, _)| contact)
}

/// [`contact_of`], with the axis that made the contact for the next test to try first: a
/// face with the least separation of its clipped points, or an edge pair with its own; none
/// for the deepest vertex's fallback.
pub(crate) fn contact_and_axis(
    a: &Poly<'_>,
    b: &Poly<'_>,
    (chosen, separation, edge): (Chosen, Real, Option<EdgeAxis>),
    margin: Real,
) -> Option<(Contact, Option<AxisCache>)> {
    // The incident shape's deepest vertex along the axis, for the clipping and the fallback.
    let (normal, points, feature, deepest) = match chosen {
        Chosen::FaceA(f) => {
            let n = a.normals[f];
            let deepest = b.support_index(&-n);
            let points = face_contact(a, f, b, deepest, margin, false);
            let halfway = a.halfway(f, &b.vertices[deepest]);
            (n, points, AxisFeature::FaceA(f as u16), halfway)
        }
        Chosen::FaceB(f) => {
            let n = b.normals[f];
            let deepest = a.support_index(&-n);
            let points = face_contact(b, f, a, deepest, margin, true);
            let halfway = b.halfway(f, &a.vertices[deepest]);
            (-n, points, AxisFeature::FaceB(f as u16), halfway)
        }
        Chosen::Edge(e) => return Some(edge_manifold(a, b, &e)),
    };
    if points.four.is_empty() {
        if let Some(e) = edge.filter(|e| e.separation >= separation - FALLBACK * a.size.max(b.size))
        {
            return Some(edge_manifold(a, b, &e));
        }
        // The incident shape's deepest vertex halfway to the reference face's plane (as a
        // clipped point is placed). Not the midpoint of both shapes' supports: the reference's
        // support along its own face's normal is any corner of that face, which for a large
        // face (a ground box's top) is metres from the contact.
        let mut single = ArrayVec::new();
        single.push(ContactPoint {
            position: deepest,
            depth: -separation,
            id: FeatureId::hull_round(0x3fff_ffff),
        });
        return Some((with_points(normal, single), None));
    }
    let held = AxisCache::new(feature, points.least_separation);
    Some((face_manifold(normal, points.four, separation), Some(held)))
}

/// The contact of a face axis of separation `separation` from its clipped `points` (the four
/// chosen). The depth is the SAT's (the minimum translation), as the box pair reports it; the
/// deepest clipped point may be shallower when the deepest corner lies beyond the sides.
pub(crate) fn face_manifold(
    normal: Vector3,
    points: ArrayVec<ContactPoint, 4>,
    separation: Real,
) -> Contact {
    Contact {
        depth: -separation,
        ..with_points(normal, points)
    }
}

/// The least separation of a face contact's clipped points (before the four are chosen).
fn least_separation(points: &[ContactPoint]) -> Real {
    -points
        .iter()
        .map(|p| p.depth)
        .fold(Real::NEG_INFINITY, Real::max)
}

/// The contact of an edge axis, with the axis.
pub(crate) fn edge_manifold(
    a: &Poly<'_>,
    b: &Poly<'_>,
    e: &EdgeAxis,
) -> (Contact, Option<AxisCache>) {
    let mut points = ArrayVec::new();
    points.push(edge_contact(a, b, e));
    (
        with_points(e.normal, points),
        Some(AxisCache::new(e.feature(), e.separation)),
    )
}

/// The contact of two polyhedra, speculative up to `margin`; the normal from a toward b.
pub(crate) fn poly_poly_contact_within(
    a: &Poly<'_>,
    b: &Poly<'_>,
    margin: Real,
) -> Option<Contact> {
    contact_of(a, b, sat(a, b, margin, &|_| true)?, margin)
}

/// The contact of two hulls placed at their poses (exact up to the bias: the minimum
/// translation when they overlap), speculative up to `margin`; the normal from a toward b.
pub fn hull_hull_contact_within(
    a: &ConvexHull,
    pose_a: &Isometry3,
    b: &ConvexHull,
    pose_b: &Isometry3,
    margin: Real,
) -> Option<Contact> {
    // In the first hull's frame, as the dispatch runs it.
    let (pa, pb) = (
        Poly::of_hull_local(a),
        Poly::of_hull(b, &(pose_a.inverse() * pose_b)),
    );
    poly_poly_contact_within(&pa, &pb, margin).map(|c| c.placed(pose_a))
}

/// The closest point of the polyhedron's surface to `p` (outside it): on a face facing `p`,
/// or on one of that face's edges. The point, its squared distance, and a feature code (a
/// face `f` as `f`, a half-edge `e` as `0x1000 | e`).
fn closest_outside(poly: &Poly<'_>, p: &Point3) -> (Point3, Real, u32) {
    let mut best = (*p, Real::INFINITY, 0);
    for f in 0..poly.normals.len() {
        let s = poly.distance(f, p);
        if s <= 0.0 {
            continue;
        }
        let n = poly.normals[f];
        let on_plane = p - n * s;
        let corners: Vec<(u16, Point3)> = poly.face(f).map(|(e, v)| (e, *v)).collect();
        let mut inside = true;
        for k in 0..corners.len() {
            let (e, v0) = corners[k];
            let v1 = corners[(k + 1) % corners.len()].1;
            if (on_plane - v0).dot(&n.cross(&(v1 - v0))) < 0.0 {
                inside = false;
                let d = v1 - v0;
                let t = ((p - v0).dot(&d) / d.norm_squared()).clamp(0.0, 1.0);
                let q = v0 + d * t;
                let dist_sq = (p - q).norm_squared();
                if dist_sq < best.1 {
                    best = (q, dist_sq, 0x1000 | u32::from(e));
                }
            }
        }
        if inside && s * s < best.1 {
            best = (on_plane, s * s, f as u32);
        }
    }
    best
}

/// The face of largest separation from `p` (the way out of a point inside).
fn shallowest_face(poly: &Poly<'_>, p: &Point3) -> (usize, Real) {
    (0..poly.normals.len())
        .map(|f| (f, poly.distance(f, p)))
        .fold(
            (0, Real::NEG_INFINITY),
            |best, x| if x.1 > best.1 { x } else { best },
        )
}

/// A polyhedron and a ball, speculative up to `margin`; the normal from the polyhedron toward
/// the ball.
pub(crate) fn poly_sphere_contact_within(
    poly: &Poly<'_>,
    sphere: &Sphere,
    margin: Real,
) -> Option<Contact> {
    let c = sphere.center;
    let r = sphere.radius;
    let (f, s) = shallowest_face(poly, &c);
    if s > r + margin {
        return None;
    }
    if s <= 0.0 {
        let n = poly.normals[f];
        let depth = r - s;
        return Some(Contact::single(
            n,
            depth,
            c - n * (r - 0.5 * depth),
            FeatureId::hull_round(0x2000 | f as u32),
        ));
    }
    let (q, dist_sq, code) = closest_outside(poly, &c);
    if dist_sq > (r + margin) * (r + margin) {
        return None;
    }
    let dist = dist_sq.sqrt();
    let n = if dist > Real::EPSILON * r {
        (c - q) / dist
    } else {
        poly.normals[f]
    };
    let depth = r - dist;
    Some(Contact::single(
        n,
        depth,
        c - n * (r - 0.5 * depth),
        FeatureId::hull_round(code),
    ))
}

/// A polyhedron and a capsule, speculative up to `margin`; the normal from the polyhedron
/// toward the capsule. Two points where the capsule lies along a face.
pub(crate) fn poly_capsule_contact_within(
    poly: &Poly<'_>,
    capsule: &Capsule,
    margin: Real,
) -> Option<Contact> {
    let (a, b, r) = (capsule.a, capsule.b, capsule.radius);
    let d = b - a;
    // Does the segment enter the polyhedron? (Clipped by every face's plane.)
    let (mut lo, mut hi) = (0.0 as Real, 1.0 as Real);
    for f in 0..poly.normals.len() {
        let (s0, sd) = (poly.distance(f, &a), poly.normals[f].dot(&d));
        if sd == 0.0 {
            if s0 > 0.0 {
                hi = -1.0;
                break;
            }
            continue;
        }
        let t = -s0 / sd;
        if sd > 0.0 {
            hi = hi.min(t);
        } else {
            lo = lo.max(t);
        }
        if lo > hi {
            break;
        }
    }
    // The normal (from the polyhedron toward the segment), the gap between the cores, the
    // segment's point nearest the polyhedron, and a feature code; the face when the normal
    // is a face's.
    let (normal, gap, p, code, face) = if lo <= hi {
        // Through it: the least-penetrating face, or cross of the segment with an edge.
        let separation_along = |l: &Vector3| {
            let segment = a.coords.dot(l).min(b.coords.dot(l));
            segment - poly.support(l).coords.dot(l)
        };
        let mut best = (Vector3::zeros(), Real::NEG_INFINITY, usize::MAX);
        for (f, n) in poly.normals.iter().enumerate() {
            let s = separation_along(n);
            if s > best.1 {
                best = (*n, s, f);
            }
        }
        for e in poly.unique_edges() {
            let (p0, p1) = poly.edge(e);
            let l = (p1 - p0).cross(&d);
            let Some(l) = l.try_normalize(1e-6 * (p1 - p0).norm() * d.norm()) else {
                continue;
            };
            for l in [l, -l] {
                let s = separation_along(&l);
                if s > best.1 + BIAS_ABSOLUTE * poly.size {
                    best = (l, s, usize::MAX);
                }
            }
        }
        let p = if a.coords.dot(&best.0) <= b.coords.dot(&best.0) {
            a
        } else {
            b
        };
        let face = (best.2 != usize::MAX).then_some(best.2);
        (best.0, best.1, p, 0x4000 | best.2.min(0xfff) as u32, face)
    } else {
        // Apart: the closest points lie on an end of the segment or on an edge.
        let mut best = (a, Point3::origin(), Real::INFINITY, 0u32);
        for end in [a, b] {
            let (f, s) = shallowest_face(poly, &end);
            let (q, dist_sq, code) = if s <= 0.0 {
                (end - poly.normals[f] * s, 0.0, f as u32)
            } else {
                closest_outside(poly, &end)
            };
            if dist_sq < best.2 {
                best = (end, q, dist_sq, code);
            }
        }
        for e in poly.unique_edges() {
            let (p0, p1) = poly.edge(e);
            let (on_segment, on_edge) = closest_points_on_segments(&a, &b, p0, p1);
            let dist_sq = (on_segment - on_edge).norm_squared();
            if dist_sq < best.2 {
                best = (on_segment, on_edge, dist_sq, 0x1000 | e as u32);
            }
        }
        let (p, q, dist_sq, code) = best;
        if dist_sq > (r + margin) * (r + margin) {
            return None;
        }
        let gap = dist_sq.sqrt();
        let face = (code < 0x1000).then_some(code as usize);
        let normal = match face {
            Some(f) => poly.normals[f],
            None => (p - q).try_normalize(0.0).unwrap_or(poly.normals[0]),
        };
        (normal, gap, p, code, face)
    };
    if gap > r + margin {
        return None;
    }
    // Along a face: the segment clipped by the face's sides, both ends held when the deeper
    // is as deep as the exact contact.
    if let Some(f) = face {
        let corners: Vec<(u16, Point3)> = poly.face(f).map(|(e, v)| (e, *v)).collect();
        let (mut t0, mut t1) = ((0.0 as Real, 0x7fffu32), (1.0 as Real, 0x7ffeu32));
        for k in 0..corners.len() {
            let (e, v0) = corners[k];
            let v1 = corners[(k + 1) % corners.len()].1;
            let outward = (v1 - v0).cross(&normal);
            let (f0, fd) = ((a - v0).dot(&outward), d.dot(&outward));
            if fd == 0.0 {
                if f0 > 0.0 {
                    t1.0 = -1.0;
                }
                continue;
            }
            let t = -f0 / fd;
            if fd > 0.0 && t < t1.0 {
                t1 = (t, u32::from(e));
            } else if fd < 0.0 && t > t0.0 {
                t0 = (t, u32::from(e));
            }
        }
        if t1.0 - t0.0 > 1e-4 {
            let exact = r - gap;
            let mut points = ArrayVec::new();
            for (t, label) in [t0, t1] {
                let q = a + d * t;
                let depth = r - poly.distance(f, &q);
                if depth >= -margin {
                    points.push(ContactPoint {
                        position: q - normal * (r - 0.5 * depth),
                        depth,
                        id: FeatureId::hull_round(0x8000 | (f as u32) << 16 | label),
                    });
                }
            }
            if points.len() == 2
                && points[0].depth.max(points[1].depth) >= exact - 1e-5 * (1.0 + exact.abs())
            {
                return Some(with_points(normal, points));
            }
        }
    }
    let depth = r - gap;
    Some(Contact::single(
        normal,
        depth,
        p - normal * (r - 0.5 * depth),
        FeatureId::hull_round(code),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use geom::UnitQuaternion;

    /// A seeded xorshift generator of numbers uniform in [0, 1) (24 bits, exact in `f32`).
    fn seeded(mut state: u64) -> impl FnMut() -> Real {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as Real / (1u64 << 24) as Real
        }
    }

    #[test]
    fn a_hull_sunk_into_a_ground_slab_gets_its_deepest_point_under_it() {
        // rapier's convex_polyhedron3 rocks (10 points in a 2 m cube), turned at random and
        // sunk 1 to 15 cm into the top of a slab 0.2 m thick and 400 m wide. The contact is the
        // slab's top face, as deep as the rock's lowest vertex, and its points lie under the
        // rock. (The incident face was once the rock's face most against the top over the
        // whole rock, which need not hold its lowest vertex: clipped, it could leave nothing
        // within the margin, and the fallback point was placed halfway to a corner of the
        // slab, 200 m away.)
        let mut next = seeded(0x2545_f491_4f6c_dd1d);
        let ground = Poly::of_box(&Obb {
            center: Point3::new(0.0, -0.1, 0.0),
            half_extents: Vector3::new(200.0, 0.1, 200.0),
            rotation: UnitQuaternion::identity(),
        });
        let mut pairs = 0;
        for _ in 0..2000 {
            let points: Vec<Point3> = (0..10)
                .map(|_| Point3::new(next(), next(), next()) * 2.0)
                .collect();
            let Ok(hull) = ConvexHull::new(&points) else {
                continue;
            };
            let axis = Vector3::new(next(), next(), next()) * 2.0 - Vector3::repeat(1.0);
            let turn = UnitQuaternion::from_scaled_axis(axis * 3.0);
            let sunk = 0.01 + 0.14 * next();
            let lowest = (hull.vertices().iter())
                .map(|v| (turn * v).y)
                .fold(Real::INFINITY, Real::min);
            let pose = Isometry3::from_parts(Vector3::new(0.0, -lowest - sunk, 0.0).into(), turn);
            let rock = Poly::of_hull(&hull, &pose);
            let contact =
                poly_poly_contact_within(&ground, &rock, 0.02).expect("a rock in the ground");
            assert!(
                (contact.normal - Vector3::y()).norm() < 1e-5,
                "{:?}",
                contact.normal
            );
            assert!(
                (contact.depth - sunk).abs() < 1e-4,
                "{} against {sunk}",
                contact.depth
            );
            let under = Aabb::from_points(&rock.vertices)
                .expect("a box")
                .loosened(1e-3);
            let deepest = (contact.points.iter()).fold(Real::NEG_INFINITY, |d, p| d.max(p.depth));
            assert!((deepest - sunk).abs() < 1e-4, "{deepest} against {sunk}");
            for p in &contact.points {
                assert!(
                    under.contains_point(&p.position),
                    "{:?} not under the rock",
                    p.position
                );
            }
            pairs += 1;
        }
        assert!(pairs > 1900, "{pairs}");
    }

    /// The face query as it was written first: each face against the other's support point
    /// found by a scan.
    fn scanned(
        a: &Poly<'_>,
        b: &Poly<'_>,
        margin: Real,
        allowed: &impl Fn(&Vector3) -> bool,
    ) -> (usize, Real) {
        let mut best = (usize::MAX, Real::NEG_INFINITY);
        for f in 0..a.normals.len() {
            if !allowed(&a.normals[f]) {
                continue;
            }
            let s = a.distance(f, b.support(&-a.normals[f]));
            if s > best.1 {
                best = (f, s);
                if s > margin {
                    break;
                }
            }
        }
        best
    }

    #[test]
    fn the_face_query_in_lanes_gives_the_scan_of_supports_to_the_bit() {
        let mut unit = seeded(0x9e37_79b9_7f4a_7c15);
        let mut next = move || unit() * 2.0 - 1.0;
        let mut point = || Point3::new(next(), next(), next());
        let hulls: Vec<ConvexHull> = (0..6)
            .map(|k| {
                let points: Vec<Point3> = (0..6 + 7 * k).map(|_| point()).collect();
                ConvexHull::new(&points).expect("a hull of random points")
            })
            .collect();
        let mut pose = || {
            let axis = Vector3::new(next(), next(), next());
            let rotation = UnitQuaternion::from_scaled_axis(axis * 3.0);
            Isometry3::from_parts(Vector3::new(next(), next(), next()).into(), rotation)
        };
        let mut checked = 0;
        for round in 0..400 {
            let (pa, pb) = (pose(), pose());
            let hull = &hulls[round % hulls.len()];
            let other = &hulls[(round / 3) % hulls.len()];
            // Hulls, and boxes (whose faces tie) against hulls and boxes.
            let boxed = |p: &Isometry3| Obb {
                center: p.translation.vector.into(),
                half_extents: Vector3::new(0.5, 0.3, 0.7),
                rotation: p.rotation,
            };
            let pairs = [
                (Poly::of_hull(hull, &pa), Poly::of_hull(other, &pb)),
                (Poly::of_box(&boxed(&pa)), Poly::of_hull(other, &pb)),
                (Poly::of_box(&boxed(&pa)), Poly::of_box(&boxed(&pb))),
            ];
            for (a, b) in &pairs {
                for margin in [0.0, 0.1, Real::INFINITY] {
                    let (f, s) = face_query(a, b, margin, &|_| true);
                    let (g, t) = scanned(a, b, margin, &|_| true);
                    assert_eq!((f, s.to_bits()), (g, t.to_bits()), "round {round}");
                    // Only some faces allowed (as a triangle's test allows the axes on its
                    // front side).
                    let upward = |n: &Vector3| n.y >= 0.0;
                    let (f, s) = face_query(a, b, margin, &upward);
                    let (g, t) = scanned(a, b, margin, &upward);
                    assert_eq!((f, s.to_bits()), (g, t.to_bits()), "round {round}");
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 3600);
    }

    #[test]
    fn the_edge_query_with_a_floor_finds_every_axis_at_or_above_it_to_the_bit() {
        // Random hulls and boxes, overlapping, touching and apart; the floor at the faces' as
        // `sat` puts it and at other heights. Every pair at or above the floor is found as
        // without one; below it, nothing above it is invented.
        let mut rng = testbed::SplitMix(77);
        let hulls: Vec<ConvexHull> = (0..8)
            .map(|k| {
                let points: Vec<Point3> = (0..5 + 6 * k).map(|_| rng.point(1.5)).collect();
                ConvexHull::new(&points).expect("a hull of random points")
            })
            .collect();
        let (mut pruned_some, mut found) = (0, 0);
        for round in 0..3000 {
            let pa = Isometry3::from_parts(rng.point(0.5).coords.into(), rng.rotation());
            let pb = Isometry3::from_parts(rng.point(2.5).coords.into(), rng.rotation());
            let box_b = Obb {
                center: pb.translation.vector.into(),
                half_extents: Vector3::new(0.5, 0.3, 0.9),
                rotation: pb.rotation,
            };
            let a = Poly::of_hull(&hulls[round % hulls.len()], &pa);
            let b = if round % 3 == 0 {
                Poly::of_box(&box_b)
            } else {
                Poly::of_hull(&hulls[(round / 2) % hulls.len()], &pb)
            };
            let margin = 0.05;
            let (_, sa) = face_query(&a, &b, Real::INFINITY, &|_| true);
            let (_, sb) = face_query(&b, &a, Real::INFINITY, &|_| true);
            let full = edge_query(&a, &b, Real::INFINITY, Real::NEG_INFINITY, &|_| true);
            for floor in [sa.min(sb) - 0.01, sa.max(sb), -0.5, 0.0] {
                let cut = edge_query(&a, &b, Real::INFINITY, floor, &|_| true);
                let key =
                    |e: Option<EdgeAxis>| e.map(|e| (e.edge_a, e.edge_b, e.separation.to_bits()));
                match full {
                    Some(e) if e.separation >= floor => {
                        assert_eq!(key(cut), key(full), "round {round}, floor {floor}");
                        found += 1;
                    }
                    _ => {
                        assert!(cut.is_none_or(|e| e.separation < floor), "round {round}");
                        pruned_some += 1;
                    }
                }
                // With the margin's early exit too.
                let early = edge_query(&a, &b, margin, floor, &|_| true);
                let early_full = edge_query(&a, &b, margin, Real::NEG_INFINITY, &|_| true);
                if early_full.is_some_and(|e| e.separation >= floor) {
                    assert_eq!(key(early), key(early_full), "round {round}");
                }
            }
        }
        assert!(found > 1000 && pruned_some > 1000, "{found} {pruned_some}");
    }
}
