//! Convex hulls: a hull made from a box's corners gives the box pair's contact on 10,000
//! seeded pairs; 10,000 random hull pairs (4 to 64 points) agree with an f64 separating axis
//! test over every face and every pair of edges (no pruning) on the depth (within 1e-4
//! relative, or the box pair's bias where it keeps a face), and the push-out leaves them
//! touching.

mod common;

use collide::{hull_hull_contact_within, obb_obb_contact};
use common::{Rng, random_obb, sat64};
use geom::na;
use geom::{ConvexHull, Isometry3, Obb, Point3, Real, Vector3};

const CASES: usize = 10_000;

fn box_hull(o: &Obb) -> (ConvexHull, Isometry3) {
    let h = o.half_extents;
    let corners: Vec<Point3> = (0..8)
        .map(|i| {
            let s = |bit: usize| if i & bit == 0 { -1.0 } else { 1.0 };
            Point3::new(s(1) * h.x, s(2) * h.y, s(4) * h.z)
        })
        .collect();
    (ConvexHull::new(&corners).unwrap(), o.pose())
}

#[test]
fn a_hull_of_a_boxs_corners_gives_the_box_pairs_contact() {
    let mut rng = Rng(40);
    let (mut compared, mut closer) = (0, 0);
    for case in 0..CASES {
        let (a, b) = (random_obb(&mut rng), random_obb(&mut rng));
        let ((ha, pa), (hb, pb)) = (box_hull(&a), box_hull(&b));
        let boxes = obb_obb_contact(&a, &b);
        let hulls = hull_hull_contact_within(&ha, &pa, &hb, &pb, 0.0);
        match (boxes, hulls) {
            (Some(x), Some(y)) => {
                if y.depth < 0.0 {
                    assert!(x.depth.abs() < 1e-4, "case {case}");
                    continue;
                }
                compared += 1;
                let same = (x.depth - y.depth).abs() < 1e-5 && (x.normal - y.normal).norm() < 1e-5;
                if !same {
                    // Two edge axes within the bias of each other: the box pair keeps the
                    // first it met, the hull the deeper. Both within the bias of the exact
                    // depth, the hull's the closer.
                    let exact = -sat64(&a, &b).0 as Real;
                    let bias = 1e-3 * exact + 1e-5 * (a.half_extents.max() + b.half_extents.max());
                    assert!(
                        (y.depth - exact).abs() <= (x.depth - exact).abs() + 1e-6
                            && (x.depth - exact).abs() <= bias + 1e-6,
                        "case {case}: depth {} normal {:?} against {} {:?}, exact {exact}",
                        y.depth,
                        y.normal,
                        x.depth,
                        x.normal
                    );
                    closer += 1;
                }
            }
            (None, None) => {}
            (x, y) => {
                let depth = x.or(y).map(|c| c.depth).unwrap_or(0.0);
                assert!(depth.abs() < 1e-4, "case {case}: {depth} on one side only");
            }
        }
    }
    // Measured: 10 of the 7,024 overlapping pairs.
    assert!(
        compared > 2000 && closer * 200 < compared,
        "{closer} of {compared}"
    );
}

/// A hull in f64 for the referee: world vertices, face normals, edge directions.
struct Referee {
    vertices: Vec<na::Vector3<f64>>,
    normals: Vec<na::Vector3<f64>>,
    edges: Vec<na::Vector3<f64>>,
}

impl Referee {
    fn new(hull: &ConvexHull, pose: &Isometry3) -> Self {
        let to64 = |v: Vector3| na::Vector3::new(f64::from(v.x), f64::from(v.y), f64::from(v.z));
        let vertices = hull
            .vertices()
            .iter()
            .map(|v| to64((pose * v).coords))
            .collect();
        let normals = hull
            .faces()
            .iter()
            .map(|f| to64(pose.rotation * f.normal).normalize())
            .collect();
        let edges = hull
            .half_edges()
            .iter()
            .map(|e| {
                let next = hull.half_edges()[usize::from(e.next)].origin;
                to64(
                    pose.rotation
                        * (hull.vertices()[usize::from(next)]
                            - hull.vertices()[usize::from(e.origin)]),
                )
            })
            .collect();
        Self {
            vertices,
            normals,
            edges,
        }
    }

    fn interval(&self, l: &na::Vector3<f64>) -> (f64, f64) {
        self.vertices
            .iter()
            .map(|v| v.dot(l))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
                (lo.min(x), hi.max(x))
            })
    }
}

/// The largest gap between the two hulls' projections over every face normal and every
/// cross of two edges: minus the penetration depth when they overlap.
fn gap64(a: &Referee, b: &Referee) -> f64 {
    let mut axes: Vec<na::Vector3<f64>> = a.normals.iter().chain(&b.normals).copied().collect();
    for x in &a.edges {
        for y in &b.edges {
            let l = x.cross(y);
            if l.norm() > 1e-9 * x.norm() * y.norm() {
                axes.push(l.normalize());
            }
        }
    }
    axes.iter()
        .map(|l| {
            let ((alo, ahi), (blo, bhi)) = (a.interval(l), b.interval(l));
            (blo - ahi).max(alo - bhi)
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

fn random_hull(rng: &mut Rng) -> (ConvexHull, Isometry3) {
    loop {
        let n = 4 + (rng.range(0.0, 61.0) as usize);
        let scale = Vector3::new(
            rng.range(0.3, 1.5),
            rng.range(0.3, 1.5),
            rng.range(0.3, 1.5),
        );
        let points: Vec<Point3> = (0..n)
            .map(|_| Point3::from(rng.point(1.0).coords.component_mul(&scale)))
            .collect();
        if let Ok(hull) = ConvexHull::new(&points) {
            let pose = Isometry3::from_parts(
                na::Translation3::from(rng.point(1.5).coords),
                rng.rotation(),
            );
            return (hull, pose);
        }
    }
}

#[test]
fn hull_pairs_agree_with_an_f64_sat_and_push_out_to_touching() {
    let mut rng = Rng(43);
    let (mut compared, mut biased) = (0, 0);
    for case in 0..CASES {
        let ((ha, pa), (hb, pb)) = (random_hull(&mut rng), random_hull(&mut rng));
        let (ra, rb) = (Referee::new(&ha, &pa), Referee::new(&hb, &pb));
        let gap = gap64(&ra, &rb) as Real;
        let found = hull_hull_contact_within(&ha, &pa, &hb, &pb, 0.0);
        if gap.abs() < 1e-4 {
            continue;
        }
        assert_eq!(found.is_some(), gap < 0.0, "case {case}: gap {gap}");
        let Some(c) = found else { continue };
        compared += 1;
        let exact = -gap;
        let tolerance = 1e-4 * (1.0 + exact);
        assert!((c.normal.norm() - 1.0).abs() < 1e-5);
        assert!(
            c.depth >= exact - tolerance && c.depth <= exact + 2e-3 * exact + tolerance,
            "case {case}: depth {} against {exact}",
            c.depth
        );
        // Within 1e-4 relative but where a face stood within the box pair's bias (1e-3
        // relative) of a better axis, which the pair keeps as the box pair does.
        if (c.depth - exact).abs() > 1e-4 * exact + 1e-5 {
            assert!(c.depth - exact <= 1.1e-3 * exact + 1e-5, "case {case}");
            biased += 1;
        }
        let moved = Isometry3::from_parts(
            na::Translation3::from(pb.translation.vector + c.normal * c.depth),
            pb.rotation,
        );
        let after = gap64(&ra, &Referee::new(&hb, &moved)) as Real;
        assert!(
            after.abs() <= 2e-3 * exact + tolerance,
            "case {case}: gap {after} after the push"
        );
        assert!(!c.points.is_empty() && c.points.len() <= 4);
    }
    // Measured: 66 of the 3,607 overlapping pairs, at most 1.04e-3 relative.
    assert!(
        compared > 2000 && biased * 40 < compared,
        "{biased} of {compared}"
    );
}

#[test]
fn a_box_hull_meets_balls_and_capsules_as_the_box_does() {
    let mut rng = Rng(44);
    let (mut balls, mut capsules) = (0, 0);
    for case in 0..CASES {
        let b = random_obb(&mut rng);
        let (hull, pose) = box_hull(&b);
        let as_hull = geom::Shape::ConvexHull {
            hull: std::sync::Arc::new(hull),
        }
        .world(&pose);
        let as_box = geom::Volume::Obb(b);
        let centre = rng.point(3.0);
        let radius = rng.range(0.1, 1.0);
        let axis = rng.rotation() * Vector3::new(0.0, rng.range(0.1, 1.5), 0.0);
        let others = [
            geom::Volume::Sphere(geom::Sphere::new(centre, radius)),
            geom::Volume::Capsule(geom::Capsule::new(centre - axis, centre + axis, radius)),
        ];
        for (k, other) in others.iter().enumerate() {
            let margin = 0.05;
            let x = collide::volume_contact_within(&as_box, other, margin);
            let y = collide::volume_contact_within(&as_hull, other, margin);
            match (x, y) {
                (Some(x), Some(y)) => {
                    assert!(
                        (x.depth - y.depth).abs() < 2e-5 * (1.0 + x.depth.abs()),
                        "case {case} shape {k}: depth {} against {}",
                        y.depth,
                        x.depth
                    );
                    if x.depth > 1e-3 {
                        assert!(
                            (x.normal - y.normal).norm() < 1e-3,
                            "case {case} shape {k}: normal {:?} against {:?}",
                            y.normal,
                            x.normal
                        );
                    }
                    assert_eq!(x.points.len(), y.points.len(), "case {case} shape {k}");
                    if k == 0 { balls += 1 } else { capsules += 1 }
                }
                (None, None) => {}
                (x, y) => {
                    let depth = x.or(y).map(|c| c.depth).unwrap_or(0.0);
                    assert!(
                        (depth + margin).abs() < 1e-4,
                        "case {case} shape {k}: {depth} on one side"
                    );
                }
            }
        }
    }
    assert!(balls > 1000 && capsules > 1000, "{balls} {capsules}");
}
