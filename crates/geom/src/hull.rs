//! Convex hulls in 3D, built from a point cloud by quickhull (C. B. Barber, D. P. Dobkin and
//! H. Huhdanpaa, "The Quickhull Algorithm for Convex Hulls", ACM TOMS 1996), in f64: points
//! closer than [`WELD_DISTANCE`] welded, points within a relative tolerance of a face taken
//! as on it, coplanar triangles merged into polygons, and the result kept as a half-edge mesh
//! with each face's plane, for the separating axis test. Mass properties by the divergence
//! theorem over tetrahedra (Mirtich 1996; Eberly, "Polyhedral Mass Properties (Revisited)").

use crate::{Aabb, GeomError, MassProperties, Point3, Real, Vector3, validate};
use nalgebra as na;

type V64 = na::Vector3<f64>;

/// The most vertices a hull keeps (Box3D's cap): the SAT is quadratic in its edges.
pub const MAX_HULL_VERTICES: usize = 128;
/// The most points a hull is built from.
pub const MAX_HULL_POINTS: usize = 1 << 16;
/// Points closer than this (metres) are one point.
pub const WELD_DISTANCE: Real = 1e-4;
/// Adjacent triangles whose normals agree to this cosine (and whose corners lie on one
/// plane within the tolerance) are one face.
const COPLANAR_COS: f64 = 1.0 - 1e-6;

/// One half of an edge: from `origin` to the origin of `next`, with `face` on its left (seen
/// from outside, faces wind counter-clockwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HalfEdge {
    /// The vertex it starts at.
    pub origin: u16,
    /// The same edge the other way, on the neighbouring face.
    pub twin: u16,
    /// The next half-edge around its face.
    pub next: u16,
    /// The face it bounds.
    pub face: u16,
}

/// A face: one of its half-edges, and its plane (`normal . x = offset`, normal unit and
/// outward).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HullFace {
    /// A half-edge of the face.
    pub edge: u16,
    /// The outward unit normal.
    pub normal: Vector3,
    /// `normal . x` for any point `x` of the face.
    pub offset: Real,
}

/// An edge for the pair tests: its half-edge of lower index, its two ends (the half-edge's
/// origin first) and the faces on either side (the half-edge's, its twin's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HullEdge {
    /// The half-edge.
    pub half_edge: u16,
    /// The vertex it starts at.
    pub start: u16,
    /// The vertex it ends at.
    pub end: u16,
    /// The half-edge's face.
    pub face: u16,
    /// Its twin's face.
    pub twin_face: u16,
}

/// A convex polyhedron: vertices, half-edges and faces, in its own frame.
#[derive(Debug, Clone, PartialEq)]
pub struct ConvexHull {
    vertices: Vec<Point3>,
    edges: Vec<HalfEdge>,
    faces: Vec<HullFace>,
    /// The vertices' box, kept: the narrow phase asks for it every pair.
    aabb: Aabb,
    /// Derived for the pair tests (see [`ConvexHull::edge_list`],
    /// [`ConvexHull::edge_arc_secants`], [`ConvexHull::inner_ball`]).
    edge_list: Vec<HullEdge>,
    arc_secants: Vec<Real>,
    widest_secant: Real,
    face_edges: Vec<u16>,
    face_edge_starts: Vec<u16>,
    normals: Vec<Vector3>,
    plane_offsets: Vec<Real>,
    face_first_vertex: Vec<u16>,
    vertex_edge: Vec<u16>,
    bounding_radius: Real,
    centre: Point3,
    inner: Real,
    outer: Real,
}

/// A triangle being built: corners, plane, the points outside it.
struct Tri {
    v: [usize; 3],
    normal: V64,
    offset: f64,
    outside: Vec<usize>,
    alive: bool,
}

impl Tri {
    fn new(p: &[V64], v: [usize; 3]) -> Self {
        let normal = (p[v[1]] - p[v[0]]).cross(&(p[v[2]] - p[v[0]])).normalize();
        Self {
            v,
            normal,
            offset: normal.dot(&p[v[0]]),
            outside: Vec::new(),
            alive: true,
        }
    }

    fn distance(&self, q: &V64) -> f64 {
        self.normal.dot(q) - self.offset
    }
}

fn degenerate(why: &'static str) -> GeomError {
    GeomError::Degenerate {
        field: "points".into(),
        why,
    }
}

/// The points welded: each kept unless within [`WELD_DISTANCE`] of one kept before it.
fn welded(points: &[Point3]) -> Vec<V64> {
    let weld_sq = f64::from(WELD_DISTANCE).powi(2);
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| points[a].x.total_cmp(&points[b].x).then(a.cmp(&b)));
    let mut kept: Vec<(usize, V64)> = Vec::new();
    let mut window_start = 0;
    for i in order {
        let q = points[i].coords.cast::<f64>();
        while window_start < kept.len() && q.x - kept[window_start].1.x > f64::from(WELD_DISTANCE) {
            window_start += 1;
        }
        if !kept[window_start..]
            .iter()
            .any(|(_, k)| (k - q).norm_squared() <= weld_sq)
        {
            kept.push((i, q));
        }
    }
    kept.sort_by_key(|(i, _)| *i);
    kept.into_iter().map(|(_, q)| q).collect()
}

/// The starting tetrahedron's corners: the farthest pair of axis extremes, the point
/// farthest from their line, the point farthest from their plane.
fn simplex(p: &[V64], tolerance: f64) -> Result<[usize; 4], GeomError> {
    let mut extremes = Vec::with_capacity(6);
    for k in 0..3 {
        let lo = (0..p.len()).min_by(|&a, &b| p[a][k].total_cmp(&p[b][k]));
        let hi = (0..p.len()).max_by(|&a, &b| p[a][k].total_cmp(&p[b][k]));
        extremes.extend(lo.into_iter().chain(hi));
    }
    let (mut i0, mut i1, mut best) = (0, 0, -1.0);
    for &a in &extremes {
        for &b in &extremes {
            let d = (p[a] - p[b]).norm_squared();
            if d > best {
                (i0, i1, best) = (a, b, d);
            }
        }
    }
    if best.sqrt() <= tolerance {
        return Err(degenerate("they all lie at one point"));
    }
    let axis = (p[i1] - p[i0]).normalize();
    let off_line = |q: &V64| {
        let d = q - p[i0];
        (d - axis * d.dot(&axis)).norm()
    };
    let i2 = (0..p.len())
        .max_by(|&a, &b| off_line(&p[a]).total_cmp(&off_line(&p[b])))
        .unwrap_or(0);
    if off_line(&p[i2]) <= tolerance {
        return Err(degenerate("they lie on one line"));
    }
    let normal = (p[i1] - p[i0]).cross(&(p[i2] - p[i0])).normalize();
    let off_plane = |q: &V64| normal.dot(&(q - p[i0])).abs();
    let i3 = (0..p.len())
        .max_by(|&a, &b| off_plane(&p[a]).total_cmp(&off_plane(&p[b])))
        .unwrap_or(0);
    if off_plane(&p[i3]) <= tolerance {
        return Err(degenerate("they lie in one plane"));
    }
    Ok([i0, i1, i2, i3])
}

/// The hull's triangles by quickhull (outward, counter-clockwise), or an error when the
/// points span no volume.
fn quickhull(p: &[V64], tolerance: f64) -> Result<Vec<[usize; 3]>, GeomError> {
    let [i0, i1, i2, i3] = simplex(p, tolerance)?;
    let centre = (p[i0] + p[i1] + p[i2] + p[i3]) / 4.0;
    let mut tris: Vec<Tri> = [[i0, i1, i2], [i0, i3, i1], [i1, i3, i2], [i2, i3, i0]]
        .into_iter()
        .map(|v| {
            let t = Tri::new(p, v);
            if t.distance(&centre) > 0.0 {
                Tri::new(p, [v[0], v[2], v[1]])
            } else {
                t
            }
        })
        .collect();
    let assign = |tris: &mut Vec<Tri>, from: usize, points: &[usize]| {
        for &q in points {
            let best = (from..tris.len())
                .filter(|&t| tris[t].alive)
                .map(|t| (t, tris[t].distance(&p[q])))
                .filter(|&(_, d)| d > tolerance)
                .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
            if let Some((t, _)) = best {
                tris[t].outside.push(q);
            }
        }
    };
    let others: Vec<usize> = (0..p.len())
        .filter(|i| ![i0, i1, i2, i3].contains(i))
        .collect();
    assign(&mut tris, 0, &others);
    // Each round adds one point, so rounds are bounded by the points.
    for _ in 0..p.len() {
        let Some(t) = tris.iter().position(|t| t.alive && !t.outside.is_empty()) else {
            return Ok(tris.iter().filter(|t| t.alive).map(|t| t.v).collect());
        };
        let eye = *tris[t]
            .outside
            .iter()
            .max_by(|&&a, &&b| {
                tris[t]
                    .distance(&p[a])
                    .total_cmp(&tris[t].distance(&p[b]))
                    .then(b.cmp(&a))
            })
            .unwrap_or(&0);
        let visible: Vec<usize> = (0..tris.len())
            .filter(|&k| tris[k].alive && tris[k].distance(&p[eye]) > tolerance)
            .collect();
        let mut edges: Vec<(usize, usize)> = visible
            .iter()
            .flat_map(|&k| {
                let v = tris[k].v;
                [(v[0], v[1]), (v[1], v[2]), (v[2], v[0])]
            })
            .collect();
        let mut sorted = edges.clone();
        sorted.sort_unstable();
        edges.retain(|&(a, b)| sorted.binary_search(&(b, a)).is_err());
        let mut orphans = Vec::new();
        for &k in &visible {
            tris[k].alive = false;
            orphans.append(&mut tris[k].outside);
        }
        orphans.retain(|&q| q != eye);
        let first = tris.len();
        for (a, b) in edges {
            tris.push(Tri::new(p, [a, b, eye]));
        }
        assign(&mut tris, first, &orphans);
    }
    Err(degenerate("quickhull did not finish"))
}

/// Groups of coplanar neighbouring triangles, each as its boundary loop (counter-clockwise
/// from outside), seeds taken in triangle order.
fn merged_faces(
    p: &[V64],
    tris: &[[usize; 3]],
    tolerance: f64,
) -> Result<Vec<Vec<usize>>, GeomError> {
    let mut keys: Vec<((usize, usize), usize)> = tris
        .iter()
        .enumerate()
        .flat_map(|(t, v)| [((v[0], v[1]), t), ((v[1], v[2]), t), ((v[2], v[0]), t)])
        .collect();
    keys.sort_unstable();
    let neighbour = |a: usize, b: usize| {
        keys.binary_search_by(|probe| probe.0.cmp(&(b, a)))
            .ok()
            .map(|at| keys[at].1)
    };
    let planes: Vec<Tri> = tris.iter().map(|v| Tri::new(p, *v)).collect();
    let mut group = vec![usize::MAX; tris.len()];
    let mut faces = Vec::new();
    for seed in 0..tris.len() {
        if group[seed] != usize::MAX {
            continue;
        }
        let id = faces.len();
        group[seed] = id;
        let (mut members, mut at) = (vec![seed], 0);
        while at < members.len() {
            let v = tris[members[at]];
            at += 1;
            for (a, b) in [(v[0], v[1]), (v[1], v[2]), (v[2], v[0])] {
                let Some(u) = neighbour(a, b) else {
                    return Err(degenerate("their hull is not closed"));
                };
                let flat = planes[u].normal.dot(&planes[seed].normal) > COPLANAR_COS
                    && tris[u]
                        .iter()
                        .all(|&w| planes[seed].distance(&p[w]).abs() <= tolerance);
                if group[u] == usize::MAX && flat {
                    group[u] = id;
                    members.push(u);
                }
            }
        }
        // The boundary: members' edges whose twin lies outside the group, chained.
        let mut boundary: Vec<(usize, usize)> = members
            .iter()
            .flat_map(|&t| {
                let v = tris[t];
                [(v[0], v[1]), (v[1], v[2]), (v[2], v[0])]
            })
            .filter(|&(a, b)| neighbour(a, b).is_none_or(|u| group[u] != id))
            .collect();
        boundary.sort_unstable();
        let start = boundary[0].0;
        let mut loop_ = vec![start];
        let mut current = boundary[0].1;
        while current != start {
            if loop_.len() > boundary.len() {
                return Err(degenerate("their hull has a face that is not convex"));
            }
            loop_.push(current);
            let at = boundary.partition_point(|e| e.0 < current);
            if at >= boundary.len() || boundary[at].0 != current {
                return Err(degenerate("their hull has a face that is not convex"));
            }
            current = boundary[at].1;
        }
        if loop_.len() != boundary.len() {
            return Err(degenerate("their hull has a face that is not convex"));
        }
        faces.push(loop_);
    }
    Ok(faces)
}

impl ConvexHull {
    /// The convex hull of `points` (a body's frame): at least 4 points spanning a volume, all
    /// finite, at most [`MAX_HULL_POINTS`], whose hull has at most [`MAX_HULL_VERTICES`]
    /// vertices. Points within [`WELD_DISTANCE`] of each other are welded; points inside or
    /// on the hull (within a tolerance relative to its size) are dropped. Errors name what
    /// was wrong: a NaN point, too few or too many, all on a point, a line or a plane.
    pub fn new(points: &[Point3]) -> Result<Self, GeomError> {
        // Built again from its own vertices, so that a hull read back from its vertices (a
        // snapshot keeps only those) is this one, half-edge for half-edge.
        let first = Self::build(points)?;
        Self::build(&first.vertices)
    }

    fn build(points: &[Point3]) -> Result<Self, GeomError> {
        validate::points3("points", points, 4)?;
        if points.len() > MAX_HULL_POINTS {
            return Err(GeomError::TooMany {
                field: "points".into(),
                most: MAX_HULL_POINTS,
                got: points.len(),
            });
        }
        let p = welded(points);
        if p.len() < 4 {
            return Err(degenerate("fewer than 4 remain apart once welded"));
        }
        let extent = p.iter().map(|q| q.amax()).fold(0.0, f64::max);
        let tolerance = 1e-6 * extent.max(1.0);
        let tris = quickhull(&p, tolerance)?;
        let loops = merged_faces(&p, &tris, 1e-5 * extent.max(1.0))?;
        // The vertices used, in the order of the points they came from.
        let mut used: Vec<usize> = loops.iter().flatten().copied().collect();
        used.sort_unstable();
        used.dedup();
        if used.len() > MAX_HULL_VERTICES {
            return Err(GeomError::TooMany {
                field: "hull vertices".into(),
                most: MAX_HULL_VERTICES,
                got: used.len(),
            });
        }
        let index = |v: usize| used.binary_search(&v).unwrap_or(0) as u16;
        let vertices: Vec<Point3> = used
            .iter()
            .map(|&v| Point3::from(p[v].cast::<Real>()))
            .collect();
        let mut edges = Vec::new();
        let mut faces = Vec::new();
        for (f, loop_) in loops.iter().enumerate() {
            let first = edges.len();
            // Newell's normal, in f64, and the mean offset of the face's corners.
            let mut normal = V64::zeros();
            for (k, &a) in loop_.iter().enumerate() {
                let (qa, qb) = (p[a], p[loop_[(k + 1) % loop_.len()]]);
                normal += V64::new(
                    (qa.y - qb.y) * (qa.z + qb.z),
                    (qa.z - qb.z) * (qa.x + qb.x),
                    (qa.x - qb.x) * (qa.y + qb.y),
                );
            }
            let normal = normal.normalize();
            let offset = loop_.iter().map(|&a| normal.dot(&p[a])).sum::<f64>() / loop_.len() as f64;
            for (k, &a) in loop_.iter().enumerate() {
                edges.push(HalfEdge {
                    origin: index(a),
                    twin: u16::MAX,
                    next: (first + (k + 1) % loop_.len()) as u16,
                    face: f as u16,
                });
            }
            faces.push(HullFace {
                edge: first as u16,
                normal: normal.cast::<Real>(),
                offset: offset as Real,
            });
        }
        // Twins: each half-edge's reverse, found in the sorted list of (origin, end).
        let mut keyed: Vec<((u16, u16), u16)> = (0..edges.len())
            .map(|e| {
                (
                    (edges[e].origin, edges[usize::from(edges[e].next)].origin),
                    e as u16,
                )
            })
            .collect();
        keyed.sort_unstable();
        for e in 0..edges.len() {
            let (a, b) = (edges[e].origin, edges[usize::from(edges[e].next)].origin);
            let Ok(at) = keyed.binary_search_by(|probe| probe.0.cmp(&(b, a))) else {
                return Err(degenerate("their hull is not closed"));
            };
            edges[e].twin = keyed[at].1;
        }
        if vertices.len() + faces.len() != edges.len() / 2 + 2 {
            return Err(degenerate("their hull is not a closed polyhedron"));
        }
        let aabb =
            Aabb::from_points(&vertices).unwrap_or(Aabb::new(Point3::origin(), Point3::origin()));
        Ok(Self::derived(vertices, edges, faces, aabb))
    }

    /// The hull of these parts, with what the pair tests read derived from them.
    fn derived(
        vertices: Vec<Point3>,
        edges: Vec<HalfEdge>,
        faces: Vec<HullFace>,
        aabb: Aabb,
    ) -> Self {
        let edge_list = (0..edges.len())
            .filter(|&e| e < usize::from(edges[e].twin))
            .map(|e| {
                let (edge, twin) = (edges[e], edges[usize::from(edges[e].twin)]);
                HullEdge {
                    half_edge: e as u16,
                    start: edge.origin,
                    end: edges[usize::from(edge.next)].origin,
                    face: edge.face,
                    twin_face: twin.face,
                }
            })
            .collect::<Vec<_>>();
        let arc_secants = edge_list
            .iter()
            .map(|e| {
                let (u, v) = (
                    faces[usize::from(e.face)].normal,
                    faces[usize::from(e.twin_face)].normal,
                );
                let cos_half = ((1.0 + f64::from(u.dot(&v))) / 2.0).max(0.0).sqrt();
                // Rounded up by far more than the f32 rounding of the normals it is used with.
                if cos_half > 1e-6 {
                    (1.0 + 1e-5) / cos_half as Real
                } else {
                    Real::INFINITY
                }
            })
            .collect::<Vec<Real>>();
        let widest_secant = arc_secants.iter().copied().fold(1.0, Real::max);
        // Each face's edges (as indices into the edge list), walking its loop.
        let mut edge_of_half_edge = vec![0u16; edges.len()];
        for (k, e) in edge_list.iter().enumerate() {
            let half = usize::from(e.half_edge);
            edge_of_half_edge[half] = k as u16;
            edge_of_half_edge[usize::from(edges[half].twin)] = k as u16;
        }
        let (mut face_edges, mut face_edge_starts) = (Vec::new(), vec![0u16]);
        for face in &faces {
            let mut at = face.edge;
            // (At most every half-edge: a loop that never closes is cut, not followed forever.)
            for _ in 0..edges.len() {
                face_edges.push(edge_of_half_edge[usize::from(at)]);
                at = edges[usize::from(at)].next;
                if at == face.edge {
                    break;
                }
            }
            face_edge_starts.push(face_edges.len() as u16);
        }
        let normals: Vec<Vector3> = faces.iter().map(|f| f.normal).collect();
        let face_first_vertex: Vec<u16> = (faces.iter())
            .map(|f| edges[usize::from(f.edge)].origin)
            .collect();
        let plane_offsets = (normals.iter().zip(&face_first_vertex))
            .map(|(n, &v)| n.dot(&vertices[usize::from(v)].coords))
            .collect();
        // A half-edge out of each vertex (the first), to walk the faces about it.
        let mut vertex_edge = vec![u16::MAX; vertices.len()];
        for (e, edge) in edges.iter().enumerate().rev() {
            vertex_edge[usize::from(edge.origin)] = e as u16;
        }
        let bounding_radius = vertices
            .iter()
            .map(|v| v.coords.norm())
            .fold(0.0, Real::max);
        let centre = Point3::from(
            vertices.iter().map(|v| v.coords).sum::<Vector3>() / vertices.len() as Real,
        );
        let inner = faces
            .iter()
            .map(|f| f.offset - f.normal.dot(&centre.coords))
            .fold(Real::INFINITY, Real::min)
            .max(0.0);
        let outer = (vertices.iter())
            .map(|v| (v - centre).norm())
            .fold(0.0, Real::max);
        Self {
            vertices,
            edges,
            faces,
            aabb,
            edge_list,
            arc_secants,
            widest_secant,
            face_edges,
            face_edge_starts,
            normals,
            plane_offsets,
            face_first_vertex,
            vertex_edge,
            bounding_radius,
            centre,
            inner,
            outer,
        }
    }

    /// The cube of corners `(+-1, +-1, +-1)`: the topology a box is seen through (its
    /// vertices scaled by the half extents; its faces' normals unchanged).
    pub fn unit_box() -> &'static Self {
        static UNIT_BOX: std::sync::OnceLock<ConvexHull> = std::sync::OnceLock::new();
        UNIT_BOX.get_or_init(|| {
            let corners: Vec<Point3> = (0..8)
                .map(|i| {
                    let s = |bit: usize| if i & bit == 0 { -1.0 } else { 1.0 };
                    Point3::new(s(1), s(2), s(4))
                })
                .collect();
            Self::new(&corners).expect("a cube is a hull")
        })
    }

    /// The triangle of corners `(0, 0, 0)`, `(1, 0, 0)`, `(0, 1, 0)` as a flat polyhedron:
    /// its front face (0, normal +z) and its back face (1), three edges each way. A triangle
    /// of a mesh is seen through it, its own corners in place of these.
    pub fn unit_triangle() -> &'static Self {
        static UNIT_TRIANGLE: std::sync::OnceLock<ConvexHull> = std::sync::OnceLock::new();
        UNIT_TRIANGLE.get_or_init(|| {
            // Front: 0 -> 1 -> 2 (half-edges 0, 1, 2); back: 0 -> 2 -> 1 (3, 4, 5).
            let edge = |origin, twin, next, face| HalfEdge {
                origin,
                twin,
                next,
                face,
            };
            Self::derived(
                vec![
                    Point3::origin(),
                    Point3::new(1.0, 0.0, 0.0),
                    Point3::new(0.0, 1.0, 0.0),
                ],
                vec![
                    edge(0, 5, 1, 0),
                    edge(1, 4, 2, 0),
                    edge(2, 3, 0, 0),
                    edge(0, 2, 4, 1),
                    edge(2, 1, 5, 1),
                    edge(1, 0, 3, 1),
                ],
                vec![
                    HullFace {
                        edge: 0,
                        normal: Vector3::z(),
                        offset: 0.0,
                    },
                    HullFace {
                        edge: 3,
                        normal: -Vector3::z(),
                        offset: 0.0,
                    },
                ],
                Aabb::new(Point3::origin(), Point3::new(1.0, 1.0, 0.0)),
            )
        })
    }

    /// A digest of the vertices (FNV-1a over their bits): equal hulls have equal digests.
    pub fn digest(&self) -> u64 {
        self.vertices
            .iter()
            .flat_map(|v| v.coords.iter().map(|x| x.to_bits()))
            .fold(0xcbf2_9ce4_8422_2325, |h, w| {
                (h ^ u64::from(w)).wrapping_mul(0x0000_0100_0000_01b3)
            })
    }

    /// The vertices, in the order of the points they came from.
    pub fn vertices(&self) -> &[Point3] {
        &self.vertices
    }

    /// The half-edges, each face's in a run, counter-clockwise from outside.
    pub fn half_edges(&self) -> &[HalfEdge] {
        &self.edges
    }

    /// The faces with their planes.
    pub fn faces(&self) -> &[HullFace] {
        &self.faces
    }

    /// Each edge once (by its half-edge of lower index, in order), with its ends and faces.
    pub fn edge_list(&self) -> &[HullEdge] {
        &self.edge_list
    }

    /// For each edge of [`ConvexHull::edge_list`], the secant of half the angle between its two
    /// faces' normals `u` and `v` (rounded up; infinite when they are opposite, as a flat
    /// hull's are). A unit vector `l` on the edge's arc of the Gauss map (between `u` and `v`)
    /// has `l . w <= s max(u . w, v . w)` for any `w` where the larger is positive, `s` the
    /// secant: the pair tests' bound on an edge's axes.
    pub fn edge_arc_secants(&self) -> &[Real] {
        &self.arc_secants
    }

    /// The faces about vertex `v`, walking its half-edges (each outgoing one's twin's next).
    pub fn vertex_faces(&self, v: usize) -> impl Iterator<Item = u16> + '_ {
        let first = self.vertex_edge[v];
        let mut at = (first != u16::MAX).then_some(first);
        // (At most every half-edge: a walk that never closes is cut, not followed forever.)
        let mut left = self.edges.len();
        std::iter::from_fn(move || {
            let e = at?;
            let edge = self.edges[usize::from(e)];
            let next = self.edges[usize::from(edge.twin)].next;
            left -= 1;
            at = (next != first && left > 0).then_some(next);
            Some(edge.face)
        })
    }

    /// The largest distance of a vertex from the origin of its frame.
    pub fn bounding_radius(&self) -> Real {
        self.bounding_radius
    }

    /// The faces' normals (each [`HullFace::normal`]), as one array.
    pub fn normals(&self) -> &[Vector3] {
        &self.normals
    }

    /// Each face's offset as the pair tests compute it, in `f32` from the normal and the
    /// face's first vertex (the origin of [`HullFace::edge`]; [`HullFace::offset`] is the mean
    /// over its corners, computed in `f64`).
    pub fn plane_offsets(&self) -> &[Real] {
        &self.plane_offsets
    }

    /// Each face's first vertex (the origin of [`HullFace::edge`]).
    pub fn face_first_vertices(&self) -> &[u16] {
        &self.face_first_vertex
    }

    /// The largest of [`ConvexHull::edge_arc_secants`] (1 for a hull without edges).
    pub fn widest_edge_arc_secant(&self) -> Real {
        self.widest_secant
    }

    /// Face `f`'s edges, as indices into [`ConvexHull::edge_list`], in the order of its loop.
    pub fn face_edges(&self, f: usize) -> &[u16] {
        let (start, end) = (self.face_edge_starts[f], self.face_edge_starts[f + 1]);
        &self.face_edges[usize::from(start)..usize::from(end)]
    }

    /// The mean of the vertices, and the radius of the ball about it that the hull holds (the
    /// least distance from it to a face's plane; 0 for a flat hull).
    pub fn inner_ball(&self) -> (Point3, Real) {
        (self.centre, self.inner)
    }

    /// The largest distance of a vertex from the mean of the vertices: the radius of the ball
    /// about [`ConvexHull::inner_ball`]'s centre that holds the hull.
    pub fn outer_radius(&self) -> Real {
        self.outer
    }

    /// The vertex indices of face `f`, counter-clockwise from outside.
    pub fn face_vertices(&self, f: usize) -> impl Iterator<Item = u16> + '_ {
        let first = self.faces[f].edge;
        let mut e = Some(first);
        std::iter::from_fn(move || {
            let at = e?;
            let edge = self.edges[usize::from(at)];
            e = (edge.next != first).then_some(edge.next);
            Some(edge.origin)
        })
    }

    /// The vertex farthest along `dir` (the first on a tie).
    pub fn support(&self, dir: &Vector3) -> usize {
        (0..self.vertices.len())
            .rev()
            .max_by(|&a, &b| {
                self.vertices[a]
                    .coords
                    .dot(dir)
                    .total_cmp(&self.vertices[b].coords.dot(dir))
            })
            .unwrap_or(0)
    }

    /// Its bounding box in its own frame.
    pub fn local_aabb(&self) -> Aabb {
        self.aabb
    }

    /// The hull as a uniform solid of `density`, in its own frame: the centre of mass where
    /// it is, the tensor about it. Summed over the tetrahedra from a point inside to each
    /// face's triangles (a fan), in f64: `V = sum det / 6`, the first moment
    /// `sum det (a + b + c) / 24`, the second `sum det (a a^T + b b^T + c c^T + s s^T) / 120`
    /// with `s = a + b + c`.
    pub fn mass_properties(&self, density: Real) -> MassProperties {
        let v64: Vec<V64> = self
            .vertices
            .iter()
            .map(|v| v.coords.cast::<f64>())
            .collect();
        let reference = v64.iter().sum::<V64>() / v64.len() as f64;
        let (mut volume, mut first, mut second) =
            (0.0f64, V64::zeros(), na::Matrix3::<f64>::zeros());
        for f in 0..self.faces.len() {
            let corners: Vec<V64> = self
                .face_vertices(f)
                .map(|v| v64[usize::from(v)] - reference)
                .collect();
            for k in 1..corners.len() - 1 {
                let (a, b, c) = (corners[0], corners[k], corners[k + 1]);
                let det = a.dot(&b.cross(&c));
                let s = a + b + c;
                volume += det / 6.0;
                first += s * (det / 24.0);
                second +=
                    (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose())
                        * (det / 120.0);
            }
        }
        let rho = f64::from(density);
        let mass = rho * volume;
        let c = first / volume;
        // About the reference point, then moved to the centre of mass.
        let about_reference = (na::Matrix3::identity() * second.trace() - second) * rho;
        let inertia = about_reference
            - (na::Matrix3::identity() * c.norm_squared() - c * c.transpose()) * mass;
        MassProperties {
            mass: mass as Real,
            center: Point3::from((reference + c).cast::<Real>()),
            inertia: inertia.cast::<Real>(),
        }
    }

    /// Its volume (cubic metres).
    pub fn volume(&self) -> Real {
        self.mass_properties(1.0).mass
    }
}

/// A hull saved as its vertices and read back through [`ConvexHull::new`], which checks them
/// and rebuilds the same hull (for `#[serde(with = ...)]`).
pub mod as_vertices {
    use super::ConvexHull;
    use crate::Point3;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::sync::Arc;

    /// Writes the vertices.
    pub fn serialize<S: Serializer>(hull: &Arc<ConvexHull>, s: S) -> Result<S::Ok, S::Error> {
        hull.vertices().serialize(s)
    }

    /// Reads vertices and builds their hull; an error names what was wrong with them.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Arc<ConvexHull>, D::Error> {
        let points = Vec::<Point3>::deserialize(d)?;
        ConvexHull::new(&points)
            .map(Arc::new)
            .map_err(|e| serde::de::Error::custom(format!("hull: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Matrix3;

    fn cube_corners(h: Vector3) -> Vec<Point3> {
        (0..8)
            .map(|i| {
                Point3::new(
                    if i & 1 == 0 { -h.x } else { h.x },
                    if i & 2 == 0 { -h.y } else { h.y },
                    if i & 4 == 0 { -h.z } else { h.z },
                )
            })
            .collect()
    }

    fn close(a: &Matrix3, b: &Matrix3, relative: Real) -> bool {
        (a - b).abs().max() <= relative * b.abs().max()
    }

    #[test]
    fn a_box_of_corners_is_a_box() {
        let h = Vector3::new(1.0, 0.5, 2.0);
        let mut points = cube_corners(h);
        // Inside, on a face, and near-duplicates: none adds a vertex.
        points.push(Point3::new(0.1, 0.2, -0.3));
        points.push(Point3::new(1.0, 0.1, 0.2));
        points.push(Point3::new(1.0 + 1e-5, 0.5, 2.0));
        let hull = ConvexHull::new(&points).unwrap();
        assert_eq!(hull.vertices().len(), 8);
        assert_eq!(hull.faces().len(), 6);
        assert_eq!(hull.half_edges().len(), 24);
        for (f, face) in hull.faces().iter().enumerate() {
            assert_eq!(hull.face_vertices(f).count(), 4);
            assert!((face.normal.amax() - 1.0).abs() < 1e-6);
            for v in hull.face_vertices(f) {
                let d = face.normal.dot(&hull.vertices()[usize::from(v)].coords) - face.offset;
                assert!(d.abs() < 1e-6);
            }
        }
        for (e, edge) in hull.half_edges().iter().enumerate() {
            assert_eq!(
                usize::from(hull.half_edges()[usize::from(edge.twin)].twin),
                e
            );
            assert_ne!(edge.face, hull.half_edges()[usize::from(edge.twin)].face);
        }
        let props = hull.mass_properties(3.0);
        let cube = crate::Shape::cuboid(h).unwrap().mass_properties(3.0);
        assert!((props.mass - cube.mass).abs() < 1e-4 * cube.mass);
        assert!(props.center.coords.norm() < 1e-5);
        assert!(
            close(&props.inertia, &cube.inertia, 1e-4),
            "{}",
            props.inertia
        );
        assert_eq!(hull.support(&Vector3::new(1.0, 1.0, 1.0)), 7);
    }

    #[test]
    fn a_tetrahedron_matches_the_textbook() {
        // The corner tetrahedron (0, e_x, e_y, e_z) of side a: V = a^3 / 6, centre a / 4 on
        // each axis; about the origin, I_xx = rho a^5 / 30 and I_xy = -rho a^5 / 120 (Tonon,
        // "Explicit exact formulas for the 3-D tetrahedron inertia tensor", 2004).
        let a = 2.0;
        let points = [
            Point3::origin(),
            Point3::new(a, 0.0, 0.0),
            Point3::new(0.0, a, 0.0),
            Point3::new(0.0, 0.0, a),
        ];
        let hull = ConvexHull::new(&points).unwrap();
        assert_eq!((hull.vertices().len(), hull.faces().len()), (4, 4));
        let props = hull.mass_properties(1.0);
        let a5 = a.powi(5);
        assert!((props.mass - a * a * a / 6.0).abs() < 1e-5);
        assert!((props.center.coords - Vector3::repeat(a / 4.0)).norm() < 1e-6);
        let about_origin = props.inertia_about(&Point3::origin());
        let expected = Matrix3::new(
            a5 / 30.0,
            -a5 / 120.0,
            -a5 / 120.0,
            -a5 / 120.0,
            a5 / 30.0,
            -a5 / 120.0,
            -a5 / 120.0,
            -a5 / 120.0,
            a5 / 30.0,
        );
        assert!(close(&about_origin, &expected, 1e-4), "{about_origin}");
    }

    #[test]
    fn an_icosahedron_matches_its_closed_form() {
        // The regular icosahedron of edge 2 (vertices the cyclic permutations of (0, +-1,
        // +-phi)): V = 5 (3 + sqrt 5) / 12 a^3, and I = m a^2 (3 + sqrt 5) / 20 about any
        // axis through its centre.
        let phi = (1.0 + (5.0 as Real).sqrt()) / 2.0;
        let mut points = Vec::new();
        for s in [-1.0, 1.0] {
            for t in [-phi, phi] {
                points.push(Point3::new(0.0, s, t));
                points.push(Point3::new(s, t, 0.0));
                points.push(Point3::new(t, 0.0, s));
            }
        }
        let hull = ConvexHull::new(&points).unwrap();
        assert_eq!((hull.vertices().len(), hull.faces().len()), (12, 20));
        let a: Real = 2.0;
        let root5 = (5.0 as Real).sqrt();
        let props = hull.mass_properties(1.0);
        let volume = 5.0 * (3.0 + root5) / 12.0 * a * a * a;
        assert!(
            (props.mass - volume).abs() < 1e-4 * volume,
            "{}",
            props.mass
        );
        let moment = volume * a * a * (3.0 + root5) / 20.0;
        let expected = Matrix3::identity() * moment;
        assert!(
            close(&props.inertia, &expected, 1e-4),
            "{} {moment}",
            props.inertia
        );
    }

    #[test]
    fn bad_clouds_are_refused_by_name() {
        let flat = [
            Point3::origin(),
            Point3::new(1.0, 0.0, 0.0),
            Point3::new(0.0, 1.0, 0.0),
            Point3::new(1.0, 1.0, 0.0),
            Point3::new(0.5, 0.5, 0.0),
        ];
        let e = ConvexHull::new(&flat).unwrap_err().to_string();
        assert!(e.contains("one plane"), "{e}");
        let line: Vec<Point3> = (0..6).map(|i| Point3::new(i as Real, 0.0, 0.0)).collect();
        assert!(
            ConvexHull::new(&line)
                .unwrap_err()
                .to_string()
                .contains("one line")
        );
        let same = [Point3::new(1.0, 2.0, 3.0); 5];
        assert!(
            ConvexHull::new(&same)
                .unwrap_err()
                .to_string()
                .contains("welded")
        );
        let e = ConvexHull::new(&flat[..3]).unwrap_err().to_string();
        assert!(e.contains("at least 4"), "{e}");
        let mut nan = cube_corners(Vector3::repeat(1.0));
        nan[3].y = Real::NAN;
        let e = ConvexHull::new(&nan).unwrap_err().to_string();
        assert!(e.contains("points[3].y"), "{e}");
        // A sphere of 400 points has more vertices than the cap.
        let ball: Vec<Point3> = (0..400)
            .map(|i| {
                let (u, v) = (i as Real * 0.618_034, i as Real / 400.0);
                let z = 2.0 * v - 1.0;
                let r = (1.0 - z * z).sqrt();
                Point3::new(
                    r * (u * std::f32::consts::TAU).cos(),
                    r * (u * std::f32::consts::TAU).sin(),
                    z,
                )
            })
            .collect();
        let e = ConvexHull::new(&ball).unwrap_err().to_string();
        assert!(e.contains("hull vertices may have at most 128"), "{e}");
    }

    /// A small seeded generator (the tests' own: geom has no dependencies for it).
    fn next(state: &mut u64) -> Real {
        *state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((*state >> 40) as Real) / (1u64 << 24) as Real
    }

    #[test]
    fn each_face_lists_its_edges_and_the_pair_tests_arrays_match_the_faces() {
        let mut state = 5;
        let mut hulls = vec![
            ConvexHull::unit_box().clone(),
            ConvexHull::unit_triangle().clone(),
        ];
        for _ in 0..40 {
            let n = 4 + (next(&mut state) * 40.0) as usize;
            let points: Vec<Point3> = (0..n)
                .map(|_| Point3::new(next(&mut state), next(&mut state), next(&mut state)))
                .collect();
            hulls.extend(ConvexHull::new(&points).ok());
        }
        for hull in &hulls {
            let mut seen = vec![0; hull.edge_list().len()];
            for (f, face) in hull.faces().iter().enumerate() {
                let listed = hull.face_edges(f);
                assert_eq!(listed.len(), hull.face_vertices(f).count());
                for &e in listed {
                    let edge = hull.edge_list()[usize::from(e)];
                    assert!(usize::from(edge.face) == f || usize::from(edge.twin_face) == f);
                    seen[usize::from(e)] += 1;
                }
                assert_eq!(hull.normals()[f], face.normal);
                let first = hull.half_edges()[usize::from(face.edge)].origin;
                assert_eq!(hull.face_first_vertices()[f], first);
                let offset = face.normal.dot(&hull.vertices()[usize::from(first)].coords);
                assert_eq!(hull.plane_offsets()[f].to_bits(), offset.to_bits());
            }
            assert!(seen.iter().all(|&k| k == 2), "every edge on two faces");
            let radius = (hull.vertices().iter()).fold(0.0, |r: Real, v| r.max(v.coords.norm()));
            assert_eq!(hull.bounding_radius(), radius);
            let (centre, _) = hull.inner_ball();
            let outer = (hull.vertices().iter()).fold(0.0, |r: Real, v| r.max((v - centre).norm()));
            assert_eq!(hull.outer_radius(), outer);
            assert!(outer <= radius + (centre.coords.norm()) && outer > 0.0);
            let widest = hull.edge_arc_secants().iter().copied().fold(1.0, Real::max);
            assert_eq!(hull.widest_edge_arc_secant(), widest);
        }
    }

    #[test]
    fn an_edge_arc_secant_bounds_every_axis_on_the_arc() {
        // On random hulls (and the box), every unit vector on an edge's arc between its two
        // faces' normals has `l . w` at most the secant times the larger of `u . w` and `v . w`
        // where that is positive, and at most the larger where it is not: the bound the edge
        // query passes edges over by.
        let mut state = 11;
        let mut hulls = vec![ConvexHull::unit_box().clone()];
        for _ in 0..40 {
            let n = 4 + (next(&mut state) * 40.0) as usize;
            let points: Vec<Point3> = (0..n)
                .map(|_| {
                    Point3::new(
                        next(&mut state),
                        0.3 * next(&mut state),
                        2.0 * next(&mut state),
                    )
                })
                .collect();
            hulls.extend(ConvexHull::new(&points).ok());
        }
        let mut checked = 0;
        for hull in &hulls {
            assert_eq!(hull.edge_arc_secants().len(), hull.edge_list().len());
            for (e, &secant) in hull.edge_list().iter().zip(hull.edge_arc_secants()) {
                let u = hull.faces()[usize::from(e.face)].normal;
                let v = hull.faces()[usize::from(e.twin_face)].normal;
                assert!(secant >= 1.0, "a secant is at least one");
                for _ in 0..20 {
                    let w = Vector3::new(next(&mut state), next(&mut state), next(&mut state))
                        * 4.0
                        - Vector3::repeat(2.0);
                    let most = u.dot(&w).max(v.dot(&w));
                    let bound = if most <= 0.0 { most } else { most * secant };
                    for k in 0..=16 {
                        let t = k as Real / 16.0;
                        let l = (u * (1.0 - t) + v * t).normalize();
                        assert!(l.dot(&w) <= bound + 1e-5, "{} > {bound}", l.dot(&w));
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 100_000, "{checked}");
    }

    #[test]
    fn random_clouds_give_closed_convex_hulls_holding_every_point() {
        let mut state = 3;
        for case in 0..2000 {
            let n = 4 + (next(&mut state) * 61.0) as usize;
            // Some clouds on a sphere or a box's faces: many points on one face or near it.
            let kind = case % 3;
            let points: Vec<Point3> = (0..n)
                .map(|_| {
                    let q = Vector3::new(next(&mut state), next(&mut state), next(&mut state))
                        * 2.0
                        - Vector3::repeat(1.0);
                    match kind {
                        0 => Point3::from(q),
                        1 => Point3::from(q.normalize()),
                        _ => {
                            let mut q = q;
                            let k = (next(&mut state) * 3.0) as usize % 3;
                            q[k] = q[k].signum();
                            Point3::from(q)
                        }
                    }
                })
                .collect();
            let hull = match ConvexHull::new(&points) {
                Ok(hull) => hull,
                Err(e) => {
                    assert!(n < 8, "case {case}: {e}");
                    continue;
                }
            };
            let (v, e, f) = (
                hull.vertices().len(),
                hull.half_edges().len() / 2,
                hull.faces().len(),
            );
            assert_eq!(v + f, e + 2, "case {case}: Euler");
            for (k, face) in hull.faces().iter().enumerate() {
                // Every point behind or on every face; every face convex and planar.
                for p in &points {
                    assert!(
                        face.normal.dot(&p.coords) - face.offset < 1e-4,
                        "case {case}: outside"
                    );
                }
                let corners: Vec<Point3> = hull
                    .face_vertices(k)
                    .map(|i| hull.vertices()[usize::from(i)])
                    .collect();
                for (i, c) in corners.iter().enumerate() {
                    assert!((face.normal.dot(&c.coords) - face.offset).abs() < 1e-4);
                    let (b, d) = (
                        corners[(i + 1) % corners.len()],
                        corners[(i + 2) % corners.len()],
                    );
                    assert!(
                        (b - c).cross(&(d - b)).dot(&face.normal) > -1e-6,
                        "case {case}: a reflex corner"
                    );
                }
            }
            assert!(hull.volume() > 0.0);
            // Read back from its vertices, it is the same hull.
            assert_eq!(
                ConvexHull::new(hull.vertices()).unwrap(),
                hull,
                "case {case}"
            );
        }
    }

    #[test]
    fn the_unit_box_and_triangle_are_closed() {
        for hull in [ConvexHull::unit_box(), ConvexHull::unit_triangle()] {
            for (e, edge) in hull.half_edges().iter().enumerate() {
                let twin = hull.half_edges()[usize::from(edge.twin)];
                assert_eq!(usize::from(twin.twin), e);
                // The twin runs the other way.
                let end = hull.half_edges()[usize::from(edge.next)].origin;
                assert_eq!(twin.origin, end);
                assert_ne!(twin.face, edge.face);
            }
        }
        assert_eq!(ConvexHull::unit_box().faces().len(), 6);
        let t = ConvexHull::unit_triangle();
        let front: Vec<u16> = t.face_vertices(0).collect();
        assert_eq!(front, vec![0, 1, 2]);
    }
}
