//! A ball, a box or a capsule against a surface (a triangle mesh or a heightfield): the triangles near
//! the shape, each tested alone (`pair::triangle`), the contacts of internal edges dropped,
//! and what is left merged into one manifold. World space; the normal points from the
//! surface toward the shape.
//!
//! Ghost contacts, after Box3D (`mesh_contact.c`): a shape sliding across the shared edge of
//! two flush triangles also meets the next triangle at that edge, and a contact there would
//! point along the edge's normal instead of the face's: a bump. A triangle's contact is kept
//! at once when its feature is the triangle's face (or, for a box, a box face lying against
//! the triangle within 60 degrees, or sunk deeper than two slops); the others are tentative.
//! A ball's or a capsule's tentative contacts are taken closest first, each kept only when its edge or
//! corner is not one a kept contact's triangle already has. A box's are dropped when every
//! edge of their triangle is flat, or when one of its flat edges belongs to a kept triangle;
//! no normal is ever invented. The kept contacts are grouped by normal (and by their
//! triangles' normals) within [`CLUSTER_COS`], and each group is a manifold of at most four
//! points, as Box3D makes them: a shape in a crease between two differently facing triangles
//! is held by both.

use super::hull::Poly;
use super::triangle::{
    Feature, TriangleContact, box_triangle, capsule_triangle, hull_triangle, sphere_triangle,
};
use crate::contact::{Contact, ContactPoint, FeatureId};
use arrayvec::ArrayVec;
use geom::{Capsule, Obb, PosedHull, PosedSurface, Real, Sphere, Surface, Triangle, Vector3};

/// Contacts (and triangles) whose normals agree to this cosine are one group.
const CLUSTER_COS: Real = 0.996;
/// Box3D's linear slop (metres): a box face sunk deeper than two of these is kept.
const SLOP: Real = 0.005;

/// What the surface test does with the other shape.
#[derive(Clone, Copy)]
pub(crate) enum Other<'a> {
    Sphere(&'a Sphere),
    Obb(&'a Obb),
    Capsule(&'a Capsule),
    Hull(&'a PosedHull),
}

/// One triangle's contact and what the filter needs of its triangle.
struct Found {
    index: u32,
    triangle: Triangle,
    normal: Vector3,
    contact: TriangleContact,
}

/// The ids of edges and corners that kept contacts' triangles have, each once.
#[derive(Default)]
struct Seen {
    edges: Vec<(u32, u32)>,
    corners: Vec<u32>,
}

impl Seen {
    fn edge(ids: &[u32; 3], k: usize) -> (u32, u32) {
        let (i, j) = (ids[k], ids[(k + 1) % 3]);
        (i.min(j), i.max(j))
    }

    /// Adds the triangle's edges and corners.
    fn add_all(&mut self, ids: &[u32; 3]) {
        for k in 0..3 {
            self.add_edge(Self::edge(ids, k));
            self.add_corner(ids[k]);
        }
    }

    /// Whether `edge` was new (it is added).
    fn add_edge(&mut self, edge: (u32, u32)) -> bool {
        let new = !self.edges.contains(&edge);
        if new {
            self.edges.push(edge);
        }
        new
    }

    /// Whether `corner` was new (it is added).
    fn add_corner(&mut self, corner: u32) -> bool {
        let new = !self.corners.contains(&corner);
        if new {
            self.corners.push(corner);
        }
        new
    }
}

/// The contacts of `other` with the posed surface, speculative up to `margin`: a manifold per
/// group of normals (see [`manifolds`]), none when apart.
pub(crate) fn surface_contacts_within<S: Surface>(
    surface: &PosedSurface<S>,
    other: Other<'_>,
    margin: Real,
) -> ArrayVec<Contact, MAX_MANIFOLDS> {
    let aabb = match other {
        Other::Sphere(s) => s.aabb(),
        Other::Obb(b) => b.aabb(),
        Other::Capsule(c) => c.aabb(),
        Other::Hull(h) => h.aabb(),
    };
    let poly = match other {
        Other::Hull(h) => Some(Poly::of_hull(&h.hull, &h.pose)),
        Other::Sphere(_) | Other::Obb(_) | Other::Capsule(_) => None,
    };
    let pose = &surface.pose;
    let local = aabb.loosened(margin).transformed(&pose.inverse());
    let solid = surface.surface.solid_below();
    let mut found: Vec<Found> = Vec::new();
    surface.surface.query(&local, |index| {
        let triangle = surface.surface.triangle(index);
        let world = triangle.vertices.map(|v| pose * v);
        let normal = pose.rotation * triangle.normal();
        let contact = match other {
            Other::Sphere(s) => sphere_triangle(s, &world, &normal, margin, solid),
            Other::Obb(b) => box_triangle(b, &world, &normal, margin, solid),
            Other::Capsule(c) => capsule_triangle(c, &world, &normal, margin, solid),
            Other::Hull(_) => poly
                .as_ref()
                .and_then(|p| hull_triangle(p, &world, &normal, margin, solid)),
        };
        if let Some(contact) = contact {
            found.push(Found {
                index,
                triangle,
                normal,
                contact,
            });
        }
    });
    manifolds(&filter(
        found,
        matches!(other, Other::Sphere(_) | Other::Capsule(_)),
    ))
}

/// The contacts kept of those found (see the module documentation), in the order kept;
/// `round`: a ball or a capsule, whose tentative contacts are a closest point each.
fn filter(found: Vec<Found>, round: bool) -> Vec<Found> {
    let mut seen = Seen::default();
    let mut kept = Vec::with_capacity(found.len());
    let mut tentative = Vec::new();
    for f in found {
        let face = match f.contact.feature {
            Feature::Face => true,
            Feature::BoxFace => {
                f.normal.dot(&f.contact.normal) > 0.5 || deepest(&f.contact.points) > 2.0 * SLOP
            }
            Feature::Edge(_) | Feature::Vertex(_) => false,
        };
        if face {
            seen.add_all(&f.triangle.ids);
            kept.push(f);
        } else {
            tentative.push(f);
        }
    }
    if round {
        tentative.sort_by(|a, b| {
            a.contact
                .distance_sq
                .total_cmp(&b.contact.distance_sq)
                .then(a.index.cmp(&b.index))
        });
        for f in tentative {
            let ids = f.triangle.ids;
            let new_edges = [0, 1, 2].map(|k| seen.add_edge(Seen::edge(&ids, k)));
            let new_corners = ids.map(|i| seen.add_corner(i));
            let keep = match f.contact.feature {
                Feature::Edge(k) => new_edges[k as usize],
                Feature::Vertex(k) => new_corners[k as usize],
                Feature::Face | Feature::BoxFace => true,
            };
            if keep {
                kept.push(f);
            }
        }
    } else {
        for f in tentative {
            let flat = f.triangle.flat;
            let covered = (0..3).any(|k| {
                flat & (1 << k) != 0 && seen.edges.contains(&Seen::edge(&f.triangle.ids, k))
            });
            if flat != Triangle::ALL_FLAT && !covered {
                kept.push(f);
            }
        }
    }
    kept
}

/// The most manifolds a shape keeps against one surface (the deepest groups): a box on rough
/// ground meets many differently facing triangles, and each manifold is a constraint.
pub(crate) const MAX_MANIFOLDS: usize = 4;

/// The deepest point's depth of a set of points.
fn deepest(points: &[ContactPoint]) -> Real {
    points
        .iter()
        .map(|p| p.depth)
        .fold(Real::NEG_INFINITY, Real::max)
}

/// The kept contacts grouped as Box3D groups them: each joins the first group whose normal and
/// triangle normal both agree with its own within [`CLUSTER_COS`], or starts one. A group is
/// one manifold: its first member's normal, its members' points reduced to four (ids made
/// distinct per triangle: the low 20 bits of the triangle's index above the local id's 12
/// bits; two triangles a million apart in one manifold could share an id, which only costs a
/// warm start). At most [`MAX_MANIFOLDS`], the deepest, in the order their groups began.
fn manifolds(kept: &[Found]) -> ArrayVec<Contact, MAX_MANIFOLDS> {
    let mut groups: Vec<(Vector3, Vector3, Vec<ContactPoint>)> = Vec::new();
    for f in kept {
        let at = groups.iter().position(|(normal, triangle_normal, _)| {
            f.contact.normal.dot(normal) > CLUSTER_COS
                && f.normal.dot(triangle_normal) > CLUSTER_COS
        });
        let at = at.unwrap_or_else(|| {
            groups.push((f.contact.normal, f.normal, Vec::new()));
            groups.len() - 1
        });
        groups[at]
            .2
            .extend(f.contact.points.iter().map(|p| ContactPoint {
                id: FeatureId((f.index & 0xf_ffff) << 12 | p.id.0),
                ..*p
            }));
    }
    if groups.len() > MAX_MANIFOLDS {
        // The deepest groups, kept in their order (a stable sort: ties to the first).
        let mut order: Vec<usize> = (0..groups.len()).collect();
        order.sort_by(|&a, &b| deepest(&groups[b].2).total_cmp(&deepest(&groups[a].2)));
        order.truncate(MAX_MANIFOLDS);
        order.sort_unstable();
        let mut k = 0;
        groups.retain(|_| {
            k += 1;
            order.contains(&(k - 1))
        });
    }
    groups
        .into_iter()
        .map(|(normal, _, points)| {
            let points = reduce(&points, &normal);
            Contact {
                normal,
                depth: deepest(&points),
                points,
            }
        })
        .collect()
}

/// At most four of `points`, chosen to keep the manifold wide and steady: the deepest, the
/// one farthest from it across the normal, the one making the largest triangle with those,
/// and the one adding the most area outside that triangle. Ties go to the first.
pub(crate) fn reduce(points: &[ContactPoint], normal: &Vector3) -> ArrayVec<ContactPoint, 4> {
    let mut out = ArrayVec::new();
    if points.len() <= 4 {
        out.extend(points.iter().copied());
        return out;
    }
    let flat = |p: &ContactPoint| {
        let v = p.position.coords;
        v - normal * v.dot(normal)
    };
    let area = |a: &ContactPoint, b: &ContactPoint, c: &ContactPoint| {
        (flat(b) - flat(a)).cross(&(flat(c) - flat(a))).dot(normal)
    };
    let argmax = |score: &dyn Fn(&ContactPoint) -> Real| {
        (0..points.len())
            .rev()
            .max_by(|&p, &q| score(&points[p]).total_cmp(&score(&points[q])))
            .unwrap_or(0)
    };
    // Points closer than this (squared metres, or twice an area) add nothing.
    let tiny = 1e-10;
    let p0 = points[argmax(&|p| p.depth)];
    out.push(p0);
    let p1 = points[argmax(&|p| (flat(p) - flat(&p0)).norm_squared())];
    if (flat(&p1) - flat(&p0)).norm_squared() <= tiny {
        return out;
    }
    out.push(p1);
    let p2 = points[argmax(&|p| area(&p0, &p1, p).abs())];
    if area(&p0, &p1, &p2).abs() <= tiny {
        return out;
    }
    out.push(p2);
    let s = if area(&p0, &p1, &p2) < 0.0 { -1.0 } else { 1.0 };
    let gain = |p: &ContactPoint| {
        (-s * area(&p0, &p1, p))
            .max(-s * area(&p1, &p2, p))
            .max(-s * area(&p2, &p0, p))
    };
    let p3 = points[argmax(&gain)];
    if gain(&p3) > tiny {
        out.push(p3);
    }
    out
}
