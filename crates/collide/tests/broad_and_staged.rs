//! The broad phase against brute force on random scenes of 1 to 20,000 boxes, moving between
//! queries; the staged filter against the direct test.

mod common;

use collide::broad::{BroadPhase, LinearBvh, ProxyId, RowSweep, SweepAndPrune};
use collide::staged::{Posed, StagedFilter};
use collide::volume_contact;
use common::Rng;
use geom::{Aabb, Isometry3, Real, Shape, Vector3};

fn random_box(rng: &mut Rng, world: Real) -> Aabb {
    let half = Vector3::new(
        rng.range(0.1, 1.0),
        rng.range(0.1, 1.0),
        rng.range(0.1, 1.0),
    );
    Aabb::from_center_half_extents(rng.point(world), half)
}

fn brute_force(boxes: &[(ProxyId, Aabb)]) -> Vec<(ProxyId, ProxyId)> {
    let mut pairs = Vec::new();
    for (i, (ia, a)) in boxes.iter().enumerate() {
        for (ib, b) in &boxes[i + 1..] {
            if a.intersects(b) {
                pairs.push(if ia < ib { (*ia, *ib) } else { (*ib, *ia) });
            }
        }
    }
    pairs.sort_unstable();
    pairs
}

#[test]
fn row_sweep_matches_brute_force() {
    matches_brute_force::<RowSweep>();
}

#[test]
fn linear_bvh_matches_brute_force() {
    matches_brute_force::<LinearBvh>();
}

#[test]
fn sweep_and_prune_matches_brute_force() {
    matches_brute_force::<SweepAndPrune>();
}

fn matches_brute_force<B: BroadPhase + Default>() {
    let mut rng = Rng(7);
    for &count in &[0usize, 1, 2, 3, 10, 100, 1_000, 5_000, 20_000] {
        // Density kept about constant: about 1.5 neighbours a box.
        let world = 2.0 * (count as Real).cbrt();
        let mut sap = B::default();
        let mut boxes: Vec<(ProxyId, Aabb)> = (0..count)
            .map(|_| {
                let b = random_box(&mut rng, world);
                (sap.insert(b), b)
            })
            .collect();
        let mut pairs = Vec::new();
        for round in 0..3 {
            sap.overlapping_pairs(&mut pairs);
            let expected = brute_force(&boxes);
            assert_eq!(pairs, expected, "{count} boxes, round {round}");
            if count >= 100 {
                assert!(!pairs.is_empty(), "{count} boxes should touch somewhere");
            }
            // Move every box a little, remove a few, add a few.
            for (id, b) in &mut boxes {
                *b = b.translated(&(rng.point(1.0).coords * 0.2));
                assert!(sap.update(*id, *b));
            }
            for _ in 0..count / 10 {
                if boxes.is_empty() {
                    break;
                }
                let index = (rng.next_u64() % boxes.len() as u64) as usize;
                let (id, b) = boxes.swap_remove(index);
                assert_eq!(sap.remove(id), Some(b));
            }
            for _ in 0..count / 10 {
                let b = random_box(&mut rng, world);
                boxes.push((sap.insert(b), b));
            }
            assert_eq!(sap.len(), boxes.len());
        }
    }
}

#[test]
fn a_change_of_layout_keeps_the_answer() {
    a_change_of_layout::<RowSweep>();
    a_change_of_layout::<LinearBvh>();
    a_change_of_layout::<SweepAndPrune>();
}

fn a_change_of_layout<B: BroadPhase + Default>() {
    // Boxes spread along x first, then along z: the sweep axis changes between queries, and the
    // Morton order is far from the previous one.
    let mut rng = Rng(8);
    let mut sap = B::default();
    let mut boxes: Vec<(ProxyId, Aabb)> = (0..2_000)
        .map(|i| {
            let mut b = random_box(&mut rng, 3.0);
            b = b.translated(&Vector3::new(i as Real * 0.05, 0.0, 0.0));
            (sap.insert(b), b)
        })
        .collect();
    let mut pairs = Vec::new();
    sap.overlapping_pairs(&mut pairs);
    assert_eq!(pairs, brute_force(&boxes));
    for (i, (id, b)) in boxes.iter_mut().enumerate() {
        let c = b.center();
        *b = b.translated(&Vector3::new(-c.x, 0.0, i as Real * 0.05 - c.z));
        sap.update(*id, *b);
    }
    sap.overlapping_pairs(&mut pairs);
    assert_eq!(pairs, brute_force(&boxes));
}

/// The row sweep's slice interface on the cases that stress a grid: sizes over nine orders of
/// magnitude (several rounds of large boxes), boxes snapped to cell boundaries (touching exactly at a cell face,
/// corners on power-of-two coordinates), negative coordinates, far-away boxes, walls much larger
/// than everything else, and boxes with infinite or NaN corners.
#[test]
fn row_sweep_matches_brute_force_on_sizes_boundaries_and_odd_boxes() {
    let mut rng = Rng(21);
    let mut rows = RowSweep::new();
    let mut pairs = Vec::new();
    for round in 0..40 {
        let count = 50 + (rng.next_u64() % 1_500) as usize;
        let mut boxes: Vec<Aabb> = (0..count)
            .map(|_| {
                let size = (10.0 as Real).powf(rng.range(-6.0, 3.0));
                let half = Vector3::new(
                    size * rng.range(0.2, 1.0),
                    size * rng.range(0.2, 1.0),
                    size * rng.range(0.2, 1.0),
                );
                let spread = if rng.unit() < 0.1 { 1e6 } else { 30.0 };
                let mut center = rng.point(spread);
                if rng.unit() < 0.3 {
                    // Corners on a power-of-two lattice: faces exactly on cell boundaries.
                    let step = (2.0 as Real).powi((rng.next_u64() % 6) as i32 - 2);
                    center = center.map(|c| (c / step).round() * step);
                    return Aabb::new(center, center + Vector3::repeat(step));
                }
                center.z = center.z.clamp(-40.0, 40.0);
                Aabb::from_center_half_extents(center, half)
            })
            .collect();
        // Walls and odd boxes in some rounds.
        if round % 4 == 0 {
            boxes.push(Aabb::new(
                geom::Point3::new(-1e4, -1e4, -41.0),
                geom::Point3::new(1e4, 1e4, -39.0),
            ));
            boxes.push(Aabb::new(
                geom::Point3::new(-Real::INFINITY, -1.0, -1.0),
                geom::Point3::new(0.0, 1.0, 1.0),
            ));
            // Malformed on purpose (`Aabb::new` would refuse them): NaN and inverted corners.
            boxes.push(Aabb {
                mins: geom::Point3::new(Real::NAN, 0.0, 0.0),
                maxs: geom::Point3::new(1.0, 1.0, 1.0),
            });
            boxes.push(Aabb {
                mins: geom::Point3::new(5.0, -1.0, -1.0),
                maxs: geom::Point3::new(-5.0, 1.0, 1.0),
            });
            boxes.push(Aabb::new(
                geom::Point3::new(-Real::MAX, -Real::MAX, -Real::MAX),
                geom::Point3::new(Real::MAX, Real::MAX, Real::MAX),
            ));
        }
        let mut expected = Vec::new();
        for (i, a) in boxes.iter().enumerate() {
            for (j, b) in boxes.iter().enumerate().skip(i + 1) {
                if a.intersects(b) {
                    expected.push((i as u32, j as u32));
                }
            }
        }
        let count = boxes.len();
        let check = |name: &str, pairs: &mut Vec<(u32, u32)>, expected: &[(u32, u32)]| {
            let found = pairs.len();
            pairs.sort_unstable();
            pairs.dedup();
            assert_eq!(
                pairs.len(),
                found,
                "{name}, round {round}: a pair reported twice"
            );
            assert_eq!(pairs, expected, "{name}, round {round}, {count} boxes");
        };
        rows.pairs_of(&boxes, &mut pairs);
        check("rows", &mut pairs, &expected);
        // Again after a small move of every finite box: the row sweep starts from its last order.
        for b in boxes
            .iter_mut()
            .filter(|b| b.mins.x.is_finite() && b.maxs.x.is_finite())
        {
            let shift = rng.range(-0.3, 0.3);
            b.mins.x += shift;
            b.maxs.x += shift;
        }
        let mut moved = Vec::new();
        for (i, a) in boxes.iter().enumerate() {
            for (j, b) in boxes.iter().enumerate().skip(i + 1) {
                if a.intersects(b) {
                    moved.push((i as u32, j as u32));
                }
            }
        }
        rows.pairs_of(&boxes, &mut pairs);
        check("rows after a move", &mut pairs, &moved);
        assert!(!expected.is_empty());
    }
}

/// Boxes strung along x in one long row (the insertion sort's budget runs out and a full sort
/// takes over), then the same boxes reversed, then spread along z (a change of every row).
#[test]
fn row_sweep_survives_long_rows_and_reorders() {
    let mut rows = RowSweep::new();
    let mut pairs = Vec::new();
    let line = |i: usize| {
        let c = geom::Point3::new(i as Real * 0.9, 0.0, 0.0);
        Aabb::from_center_half_extents(c, Vector3::repeat(0.5))
    };
    let n = 20_000;
    let mut boxes: Vec<Aabb> = (0..n).map(line).collect();
    let chain: Vec<(u32, u32)> = (0..n as u32 - 1).map(|i| (i, i + 1)).collect();
    rows.pairs_of(&boxes, &mut pairs);
    pairs.sort_unstable();
    assert_eq!(pairs, chain);
    boxes.reverse();
    rows.pairs_of(&boxes, &mut pairs);
    pairs.sort_unstable();
    assert_eq!(pairs, chain);
    for b in &mut boxes {
        let c = b.center();
        *b = Aabb::from_center_half_extents(geom::Point3::new(0.0, 0.0, c.x), Vector3::repeat(0.5));
    }
    rows.pairs_of(&boxes, &mut pairs);
    pairs.sort_unstable();
    assert_eq!(pairs, chain);
}

#[test]
fn staged_filter_agrees_with_the_direct_test_and_counts_every_pair() {
    let mut rng = Rng(9);
    let posed: Vec<Posed> = (0..300)
        .map(|i| {
            let shape = if i % 3 == 0 {
                Shape::ball(rng.range(0.2, 1.0)).unwrap()
            } else {
                Shape::cuboid(Vector3::new(
                    rng.range(0.2, 1.0),
                    rng.range(0.1, 0.5),
                    rng.range(0.2, 1.5),
                ))
                .unwrap()
            };
            let pose = Isometry3::from_parts(rng.point(6.0).coords.into(), rng.rotation());
            Posed::new(&shape, &pose)
        })
        .collect();
    let mut filter = StagedFilter::new();
    let mut touching = 0;
    for i in 0..posed.len() {
        for j in i + 1..posed.len() {
            let staged = filter.contact(&posed[i], &posed[j]);
            let direct = volume_contact(&posed[i].volume, &posed[j].volume);
            assert_eq!(staged, direct, "pair ({i}, {j})");
            touching += usize::from(direct.is_some());
        }
    }
    let c = filter.counts;
    assert_eq!(c.pairs, 300 * 299 / 2);
    assert_eq!(c.touching as usize, touching);
    assert_eq!(
        c.rejected_by_sphere + c.rejected_by_aabb + c.rejected_by_exact + c.touching,
        c.pairs
    );
    // Each stage does some work on this scene.
    assert!(
        c.rejected_by_sphere > 0
            && c.rejected_by_aabb > 0
            && c.rejected_by_exact > 0
            && c.touching > 0,
        "{c:?}"
    );
}
