//! The broad phase's cost per step as the body count grows: every box moves a little, then
//! the overlapping pairs are queried. Run: `cargo bench --bench broad_phase`.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use minirigid::collide::broad::{BroadPhase, LinearBvh, ProxyId, RowSweep, SweepAndPrune};
use minirigid::prelude::*;
use minirigid::scenes::SplitMix as Rng;
use std::hint::black_box;

/// `count` boxes of half extent 0.5 at constant density (about one neighbour each), with small
/// random velocities, in a cube they bounce inside.
struct Scene<B> {
    sap: B,
    bodies: Vec<(ProxyId, Point3, Vector3)>,
    half_side: Real,
    pairs: Vec<(ProxyId, ProxyId)>,
}

impl<B: BroadPhase + Default> Scene<B> {
    fn new(count: usize) -> Self {
        let mut rng = Rng(count as u64);
        let half_side = 1.2 * (count as Real).cbrt();
        let mut sap = B::default();
        let bodies = (0..count)
            .map(|_| {
                let p = Point3::new(rng.signed(), rng.signed(), rng.signed()) * half_side;
                let v = Vector3::new(rng.signed(), rng.signed(), rng.signed()) * 0.05;
                (sap.insert(Self::aabb(&p)), p, v)
            })
            .collect();
        let mut scene = Self {
            sap,
            bodies,
            half_side,
            pairs: Vec::new(),
        };
        scene.step();
        scene
    }

    fn aabb(p: &Point3) -> Aabb {
        Aabb::from_center_half_extents(*p, Vector3::repeat(0.5))
    }

    fn step(&mut self) -> usize {
        for (id, p, v) in &mut self.bodies {
            *p += *v;
            for k in 0..3 {
                if p[k].abs() > self.half_side {
                    v[k] = -v[k];
                }
            }
            self.sap.update(*id, Self::aabb(p));
        }
        self.sap.overlapping_pairs(&mut self.pairs);
        self.pairs.len()
    }
}

fn broad_phase(c: &mut Criterion) {
    let mut group = c.benchmark_group("broad_phase_step");
    for count in [1_000usize, 10_000, 100_000] {
        let mut rows = Scene::<RowSweep>::new(count);
        let mut bvh = Scene::<LinearBvh>::new(count);
        let mut sap = Scene::<SweepAndPrune>::new(count);
        for other in [&bvh.pairs, &sap.pairs] {
            assert_eq!(&rows.pairs, other, "the broad phases disagree");
        }
        group.bench_with_input(BenchmarkId::new("row_sweep", count), &count, |b, _| {
            b.iter(|| black_box(rows.step()))
        });
        group.bench_with_input(BenchmarkId::new("linear_bvh", count), &count, |b, _| {
            b.iter(|| black_box(bvh.step()))
        });
        group.bench_with_input(
            BenchmarkId::new("sweep_and_prune", count),
            &count,
            |b, _| b.iter(|| black_box(sap.step())),
        );
    }
    group.finish();
}

criterion_group!(benches, broad_phase);
criterion_main!(benches);
