//! The broad phase's cost per step as the body count grows: every box moves a little, then
//! the overlapping pairs are queried. Run: `cargo bench --bench broad_phase`.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use minirigid::collide::broad::RowSweep;
use minirigid::prelude::*;
use std::hint::black_box;
use testbed::SplitMix as Rng;

/// `count` boxes of half extent 0.5 at constant density (about one neighbour each), with small
/// random velocities, in a cube they bounce inside.
struct Scene {
    rows: RowSweep,
    bodies: Vec<(Point3, Vector3)>,
    boxes: Vec<Aabb>,
    half_side: Real,
    pairs: Vec<(u32, u32)>,
}

impl Scene {
    fn new(count: usize) -> Self {
        let mut rng = Rng(count as u64);
        let half_side = 1.2 * (count as Real).cbrt();
        let bodies = (0..count)
            .map(|_| {
                let p = Point3::new(rng.signed(), rng.signed(), rng.signed()) * half_side;
                let v = Vector3::new(rng.signed(), rng.signed(), rng.signed()) * 0.05;
                (p, v)
            })
            .collect();
        let mut scene = Self {
            rows: RowSweep::new(),
            bodies,
            boxes: Vec::with_capacity(count),
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
        self.boxes.clear();
        for (p, v) in &mut self.bodies {
            *p += *v;
            for k in 0..3 {
                if p[k].abs() > self.half_side {
                    v[k] = -v[k];
                }
            }
            self.boxes.push(Self::aabb(p));
        }
        self.rows.pairs_of(&self.boxes, &mut self.pairs);
        self.pairs.len()
    }
}

fn broad_phase(c: &mut Criterion) {
    let mut group = c.benchmark_group("broad_phase_step");
    for count in [1_000usize, 10_000, 100_000] {
        let mut rows = Scene::new(count);
        group.bench_with_input(BenchmarkId::new("row_sweep", count), &count, |b, _| {
            b.iter(|| black_box(rows.step()))
        });
    }
    group.finish();
}

criterion_group!(benches, broad_phase);
criterion_main!(benches);
