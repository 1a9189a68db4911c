//! Triangle surfaces for static level geometry: [`TriMesh`] (vertices, triangles and a
//! hierarchy over them) and [`HeightField`] (a grid of heights), both immutable once built and
//! shared between bodies through an `Arc` in [`crate::Shape`].
//!
//! Both are one-sided: a triangle's front is the side its counter-clockwise winding faces
//! (`(b - a) x (c - a)`), and contacts push out through the front only. Each triangle knows
//! which of its edges are *flat*: shared with exactly one other triangle whose plane is within
//! [`FLAT_EDGE_COS`] of its own. A body sliding across a flat edge is held up by the triangle
//! on the far side, so contacts whose feature is a flat edge are the ghost bumps the contact
//! code drops (`collide`'s mesh contacts). Edges are shared through vertex indices: weld
//! duplicate vertices before building.

use crate::{Aabb, Bvh, BvhItem, GeomError, Point3, Real, Vector3, validate};
use serde::{Deserialize, Serialize};

/// Two triangles meeting at an edge count as one flat surface there when the cosine of the
/// angle between their normals is at least this (5 degrees).
pub const FLAT_EDGE_COS: Real = 0.996_194_7;

/// The most triangles a surface may have (4,194,304; a heightfield's cells count two each):
/// building one costs about 100 bytes a triangle, so a snapshot cannot make a reader build
/// more than about 400 MB of any one surface. Larger levels are several meshes.
pub const MAX_TRIANGLES: usize = 1 << 22;

/// One triangle of a surface, in the surface's frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Triangle {
    /// Its corners, counter-clockwise seen from the front.
    pub vertices: [Point3; 3],
    /// The corners' vertex indices (edges are shared through them).
    pub ids: [u32; 3],
    /// Bit `k` set when edge `k` (from corner `k` to corner `k + 1 mod 3`) is flat.
    pub flat: u8,
}

impl Triangle {
    /// All three edges flat.
    pub const ALL_FLAT: u8 = 0b111;

    /// The unit normal of its front (its corners are never collinear: surfaces refuse such
    /// triangles).
    #[inline]
    pub fn normal(&self) -> Vector3 {
        let [a, b, c] = self.vertices;
        (b - a).cross(&(c - a)).normalize()
    }
}

/// What the contact and ray code needs of a triangle surface.
pub trait Surface {
    /// Triangle `index`.
    fn triangle(&self, index: u32) -> Triangle;
    /// Calls `each` with the index of every triangle whose box meets `local` (in the surface's
    /// frame), in an order fixed by the surface and the box.
    fn query(&self, local: &Aabb, each: impl FnMut(u32));
    /// The box around the whole surface, in its frame.
    fn local_aabb(&self) -> Aabb;
    /// Whether everything below the surface is solid (a heightfield: the ground), so that a
    /// shape sunk under it is pushed back up; a mesh is a one-sided sheet.
    fn solid_below(&self) -> bool {
        false
    }
}

/// A digest of a surface's numbers (FNV-1a over their bits), kept for the world's state hash.
fn digest(words: impl Iterator<Item = u32>) -> u64 {
    words.fold(0xcbf2_9ce4_8422_2325, |h, w| {
        (h ^ u64::from(w)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Whether the corners make a triangle: twice its area at least a millionth of its longest
/// edge squared (no repeated corner, no sliver along a line).
fn spans_area(a: &Point3, b: &Point3, c: &Point3) -> bool {
    let (ab, bc, ca) = (b - a, c - b, a - c);
    let longest = ab
        .norm_squared()
        .max(bc.norm_squared())
        .max(ca.norm_squared());
    longest > 0.0 && ab.cross(&-ca).norm_squared() > 1e-12 * longest * longest
}

/// The flat edges of each triangle (bit `k` for edge `k`), found by sorting the edges by their
/// two vertex indices: an edge shared by exactly two triangles that wind it in opposite
/// directions and whose normals are within [`FLAT_EDGE_COS`].
fn flat_edges(triangles: &[[u32; 3]], normal: impl Fn(usize) -> Vector3) -> Vec<u8> {
    let mut edges: Vec<(u64, u32)> = Vec::with_capacity(3 * triangles.len());
    for (t, tri) in triangles.iter().enumerate() {
        for k in 0..3 {
            let (i, j) = (tri[k], tri[(k + 1) % 3]);
            let key = u64::from(i.min(j)) << 32 | u64::from(i.max(j));
            edges.push((key, 3 * t as u32 + k as u32));
        }
    }
    edges.sort_unstable();
    let mut flat = vec![0u8; triangles.len()];
    let mut at = 0;
    while at < edges.len() {
        let mut end = at + 1;
        while end < edges.len() && edges[end].0 == edges[at].0 {
            end += 1;
        }
        if end - at == 2 {
            let (e1, e2) = (edges[at].1 as usize, edges[at + 1].1 as usize);
            let (t1, k1, t2, k2) = (e1 / 3, e1 % 3, e2 / 3, e2 % 3);
            let opposite = triangles[t1][k1] == triangles[t2][(k2 + 1) % 3];
            if opposite && normal(t1).dot(&normal(t2)) >= FLAT_EDGE_COS {
                flat[t1] |= 1 << k1;
                flat[t2] |= 1 << k2;
            }
        }
        at = end;
    }
    flat
}

/// The parts of a [`TriMesh`] that are saved: what it is built from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TriMeshData {
    /// The vertices, in the mesh's frame.
    pub vertices: Vec<Point3>,
    /// Each triangle's three vertex indices, counter-clockwise seen from its front.
    pub triangles: Vec<[u32; 3]>,
}

/// A triangle mesh: vertices, triangles, each triangle's flat edges, and a bounding volume
/// hierarchy over the triangles, all built once by [`TriMesh::new`], which checks the input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "TriMeshData", into = "TriMeshData")]
pub struct TriMesh {
    vertices: Vec<Point3>,
    triangles: Vec<[u32; 3]>,
    flat: Vec<u8>,
    bvh: Bvh,
    aabb: Aabb,
    digest: u64,
}

impl TriMesh {
    /// A mesh of `triangles` over `vertices`, checked: at least one triangle and at most
    /// [`MAX_TRIANGLES`]; every vertex finite; every index in range; every triangle spanning
    /// an area (no repeated or collinear corners). The error names the first bad entry
    /// (`vertices[7].y`, `triangles[3][2]`, `triangles[5]`).
    pub fn new(vertices: Vec<Point3>, triangles: Vec<[u32; 3]>) -> Result<Self, GeomError> {
        validate::points3("vertices", &vertices, 3)?;
        if triangles.is_empty() {
            return Err(GeomError::TooFew {
                field: "triangles".into(),
                needed: 1,
                got: 0,
            });
        }
        if triangles.len() > MAX_TRIANGLES {
            return Err(GeomError::TooMany {
                field: "triangles".into(),
                most: MAX_TRIANGLES,
                got: triangles.len(),
            });
        }
        for (t, tri) in triangles.iter().enumerate() {
            for (k, &index) in tri.iter().enumerate() {
                if index as usize >= vertices.len() {
                    return Err(GeomError::OutOfRange {
                        field: format!("triangles[{t}][{k}]"),
                        index: index as usize,
                        len: vertices.len(),
                    });
                }
            }
            let [a, b, c] = tri.map(|i| vertices[i as usize]);
            if !spans_area(&a, &b, &c) {
                return Err(GeomError::Degenerate {
                    field: format!("triangles[{t}]"),
                    why: "its corners are repeated or on one line",
                });
            }
        }
        let corners = |t: usize| triangles[t].map(|i| vertices[i as usize]);
        let normal = |t: usize| {
            let [a, b, c] = corners(t);
            (b - a).cross(&(c - a)).normalize()
        };
        let flat = flat_edges(&triangles, normal);
        let items = (0..triangles.len())
            .map(|t| BvhItem {
                aabb: Aabb::from_points(&corners(t)).expect("three points"),
                id: t as u32,
            })
            .collect();
        let bvh = Bvh::build(items);
        let aabb = bvh.bounds().expect("at least one triangle");
        let digest = digest(
            vertices
                .iter()
                .flat_map(|v| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>())
                .chain(triangles.iter().flatten().copied()),
        );
        Ok(Self {
            vertices,
            triangles,
            flat,
            bvh,
            aabb,
            digest,
        })
    }

    /// The vertices.
    pub fn vertices(&self) -> &[Point3] {
        &self.vertices
    }

    /// The triangles' vertex indices.
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// A digest of the vertices and triangles, equal for equal meshes.
    pub fn digest(&self) -> u64 {
        self.digest
    }

    /// The hierarchy over the triangles (each item's id is its triangle's index).
    pub fn bvh(&self) -> &Bvh {
        &self.bvh
    }
}

impl TryFrom<TriMeshData> for TriMesh {
    type Error = GeomError;
    fn try_from(data: TriMeshData) -> Result<Self, GeomError> {
        Self::new(data.vertices, data.triangles)
    }
}

impl From<TriMesh> for TriMeshData {
    fn from(mesh: TriMesh) -> Self {
        Self {
            vertices: mesh.vertices,
            triangles: mesh.triangles,
        }
    }
}

impl Surface for TriMesh {
    #[inline]
    fn triangle(&self, index: u32) -> Triangle {
        let ids = self.triangles[index as usize];
        Triangle {
            vertices: ids.map(|i| self.vertices[i as usize]),
            ids,
            flat: self.flat[index as usize],
        }
    }

    #[inline]
    fn query(&self, local: &Aabb, each: impl FnMut(u32)) {
        self.bvh.walk(|b| b.intersects(local), each);
    }

    #[inline]
    fn local_aabb(&self) -> Aabb {
        self.aabb
    }
}

/// The parts of a [`HeightField`] that are saved: what it is built from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeightFieldData {
    /// Rows of samples (along local z), at least 2.
    pub rows: u32,
    /// Samples a row (along local x), at least 2.
    pub columns: u32,
    /// The heights, row after row (`rows * columns` of them), before scaling.
    pub heights: Vec<Real>,
    /// The field's size along x and z (metres) and the scale of its heights along y.
    pub scale: Vector3,
}

/// A heightfield: `rows` by `columns` samples on a regular grid centred on the local origin,
/// `scale.x` wide along x and `scale.z` deep along z, sample `(r, c)` at
/// `(-scale.x / 2 + c dx, heights[r columns + c] scale.y, -scale.z / 2 + r dz)`. Each cell is
/// two triangles split along the diagonal from `(r, c)` to `(r + 1, c + 1)`, facing +y; cell
/// `(r, c)` holds triangles `2 (r (columns - 1) + c)` and the next. No hierarchy: the cells a
/// box covers are found by division. Unlike a mesh, a heightfield is the top of solid ground:
/// a shape sunk below it meets the cells above it and is pushed back up (its box reaches down
/// by its height range, or 1 m if less, below its lowest point).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "HeightFieldData", into = "HeightFieldData")]
pub struct HeightField {
    data: HeightFieldData,
    flat: Vec<u8>,
    /// Each cell's lowest and highest height (scaled).
    cell_heights: Vec<(Real, Real)>,
    aabb: Aabb,
    digest: u64,
}

impl HeightField {
    /// A heightfield, checked: at least 2 by 2 samples and at most [`MAX_TRIANGLES`]
    /// triangles, `heights` of length `rows * columns`, every height finite, `scale.x` and
    /// `scale.z` positive, `scale.y` finite. The error names the bad field.
    pub fn new(
        rows: u32,
        columns: u32,
        heights: Vec<Real>,
        scale: Vector3,
    ) -> Result<Self, GeomError> {
        for (field, n) in [("rows", rows), ("columns", columns)] {
            if n < 2 {
                return Err(GeomError::TooFew {
                    field: field.into(),
                    needed: 2,
                    got: n as usize,
                });
            }
        }
        let cells = (rows as usize - 1) * (columns as usize - 1);
        if cells > MAX_TRIANGLES / 2 {
            return Err(GeomError::TooMany {
                field: "cells".into(),
                most: MAX_TRIANGLES / 2,
                got: cells,
            });
        }
        let count = rows as usize * columns as usize;
        if heights.len() != count {
            return Err(GeomError::Degenerate {
                field: "heights".into(),
                why: "there must be rows * columns of them",
            });
        }
        for (i, &h) in heights.iter().enumerate() {
            validate::finite(&format!("heights[{i}]"), h)?;
        }
        validate::positive("scale.x", scale.x)?;
        validate::positive("scale.z", scale.z)?;
        validate::finite("scale.y", scale.y)?;
        let mut field = Self {
            data: HeightFieldData {
                rows,
                columns,
                heights,
                scale,
            },
            flat: Vec::new(),
            cell_heights: Vec::with_capacity(cells),
            aabb: Aabb::new(Point3::origin(), Point3::origin()),
            digest: 0,
        };
        let (low, high) = field
            .data
            .heights
            .iter()
            .fold((Real::INFINITY, Real::NEG_INFINITY), |(lo, hi), &h| {
                (lo.min(h * scale.y), hi.max(h * scale.y))
            });
        let (hx, hz) = (0.5 * scale.x, 0.5 * scale.z);
        // The ground goes on below: the box reaches down by the field's height range, or
        // 1 m if less, so that a shape sunk under the surface is still paired with it.
        let ground = (high - low).max(1.0);
        field.aabb = Aabb::new(
            Point3::new(-hx, low - ground, -hz),
            Point3::new(hx, high, hz),
        );
        for r in 0..rows - 1 {
            for c in 0..columns - 1 {
                let hs = [(r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)]
                    .map(|(r, c)| field.height(r, c));
                let lo = hs.iter().copied().fold(Real::INFINITY, Real::min);
                let hi = hs.iter().copied().fold(Real::NEG_INFINITY, Real::max);
                field.cell_heights.push((lo, hi));
            }
        }
        let triangles: Vec<[u32; 3]> = (0..2 * cells as u32)
            .map(|t| field.triangle(t).ids)
            .collect();
        field.flat = flat_edges(&triangles, |t| field.triangle(t as u32).normal());
        field.digest = digest(
            [rows, columns]
                .into_iter()
                .chain(scale.iter().map(|x| x.to_bits()))
                .chain(field.data.heights.iter().map(|h| h.to_bits())),
        );
        Ok(field)
    }

    /// Rows of samples.
    pub fn rows(&self) -> u32 {
        self.data.rows
    }

    /// Samples a row.
    pub fn columns(&self) -> u32 {
        self.data.columns
    }

    /// The unscaled heights, row after row.
    pub fn heights(&self) -> &[Real] {
        &self.data.heights
    }

    /// The size along x and z and the height scale.
    pub fn scale(&self) -> Vector3 {
        self.data.scale
    }

    /// A digest of the samples and scale, equal for equal fields.
    pub fn digest(&self) -> u64 {
        self.digest
    }

    /// The scaled height of sample `(r, c)`.
    #[inline]
    fn height(&self, r: u32, c: u32) -> Real {
        self.data.heights[(r * self.data.columns + c) as usize] * self.data.scale.y
    }

    /// The local position of sample `(r, c)`.
    #[inline]
    pub fn sample(&self, r: u32, c: u32) -> Point3 {
        let s = &self.data.scale;
        let dx = s.x / (self.data.columns - 1) as Real;
        let dz = s.z / (self.data.rows - 1) as Real;
        Point3::new(
            -0.5 * s.x + c as Real * dx,
            self.height(r, c),
            -0.5 * s.z + r as Real * dz,
        )
    }

    /// The range of cells `[first, last]` along one axis whose span meets `[lo, hi]`, or
    /// `None` (`size` the field's extent on that axis, `cells` its cell count).
    fn cell_range(lo: Real, hi: Real, size: Real, cells: u32) -> Option<(u32, u32)> {
        let d = size / cells as Real;
        let (a, b) = ((lo + 0.5 * size) / d, (hi + 0.5 * size) / d);
        // NaN bounds compare false and give no cells.
        if !(b >= 0.0 && a <= cells as Real) {
            return None;
        }
        let first = a.floor().max(0.0) as u32;
        let last = (b.floor() as u32).min(cells - 1);
        (first <= last).then_some((first.min(cells - 1), last))
    }
}

impl TryFrom<HeightFieldData> for HeightField {
    type Error = GeomError;
    fn try_from(data: HeightFieldData) -> Result<Self, GeomError> {
        Self::new(data.rows, data.columns, data.heights, data.scale)
    }
}

impl From<HeightField> for HeightFieldData {
    fn from(field: HeightField) -> Self {
        field.data
    }
}

impl Surface for HeightField {
    #[inline]
    fn triangle(&self, index: u32) -> Triangle {
        let per_row = self.data.columns - 1;
        let cell = index / 2;
        let (r, c) = (cell / per_row, cell % per_row);
        let id = |r: u32, c: u32| r * self.data.columns + c;
        let corners = if index.is_multiple_of(2) {
            [(r, c), (r + 1, c), (r + 1, c + 1)]
        } else {
            [(r, c), (r + 1, c + 1), (r, c + 1)]
        };
        // Zero while the field is being built (its flags come from its triangles).
        let flat = self.flat.get(index as usize).copied().unwrap_or(0);
        Triangle {
            vertices: corners.map(|(r, c)| self.sample(r, c)),
            ids: corners.map(|(r, c)| id(r, c)),
            flat,
        }
    }

    fn query(&self, local: &Aabb, mut each: impl FnMut(u32)) {
        let s = &self.data.scale;
        let (rows, cols) = (self.data.rows - 1, self.data.columns - 1);
        let Some((c0, c1)) = Self::cell_range(local.mins.x, local.maxs.x, s.x, cols) else {
            return;
        };
        let Some((r0, r1)) = Self::cell_range(local.mins.z, local.maxs.z, s.z, rows) else {
            return;
        };
        for r in r0..=r1 {
            for c in c0..=c1 {
                let cell = r * cols + c;
                // A box below the surface is in the ground: its cells are found too, so
                // only a box above a cell's highest point misses it.
                let (_, hi) = self.cell_heights[cell as usize];
                if hi >= local.mins.y {
                    each(2 * cell);
                    each(2 * cell + 1);
                }
            }
        }
    }

    #[inline]
    fn local_aabb(&self) -> Aabb {
        self.aabb
    }

    #[inline]
    fn solid_below(&self) -> bool {
        true
    }
}

/// Surfaces written once: while a [`shared::scope`] is open on this thread, a [`crate::Shape`]'s
/// mesh or heightfield is saved as an index into the scope's table instead of its data, and
/// read back as the table's shared copy. A world's snapshot opens one, so that a mesh placed on
/// a thousand bodies is written once and read back shared. Outside a scope a shape saves its
/// surface whole.
pub mod shared {
    use super::{HeightField, TriMesh};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::cell::RefCell;
    use std::sync::Arc;

    /// The distinct surfaces of a scope, in the order they are indexed.
    #[derive(Debug, Clone, Default)]
    pub struct Table {
        /// The triangle meshes.
        pub meshes: Vec<Arc<TriMesh>>,
        /// The heightfields.
        pub heightfields: Vec<Arc<HeightField>>,
    }

    impl Table {
        /// The index of `mesh` (the same allocation, or equal data), added if new.
        pub fn mesh_index(&mut self, mesh: &Arc<TriMesh>) -> u32 {
            index_of(&mut self.meshes, mesh, |a, b| {
                a.digest() == b.digest()
                    && a.vertices() == b.vertices()
                    && a.triangles() == b.triangles()
            })
        }

        /// The index of `field` (the same allocation, or equal data), added if new.
        pub fn heightfield_index(&mut self, field: &Arc<HeightField>) -> u32 {
            index_of(&mut self.heightfields, field, |a, b| {
                a.digest() == b.digest() && a == b
            })
        }
    }

    fn index_of<T>(list: &mut Vec<Arc<T>>, item: &Arc<T>, same: impl Fn(&T, &T) -> bool) -> u32 {
        let found = list
            .iter()
            .position(|other| Arc::ptr_eq(other, item))
            .or_else(|| list.iter().position(|other| same(other, item)));
        found.unwrap_or_else(|| {
            list.push(Arc::clone(item));
            list.len() - 1
        }) as u32
    }

    thread_local! {
        static TABLE: RefCell<Option<Table>> = const { RefCell::new(None) };
    }

    /// Runs `f` with `table` open on this thread (surfaces saved as its indices, and read back
    /// from it), and returns what `f` returned with the table as it was left.
    pub fn scope<R>(table: Table, f: impl FnOnce() -> R) -> (R, Table) {
        /// Closes the scope even if `f` unwinds.
        struct Close(Option<Table>);
        impl Drop for Close {
            fn drop(&mut self) {
                let previous = self.0.take();
                TABLE.with(|t| *t.borrow_mut() = previous);
            }
        }
        let previous = TABLE.with(|t| t.borrow_mut().replace(table));
        let close = Close(previous);
        let result = f();
        let table = TABLE.with(|t| t.borrow_mut().take()).unwrap_or_default();
        drop(close);
        (result, table)
    }

    /// The open scope's table as a field of a saved struct, to be placed before the shapes
    /// that index it: saving writes the table (empty outside a scope), reading fills the open
    /// scope's table with what was read (checked like every surface), for the shapes after it.
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub struct OpenTable;

    #[derive(Serialize)]
    struct TableRef<'a> {
        meshes: &'a [Arc<TriMesh>],
        heightfields: &'a [Arc<HeightField>],
    }

    #[derive(Deserialize)]
    struct TableOwned {
        meshes: Vec<TriMesh>,
        heightfields: Vec<HeightField>,
    }

    impl Serialize for OpenTable {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            TABLE.with(|t| {
                let t = t.borrow();
                let (meshes, heightfields) = t
                    .as_ref()
                    .map_or((&[][..], &[][..]), |t| (&t.meshes[..], &t.heightfields[..]));
                TableRef {
                    meshes,
                    heightfields,
                }
                .serialize(serializer)
            })
        }
    }

    impl<'de> Deserialize<'de> for OpenTable {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let read = TableOwned::deserialize(deserializer)?;
            TABLE.with(|t| {
                if let Some(open) = t.borrow_mut().as_mut() {
                    *open = Table {
                        meshes: read.meshes.into_iter().map(Arc::new).collect(),
                        heightfields: read.heightfields.into_iter().map(Arc::new).collect(),
                    };
                }
            });
            Ok(Self)
        }
    }

    /// How a surface is saved.
    #[derive(Serialize, Deserialize)]
    enum Saved<T> {
        /// Its data.
        Whole(T),
        /// Its index in the scope's table.
        Index(u32),
    }

    fn save<T: Serialize + Clone, S: Serializer>(
        surface: &Arc<T>,
        serializer: S,
        index: impl FnOnce(&mut Table) -> u32,
    ) -> Result<S::Ok, S::Error> {
        let at = TABLE.with(|t| t.borrow_mut().as_mut().map(index));
        match at {
            Some(at) => Saved::<T>::Index(at).serialize(serializer),
            None => Saved::Whole(surface.as_ref().clone()).serialize(serializer),
        }
    }

    fn load<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        deserializer: D,
        what: &str,
        get: impl FnOnce(&Table, usize) -> Option<Arc<T>>,
        len: impl FnOnce(&Table) -> usize,
    ) -> Result<Arc<T>, D::Error> {
        match Saved::<T>::deserialize(deserializer)? {
            Saved::Whole(surface) => Ok(Arc::new(surface)),
            Saved::Index(at) => TABLE.with(|t| {
                let table = t.borrow();
                let table = table.as_ref();
                table
                    .and_then(|table| get(table, at as usize))
                    .ok_or_else(|| {
                        serde::de::Error::custom(format!(
                            "{what} index {at} names no entry of the snapshot's {} {what}s \
                             (the table must come before the bodies)",
                            table.map_or(0, len)
                        ))
                    })
            }),
        }
    }

    /// `serde(with)` for a shape's mesh.
    pub(crate) mod mesh {
        use super::*;

        pub(crate) fn serialize<S: Serializer>(
            mesh: &Arc<TriMesh>,
            serializer: S,
        ) -> Result<S::Ok, S::Error> {
            save(mesh, serializer, |table| table.mesh_index(mesh))
        }

        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
            deserializer: D,
        ) -> Result<Arc<TriMesh>, D::Error> {
            load(
                deserializer,
                "mesh",
                |table, at| table.meshes.get(at).cloned(),
                |table| table.meshes.len(),
            )
        }
    }

    /// `serde(with)` for a shape's heightfield.
    pub(crate) mod heightfield {
        use super::*;

        pub(crate) fn serialize<S: Serializer>(
            field: &Arc<HeightField>,
            serializer: S,
        ) -> Result<S::Ok, S::Error> {
            save(field, serializer, |table| table.heightfield_index(field))
        }

        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
            deserializer: D,
        ) -> Result<Arc<HeightField>, D::Error> {
            load(
                deserializer,
                "heightfield",
                |table, at| table.heightfields.get(at).cloned(),
                |table| table.heightfields.len(),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A grid of `n` by `n` unit cells facing +y, heights from `h`.
    fn grid(n: u32, h: impl Fn(Real, Real) -> Real) -> TriMesh {
        let mut vertices = Vec::new();
        for j in 0..=n {
            for i in 0..=n {
                let (x, z) = (i as Real, j as Real);
                vertices.push(Point3::new(x, h(x, z), z));
            }
        }
        let id = |i: u32, j: u32| j * (n + 1) + i;
        let mut triangles = Vec::new();
        for j in 0..n {
            for i in 0..n {
                triangles.push([id(i, j), id(i, j + 1), id(i + 1, j + 1)]);
                triangles.push([id(i, j), id(i + 1, j + 1), id(i + 1, j)]);
            }
        }
        TriMesh::new(vertices, triangles).unwrap()
    }

    /// A generator for boxes (SplitMix64).
    fn unit(state: &mut u64) -> Real {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 40) as Real / (1u64 << 24) as Real
    }

    #[test]
    fn inner_edges_of_a_flat_grid_are_flat_and_its_border_is_not() {
        let mesh = grid(3, |_, _| 0.0);
        for t in 0..mesh.triangles().len() as u32 {
            let tri = mesh.triangle(t);
            assert!((tri.normal() - Vector3::y()).norm() < 1e-6);
            for k in 0..3 {
                let [a, b] = [tri.vertices[k], tri.vertices[(k + 1) % 3]];
                let on_border = [a.x, a.z]
                    .iter()
                    .zip([b.x, b.z])
                    .any(|(&p, q)| p == q && (p == 0.0 || p == 3.0));
                assert_eq!(tri.flat & (1 << k) == 0, on_border, "triangle {t} edge {k}");
            }
        }
    }

    #[test]
    fn a_fold_steeper_than_five_degrees_is_not_flat() {
        for (degrees, flat) in [(3.0 as Real, true), (10.0, false)] {
            let rise = degrees.to_radians().tan();
            // Two cells: the second folded up about x = 1.
            let mesh = grid(2, |x, _| (x - 1.0).max(0.0) * rise);
            let across = (0..mesh.triangles().len() as u32).any(|t| {
                let tri = mesh.triangle(t);
                (0..3).any(|k| {
                    let [a, b] = [tri.vertices[k], tri.vertices[(k + 1) % 3]];
                    a.x == 1.0 && b.x == 1.0 && tri.flat & (1 << k) != 0
                })
            });
            assert_eq!(across, flat, "{degrees} degrees");
        }
    }

    #[test]
    fn mesh_and_heightfield_queries_find_every_triangle_a_box_meets() {
        let h = |x: Real, z: Real| (0.7 * x).sin() * (0.4 * z).cos();
        let mesh = grid(12, h);
        let heights: Vec<Real> = (0..9)
            .flat_map(|r| (0..13).map(move |c| (c as Real * 0.3 + r as Real).sin()))
            .collect();
        let field = HeightField::new(9, 13, heights, Vector3::new(12.0, 0.8, 8.0)).unwrap();
        let mut state = 3;
        for _ in 0..500 {
            let c = Point3::new(
                unit(&mut state) * 16.0 - 2.0,
                unit(&mut state) * 3.0 - 1.5,
                unit(&mut state) * 16.0 - 2.0,
            );
            let half = Vector3::new(unit(&mut state), unit(&mut state), unit(&mut state)) * 2.0;
            let query = Aabb::new(c - half, c + half);
            let mut found = Vec::new();
            mesh.query(&query, |t| found.push(t));
            found.sort_unstable();
            let expected: Vec<u32> = (0..mesh.triangles().len() as u32)
                .filter(|&t| {
                    Aabb::from_points(&mesh.triangle(t).vertices)
                        .unwrap()
                        .intersects(&query)
                })
                .collect();
            assert_eq!(found, expected);
            // The heightfield reports whole cells: every triangle whose box meets the query,
            // and only triangles of cells whose footprint meets it and whose highest point is
            // not below it (a box under the ground meets the cells above it).
            let mut cells = Vec::new();
            field.query(&query, |t| cells.push(t));
            for t in 0..2 * 8 * 12 {
                let b = Aabb::from_points(&field.triangle(t).vertices).unwrap();
                if b.intersects(&query) {
                    assert!(cells.contains(&t), "triangle {t} missed");
                }
            }
            for &t in &cells {
                let cell = t / 2;
                let both = [2 * cell, 2 * cell + 1].map(|t| field.triangle(t).vertices);
                let b = Aabb::from_points(&[both[0], both[1]].concat()).unwrap();
                let floor = b.mins.y.min(query.mins.y) - 1.0;
                let below = Aabb::new(Point3::new(b.mins.x, floor, b.mins.z), b.maxs);
                assert!(
                    below.loosened(1e-4).intersects(&query),
                    "cell of {t} reported"
                );
            }
        }
    }

    #[test]
    fn heightfield_triangles_face_up_and_sit_on_their_samples() {
        let field = HeightField::new(
            3,
            4,
            (0..12).map(|i| i as Real * 0.1).collect(),
            Vector3::new(6.0, 2.0, 4.0),
        )
        .unwrap();
        assert_eq!(field.sample(0, 0), Point3::new(-3.0, 0.0, -2.0));
        assert_eq!(field.sample(2, 3), Point3::new(3.0, 2.2, 2.0));
        for t in 0..12 {
            assert!(field.triangle(t).normal().y > 0.5);
        }
        assert_eq!(field.local_aabb().maxs, Point3::new(3.0, 2.2, 2.0));
    }
}
