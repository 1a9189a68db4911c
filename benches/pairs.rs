//! Every pair kernel against its parry3d counterpart on the same 1,024 seeded inputs
//! (`testbed::inputs::{box_pairs, sphere_box_pairs, ray_box_pairs}`, and pairs of the convex
//! pile's hull). One iteration runs all
//! 1,024; criterion's throughput gives the time per pair. Run: `cargo bench --bench pairs`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use minirigid::collide::{
    hull_hull_contact_within, obb_obb_contact, obb_obb_intersects, ray_obb, sphere_obb_contact,
};
use minirigid::prelude::*;
use parry3d::glamx::{Quat, Vec3};
use parry3d::math::Pose;
use parry3d::query::{
    self, ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher, Ray as ParryRay,
    RayCast,
};
use parry3d::shape::{Ball, Cuboid};
use std::hint::black_box;
use testbed::inputs::{box_pairs, ray_box_pairs, sphere_box_pairs};

const PAIRS: usize = 1_024;

fn parry_box(o: &Obb) -> (Pose, Cuboid) {
    (
        Pose::from_parts(Vec3::from(o.center.coords), Quat::from(o.rotation)),
        Cuboid::new(Vec3::from(o.half_extents)),
    )
}

fn box_box(c: &mut Criterion) {
    let pairs = box_pairs(PAIRS, 1);
    let parry: Vec<_> = pairs
        .iter()
        .map(|(a, b)| (parry_box(a), parry_box(b)))
        .collect();

    let mut group = c.benchmark_group("box_box_intersects");
    group.throughput(Throughput::Elements(PAIRS as u64));
    group.bench_function("minirigid", |bench| {
        bench.iter(|| {
            let pairs = black_box(&pairs);
            pairs
                .iter()
                .filter(|(a, b)| obb_obb_intersects(a, b))
                .count()
        })
    });
    group.bench_function("parry3d", |bench| {
        bench.iter(|| {
            let parry = black_box(&parry);
            parry
                .iter()
                .filter(|((pa, ca), (pb, cb))| {
                    query::intersection_test(pa, ca, pb, cb)
                        .unwrap()
                        .intersecting
                })
                .count()
        })
    });
    group.finish();

    let mut group = c.benchmark_group("box_box_contact");
    group.throughput(Throughput::Elements(PAIRS as u64));
    group.bench_function("minirigid", |bench| {
        bench.iter(|| {
            let pairs = black_box(&pairs);
            pairs
                .iter()
                .filter_map(|(a, b)| obb_obb_contact(a, b))
                .map(|c| c.points.len())
                .sum::<usize>()
        })
    });
    // The manifold rapier builds each step, computed from scratch (the manifold is cleared so
    // that parry cannot reuse last iteration's contacts for the same poses).
    let mut manifolds: Vec<ContactManifold<(), ()>> =
        (0..PAIRS).map(|_| ContactManifold::new()).collect();
    group.bench_function("parry3d_manifold", |bench| {
        bench.iter(|| {
            let parry = black_box(&parry);
            let mut points = 0;
            for (((pa, ca), (pb, cb)), manifold) in parry.iter().zip(manifolds.iter_mut()) {
                manifold.clear();
                let pos12 = pa.inv_mul(pb);
                // What rapier's narrow phase calls for a convex pair: for two cuboids it goes to
                // parry's `contact_manifold_cuboid_cuboid`.
                DefaultQueryDispatcher
                    .contact_manifold_convex_convex(&pos12, ca, cb, None, None, 0.0, manifold)
                    .unwrap();
                points += manifold.points.len();
            }
            points
        })
    });
    group.bench_function("parry3d_contact", |bench| {
        bench.iter(|| {
            let parry = black_box(&parry);
            parry
                .iter()
                .filter_map(|((pa, ca), (pb, cb))| query::contact(pa, ca, pb, cb, 0.0).unwrap())
                .count()
        })
    });
    group.finish();
}

fn sphere_box(c: &mut Criterion) {
    let pairs = sphere_box_pairs(PAIRS, 2);
    let parry: Vec<_> = pairs
        .iter()
        .map(|(s, o)| {
            let pose = Pose::from_parts(Vec3::from(s.center.coords), Quat::IDENTITY);
            ((pose, Ball::new(s.radius)), parry_box(o))
        })
        .collect();
    let mut group = c.benchmark_group("sphere_box_contact");
    group.throughput(Throughput::Elements(PAIRS as u64));
    group.bench_function("minirigid", |bench| {
        bench.iter(|| {
            let pairs = black_box(&pairs);
            pairs
                .iter()
                .filter_map(|(s, o)| sphere_obb_contact(s, o))
                .count()
        })
    });
    group.bench_function("parry3d", |bench| {
        bench.iter(|| {
            let parry = black_box(&parry);
            parry
                .iter()
                .filter_map(|((ps, ball), (po, cuboid))| {
                    query::contact(ps, ball, po, cuboid, 0.0).unwrap()
                })
                .count()
        })
    });
    group.finish();
}

fn ray_box(c: &mut Criterion) {
    let pairs = ray_box_pairs(PAIRS, 3);
    let parry: Vec<_> = pairs
        .iter()
        .map(|(r, o)| {
            (
                ParryRay::new(Vec3::from(r.origin.coords), Vec3::from(r.dir)),
                parry_box(o),
            )
        })
        .collect();
    let max_toi = 20.0;
    let mut group = c.benchmark_group("ray_box");
    group.throughput(Throughput::Elements(PAIRS as u64));
    group.bench_function("minirigid", |bench| {
        bench.iter(|| {
            let pairs = black_box(&pairs);
            pairs
                .iter()
                .filter_map(|(r, o)| ray_obb(r, o, max_toi))
                .count()
        })
    });
    group.bench_function("parry3d", |bench| {
        bench.iter(|| {
            let parry = black_box(&parry);
            parry
                .iter()
                .filter_map(|(ray, (pose, cuboid))| {
                    cuboid.cast_ray_and_get_normal(pose, ray, max_toi, true)
                })
                .count()
        })
    });
    group.finish();
}

/// 1,024 pairs of the convex pile's hull (32 points on a sphere of radius 2), turned at random
/// (seeded), their centres 3 to 4.2 m apart in a random direction: most touch, some are apart.
fn hull_hull(c: &mut Criterion) {
    let points = testbed::shapes::pile_hull_points();
    let hull = ConvexHull::new(&points).unwrap();
    let mut rng = testbed::SplitMix(9);
    let poses: Vec<(Isometry3, Isometry3)> = (0..PAIRS)
        .map(|_| {
            let a = Isometry3::from_parts(Vector3::zeros().into(), rng.rotation());
            let offset = rng.point(1.0).coords.normalize() * rng.range(3.0, 4.2);
            (a, Isometry3::from_parts(offset.into(), rng.rotation()))
        })
        .collect();
    let vertices: Vec<Vec3> = hull
        .vertices()
        .iter()
        .map(|v| Vec3::from(v.coords))
        .collect();
    let polyhedron = parry3d::shape::ConvexPolyhedron::from_convex_hull(&vertices).unwrap();
    let parry_pose =
        |p: &Isometry3| Pose::from_parts(Vec3::from(p.translation.vector), Quat::from(p.rotation));
    let parry: Vec<(Pose, Pose)> = poses
        .iter()
        .map(|(a, b)| (parry_pose(a), parry_pose(b)))
        .collect();

    let mut group = c.benchmark_group("hull_hull_contact");
    group.throughput(Throughput::Elements(PAIRS as u64));
    group.bench_function("minirigid", |bench| {
        bench.iter(|| {
            let poses = black_box(&poses);
            poses
                .iter()
                .filter_map(|(a, b)| hull_hull_contact_within(&hull, a, &hull, b, 0.0))
                .map(|c| c.points.len())
                .sum::<usize>()
        })
    });
    let mut manifolds: Vec<ContactManifold<(), ()>> =
        (0..PAIRS).map(|_| ContactManifold::new()).collect();
    group.bench_function("parry3d_manifold", |bench| {
        bench.iter(|| {
            let parry = black_box(&parry);
            let mut points = 0;
            for ((pa, pb), manifold) in parry.iter().zip(manifolds.iter_mut()) {
                manifold.clear();
                let pos12 = pa.inv_mul(pb);
                DefaultQueryDispatcher
                    .contact_manifold_convex_convex(
                        &pos12,
                        &polyhedron,
                        &polyhedron,
                        None,
                        None,
                        0.0,
                        manifold,
                    )
                    .unwrap();
                points += manifold.points.len();
            }
            points
        })
    });
    group.finish();
}

criterion_group!(benches, box_box, sphere_box, ray_box, hull_hull);
criterion_main!(benches);
