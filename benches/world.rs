//! Collision detection for boxes moving at constant velocities (`testbed::inputs::MovingBoxes`), broad
//! plus narrow phase, against rapier3d's `CollisionPipeline` on the same boxes; and the whole
//! world step in the closed room (`scenes::room`) as the body count grows; and ray casts and
//! AABB queries in Box3D's large world (`scenes::large_world`) as its static boxes grow from
//! 1,024 to 1,000,000, beside a scan of every body (what the queries did before the broad
//! phase kept its tree).
//! Run: `cargo bench --bench world`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use minirigid::prelude::*;
use rapier3d::prelude::{
    ActiveCollisionTypes, BroadPhaseBvh, ColliderBuilder, ColliderHandle, ColliderSet,
    CollisionPipeline, IslandManager, NarrowPhase, RigidBodySet,
};
use std::hint::black_box;
use testbed::SplitMix;
use testbed::inputs::MovingBoxes;
use testbed::scenes::{large_world, room};

const DT: Real = 0.02;

/// minirigid: the boxes as dynamic bodies of a world without response or gravity, posed from
/// the scene each step, then `step()` (world AABBs, broad phase, staged narrow phase).
struct Ours {
    scene: MovingBoxes,
    world: World,
    handles: Vec<BodyHandle>,
    time: Real,
}

impl Ours {
    fn new(count: usize) -> Self {
        let scene = MovingBoxes::new(count, 11);
        let mut world = World::new(WorldConfig {
            dt: DT,
            gravity: Vector3::zeros(),
            response: Response::None,
            ..WorldConfig::default()
        });
        let handles = (0..count)
            .map(|i| {
                world
                    .insert(
                        BodyDesc::dynamic()
                            .cuboid(scene.half_extents[i])
                            .rotation(scene.rotations[i])
                            .position(scene.position(i, 0.0)),
                    )
                    .expect("a valid box")
            })
            .collect();
        Self {
            scene,
            world,
            handles,
            time: 0.0,
        }
    }

    fn step(&mut self) -> usize {
        self.time += DT;
        for (i, handle) in self.handles.iter().enumerate() {
            let pose = Isometry3::from_parts(
                self.scene.position(i, self.time).into(),
                self.scene.rotations[i],
            );
            if let Some(body) = self.world.body_mut(*handle) {
                body.set_pose(pose).expect("a valid pose");
            }
        }
        self.world.step();
        self.world.contacts().len()
    }
}

/// rapier3d: the same boxes as colliders without bodies, posed the same way, then
/// `CollisionPipeline::step` (broad phase, narrow phase with contact manifolds). Colliders
/// without a body count as fixed, and rapier skips fixed-fixed pairs by default (its narrow
/// phase would then compute nothing): `ActiveCollisionTypes::all()` makes it test every pair,
/// as minirigid does. The setup checks that both find about the same touching pairs.
struct Rapier {
    scene: MovingBoxes,
    colliders: ColliderSet,
    bodies: RigidBodySet,
    islands: IslandManager,
    broad: BroadPhaseBvh,
    narrow: NarrowPhase,
    pipeline: CollisionPipeline,
    handles: Vec<ColliderHandle>,
    time: Real,
}

fn rapier_pose(translation: Vector3, rotation: &UnitQuaternion) -> rapier3d::math::Pose {
    rapier3d::math::Pose::from_parts(
        rapier3d::glamx::Vec3::from(translation),
        rapier3d::glamx::Quat::from(*rotation),
    )
}

impl Rapier {
    fn new(count: usize) -> Self {
        let scene = MovingBoxes::new(count, 11);
        let mut colliders = ColliderSet::new();
        let handles = (0..count)
            .map(|i| {
                let h = scene.half_extents[i];
                colliders.insert(
                    ColliderBuilder::cuboid(h.x, h.y, h.z)
                        .position(rapier_pose(scene.position(i, 0.0), &scene.rotations[i]))
                        .active_collision_types(ActiveCollisionTypes::all())
                        .build(),
                )
            })
            .collect();
        let mut this = Self {
            scene,
            colliders,
            bodies: RigidBodySet::new(),
            islands: IslandManager::new(),
            broad: BroadPhaseBvh::new(),
            narrow: NarrowPhase::new(),
            pipeline: CollisionPipeline::new(),
            handles,
            time: 0.0,
        };
        this.detect();
        this
    }

    fn detect(&mut self) {
        self.pipeline.step(
            0.0,
            &mut self.islands,
            &mut self.broad,
            &mut self.narrow,
            &mut self.bodies,
            &mut self.colliders,
            &(),
            &(),
        );
    }

    fn step(&mut self) -> usize {
        self.time += DT;
        for (i, handle) in self.handles.iter().enumerate() {
            let pose = rapier_pose(self.scene.position(i, self.time), &self.scene.rotations[i]);
            self.colliders[*handle].set_position(pose);
        }
        self.detect();
        self.narrow
            .contact_pairs()
            .filter(|p| p.has_any_active_contact())
            .count()
    }
}

fn collision_detection(c: &mut Criterion) {
    let mut group = c.benchmark_group("collision_detection");
    group.sample_size(20);
    for count in [1_000usize, 10_000] {
        group.throughput(Throughput::Elements(count as u64));
        let mut ours = Ours::new(count);
        let mut rapier = Rapier::new(count);
        let (a, b) = (ours.step(), rapier.step());
        println!("collision_detection/{count}: touching pairs, minirigid {a}, rapier3d {b}");
        assert!(
            a.abs_diff(b) * 20 <= a.max(b) && a > 0,
            "the two sides should find about the same contacts: {a} vs {b}"
        );
        group.bench_with_input(BenchmarkId::new("minirigid", count), &count, |b, _| {
            b.iter(|| black_box(ours.step()))
        });
        group.bench_with_input(BenchmarkId::new("rapier3d", count), &count, |b, _| {
            b.iter(|| black_box(rapier.step()))
        });
    }
    group.finish();
}

fn world_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("world_step");
    group.sample_size(10);
    for count in [1_000usize, 10_000, 100_000] {
        group.throughput(Throughput::Elements(count as u64));
        let mut world = room(count, 5, 5.0);
        world.step();
        group.bench_with_input(BenchmarkId::new("minirigid", count), &count, |b, _| {
            b.iter(|| {
                world.step();
                black_box(world.contacts().len())
            })
        });
    }
    group.finish();
}

/// 1,000 rays cast down at the floor from random points above it (within 30 m of the
/// middle), and as many boxes of up to 3 m a side queried there: what each costs as the
/// static boxes around them grow, through the world and as a scan of every body.
fn queries(c: &mut Criterion) {
    let mut group = c.benchmark_group("large_world_queries");
    group.sample_size(10);
    for grid in [32usize, 1000] {
        let mut world = large_world(grid);
        world.step();
        let mut rng = SplitMix(3);
        let rays: Vec<Ray> = (0..1000)
            .map(|_| {
                let origin = Point3::new(rng.range(-30.0, 30.0), 5.0, rng.range(-30.0, 30.0));
                let dir = Vector3::new(rng.range(-0.3, 0.3), -1.0, rng.range(-0.3, 0.3));
                Ray::new(origin, dir)
            })
            .collect();
        let boxes: Vec<Aabb> = (0..1000)
            .map(|_| {
                let c = Point3::new(rng.range(-30.0, 30.0), 0.0, rng.range(-30.0, 30.0));
                let h = Vector3::new(rng.range(0.1, 1.5), 1.0, rng.range(0.1, 1.5));
                Aabb::new(c - h, c + h)
            })
            .collect();
        let count = world.len();
        group.bench_with_input(BenchmarkId::new("cast_ray", count), &count, |b, _| {
            b.iter(|| {
                rays.iter()
                    .filter(|ray| world.cast_ray(ray, 20.0).is_some())
                    .count()
            })
        });
        group.bench_with_input(BenchmarkId::new("query_aabb", count), &count, |b, _| {
            b.iter(|| {
                boxes
                    .iter()
                    .map(|q| world.query_aabb(q).len())
                    .sum::<usize>()
            })
        });
        if grid <= 32 {
            // The scan is linear in the bodies: timed on the small world only.
            group.bench_with_input(BenchmarkId::new("scan_aabb", count), &count, |b, _| {
                b.iter(|| {
                    boxes
                        .iter()
                        .map(|q| {
                            world
                                .bodies()
                                .filter(|(_, body)| body.world_aabb().intersects(q))
                                .count()
                        })
                        .sum::<usize>()
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, collision_detection, world_step, queries);
criterion_main!(benches);
