//! The broad phase against brute force on random scenes of 1 to 20,000 boxes, moving between
//! queries; the staged filter against the direct test.

mod common;

use collide::broad::RowSweep;
use collide::staged::{Posed, StagedFilter};
use collide::{FACE_PREFERENCE, PartAxis, volume_contact};
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

fn brute_force(boxes: &[Aabb]) -> Vec<(u32, u32)> {
    let mut pairs = Vec::new();
    for (i, a) in boxes.iter().enumerate() {
        for (j, b) in boxes.iter().enumerate().skip(i + 1) {
            if a.intersects(b) {
                pairs.push((i as u32, j as u32));
            }
        }
    }
    pairs
}

#[test]
fn row_sweep_matches_brute_force() {
    let mut rng = Rng(7);
    let mut rows = RowSweep::new();
    for &count in &[0usize, 1, 2, 3, 10, 100, 1_000, 5_000, 20_000] {
        // Density kept about constant: about 1.5 neighbours a box.
        let world = 2.0 * (count as Real).cbrt();
        let mut boxes: Vec<Aabb> = (0..count).map(|_| random_box(&mut rng, world)).collect();
        let mut pairs = Vec::new();
        for round in 0..3 {
            rows.pairs_of(&boxes, &mut pairs);
            let expected = brute_force(&boxes);
            assert_eq!(pairs, expected, "{count} boxes, round {round}");
            if count >= 100 {
                assert!(!pairs.is_empty(), "{count} boxes should touch somewhere");
            }
            // Move every box a little, remove a few, add a few: the last call's order no longer
            // matches the indices, which the sort must survive.
            for b in &mut boxes {
                *b = b.translated(&(rng.point(1.0).coords * 0.2));
            }
            for _ in 0..count / 10 {
                if boxes.is_empty() {
                    break;
                }
                let index = (rng.next_u64() % boxes.len() as u64) as usize;
                boxes.swap_remove(index);
            }
            for _ in 0..count / 10 {
                boxes.push(random_box(&mut rng, world));
            }
        }
    }
}

/// With several threads the rows are swept in blocks on rayon's threads: the same pairs as
/// one thread and brute force, on scenes of many rows (blocks cut between rows) and of a few
/// long ones (a block as wide as a row), moving between calls.
#[cfg(feature = "parallel")]
#[test]
fn row_sweep_in_blocks_on_several_threads_matches_one_thread() {
    let mut rng = Rng(11);
    for &(count, flat) in &[(3_000usize, false), (20_000, false), (6_000, true)] {
        let world = 2.0 * (count as Real).cbrt();
        let mut boxes: Vec<Aabb> = (0..count)
            .map(|_| {
                let b = random_box(&mut rng, world);
                // Flat: every box in a thin slab, so that few rows hold them all.
                if flat {
                    let lift = Vector3::new(0.0, -b.mins.y, -b.mins.z);
                    b.translated(&lift)
                } else {
                    b
                }
            })
            .collect();
        let (mut one, mut several) = (RowSweep::new(), RowSweep::new());
        for round in 0..3 {
            let expected = brute_force(&boxes);
            for threads in [1, 2, 3] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .expect("a pool");
                let rows = if threads == 1 { &mut one } else { &mut several };
                let mut pairs = Vec::new();
                pool.install(|| rows.pairs_of(&boxes, &mut pairs));
                assert_eq!(
                    pairs, expected,
                    "{count} boxes, {threads} threads, round {round}"
                );
            }
            for b in &mut boxes {
                *b = b.translated(&(rng.point(1.0).coords * 0.2));
            }
        }
    }
}

#[test]
fn a_change_of_layout_keeps_the_answer() {
    // Boxes spread along x first, then along z: the rows and their order change completely
    // between queries.
    let mut rng = Rng(8);
    let mut rows = RowSweep::new();
    let mut boxes: Vec<Aabb> = (0..2_000)
        .map(|i| random_box(&mut rng, 3.0).translated(&Vector3::new(i as Real * 0.05, 0.0, 0.0)))
        .collect();
    let mut pairs = Vec::new();
    rows.pairs_of(&boxes, &mut pairs);
    assert_eq!(pairs, brute_force(&boxes));
    for (i, b) in boxes.iter_mut().enumerate() {
        let c = b.center();
        *b = b.translated(&Vector3::new(-c.x, 0.0, i as Real * 0.05 - c.z));
    }
    rows.pairs_of(&boxes, &mut pairs);
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
        let expected = brute_force(&boxes);
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
        let moved = brute_force(&boxes);
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

/// A shape for the windowed filter's test: mostly boxes, stacked on `below` (flush, slightly
/// apart, slightly sunk, a little turned or exactly aligned, the cases of a resting pile), or
/// equal cubes on a lattice around it (exact ties), or anywhere, turned anyhow; some balls.
fn pile_shape(rng: &mut Rng, below: &Posed) -> Posed {
    let roll = rng.unit();
    let shape = if roll < 0.15 {
        Shape::ball(rng.range(0.1, 0.8)).unwrap()
    } else {
        Shape::cuboid(Vector3::new(
            rng.range(0.2, 1.0),
            rng.range(0.2, 1.0),
            rng.range(0.2, 1.0),
        ))
        .unwrap()
    };
    if (0.6..0.7).contains(&roll) {
        // Equal cubes on a lattice around the one below, unturned: exact ties between axes.
        let mut step = || (rng.next_u64() % 5) as Real * 0.25 - 0.5;
        let offset = Vector3::new(step(), step(), step());
        let shape = Shape::cuboid(Vector3::new(0.5, 0.5, 0.5)).unwrap();
        let pose = Isometry3::translation(offset.x, offset.y, offset.z);
        let center = below.sphere.center;
        return Posed::new(
            &shape,
            &(Isometry3::translation(center.x, center.y, center.z) * pose),
        );
    }
    let pose = if roll < 0.6 {
        // On the shape below: its top plus this one's half height, give or take 2 cm, moved
        // sideways, turned by nothing, a hair or a few degrees.
        let top = below.aabb.maxs.y + shape.local_aabb().maxs.y + rng.range(-0.02, 0.02);
        let side = Vector3::new(rng.range(-0.6, 0.6), 0.0, rng.range(-0.6, 0.6));
        let tilt = match (rng.next_u64() % 3, rng.unit_vector()) {
            (0, _) => geom::UnitQuaternion::identity(),
            (1, axis) => geom::UnitQuaternion::from_scaled_axis(axis * 1e-4),
            (_, axis) => geom::UnitQuaternion::from_scaled_axis(axis * 0.05),
        };
        let center = below.sphere.center + side;
        Isometry3::from_parts(Vector3::new(center.x, top, center.z).into(), tilt)
    } else {
        Isometry3::from_parts(rng.point(2.0).coords.into(), rng.rotation())
    };
    Posed::new(&shape, &pose)
}

/// The windowed filter (box pairs' SAT eight at a time in SIMD lanes) against one pair at a
/// time: the same contacts, bit for bit (compared by their printed form, which tells -0 from
/// 0), the same pair indices, the same counts, on runs of 1 to 150 pairs (partial windows
/// and partial lanes), margins 0 to 0.1 m, and boxes stacked as a pile's rest.
#[test]
fn contacts_within_matches_one_pair_at_a_time() {
    let mut rng = Rng(31);
    let (mut lanes, mut single) = (StagedFilter::new(), StagedFilter::new());
    let mut found = 0;
    for _ in 0..400 {
        let count = 1 + (rng.next_u64() % 150) as usize;
        let mut shapes: Vec<Posed> = vec![Posed::new(
            &Shape::cuboid(Vector3::new(0.5, 0.5, 0.5)).unwrap(),
            &Isometry3::identity(),
        )];
        let pairs: Vec<(Posed, Posed, Real)> = (0..count)
            .map(|_| {
                let below = shapes[(rng.next_u64() % shapes.len() as u64) as usize].clone();
                let shape = pile_shape(&mut rng, &below);
                shapes.push(shape.clone());
                let margin = if rng.unit() < 0.2 {
                    0.0
                } else {
                    rng.range(0.0, 0.1)
                };
                (below, shape, margin)
            })
            .collect();
        let refs: Vec<(&Posed, &Posed, Real)> = pairs.iter().map(|(a, b, m)| (a, b, *m)).collect();
        let mut windowed = Vec::new();
        lanes.contacts_within(&refs, |k, contact| {
            windowed.push(format!("{k} {contact:?}"))
        });
        let one_at_a_time: Vec<String> = refs
            .iter()
            .enumerate()
            .filter_map(|(k, (a, b, margin))| {
                single
                    .contact_within(a, b, *margin)
                    .map(|contact| format!("{k} {contact:?}"))
            })
            .collect();
        assert_eq!(windowed, one_at_a_time);
        found += windowed.len();
    }
    assert_eq!(lanes.counts, single.counts);
    let c = lanes.counts;
    // The cases are all there: pairs apart, pairs found apart by the exact test only, and
    // many touching.
    assert!(
        c.rejected_by_sphere > 0 && c.rejected_by_exact > 0 && c.touching > 1_000,
        "{c:?}"
    );
    assert_eq!(c.touching as usize, found);
}

/// The cached form of the windowed filter: with empty caches, the contacts of the plain form,
/// bit for bit but where it prefers a polyhedron's face ([`FACE_PREFERENCE`]), and a cached axis left for the pairs of hulls (and a hull and a box) that met
/// their bounding volumes, none for the others, one per pair of polyhedral parts for a
/// compound, in order of parts; tested again where they were, with those caches, the same
/// contacts again.
#[test]
fn contacts_within_cached_matches_the_plain_form_and_caches_the_hull_pairs() {
    let mut rng = Rng(8);
    let hull = |rng: &mut Rng| {
        let points: Vec<geom::Point3> = (0..12).map(|_| rng.point(0.8)).collect();
        Shape::convex_hull(&points).unwrap()
    };
    let parts = vec![
        geom::Part::new(hull(&mut rng), Isometry3::translation(-0.6, 0.0, 0.0)),
        geom::Part::new(
            Shape::cuboid(Vector3::new(0.3, 0.3, 0.3)).unwrap(),
            Isometry3::translation(0.0, 0.5, 0.0),
        ),
        geom::Part::new(hull(&mut rng), Isometry3::translation(0.6, 0.0, 0.0)),
        geom::Part::new(
            Shape::ball(0.3).unwrap(),
            Isometry3::translation(0.0, -0.5, 0.0),
        ),
    ];
    let shapes: Vec<Shape> = vec![
        hull(&mut rng),
        hull(&mut rng),
        Shape::cuboid(Vector3::new(0.5, 0.3, 0.7)).unwrap(),
        Shape::ball(0.4).unwrap(),
        Shape::capsule(0.5, 0.3).unwrap(),
        Shape::compound(parts).unwrap(),
    ];
    let (mut cached_pairs, mut hull_pairs, mut part_axes, mut preferred) = (0, 0, 0, 0);
    for _ in 0..60 {
        let posed: Vec<Posed> = (0..40)
            .map(|k| {
                let pose = Isometry3::from_parts(rng.point(2.0).coords.into(), rng.rotation());
                Posed::new(&shapes[k % shapes.len()], &pose)
            })
            .collect();
        let pairs: Vec<(&Posed, &Posed, Real)> = (0..posed.len())
            .flat_map(|i| (i + 1..posed.len()).map(move |j| (i, j)))
            .map(|(i, j)| (&posed[i], &posed[j], 0.05))
            .collect();
        let mut plain = Vec::new();
        StagedFilter::new().contacts_within(&pairs, |k, c| plain.push((k, c)));
        // The cached form's contacts, and the axes it leaves grouped by pair.
        let cached = |before: &[&[PartAxis]]| {
            let (mut contacts, mut found_axes) = (Vec::new(), Vec::new());
            StagedFilter::new().contacts_within_cached(&pairs, before, &mut found_axes, |k, c| {
                contacts.push((k, c))
            });
            let mut left: Vec<Vec<PartAxis>> = vec![Vec::new(); pairs.len()];
            for (k, axis) in found_axes {
                left[k].push(axis);
            }
            (contacts, left)
        };
        let (first, left) = cached(&vec![&[][..]; pairs.len()]);
        // The same contacts, but where two polyhedra's face axis came within the face
        // preference (and the bias) of a better edge axis: then the face's, at most that
        // much deeper.
        assert_eq!(first.len(), plain.len());
        for ((k, c), (plain_k, p)) in first.iter().zip(&plain) {
            assert_eq!(k, plain_k);
            if c != p {
                assert!(
                    c.depth >= p.depth
                        && c.depth <= p.depth + FACE_PREFERENCE + 2e-3 * c.depth.abs() + 1e-4,
                    "pair {k}: {c:?} against {p:?}"
                );
                preferred += 1;
            }
        }
        for (k, (a, b, margin)) in pairs.iter().enumerate() {
            let polyhedron =
                |p: &Posed| matches!(p.volume, geom::Volume::Hull(_) | geom::Volume::Obb(_));
            let compound = |p: &Posed| matches!(p.volume, geom::Volume::Compound(_));
            let hulls = polyhedron(a)
                && polyhedron(b)
                && !matches!(
                    (&a.volume, &b.volume),
                    (geom::Volume::Obb(_), geom::Volume::Obb(_))
                );
            let reach = a.sphere.radius + b.sphere.radius + margin;
            let near = (a.sphere.center - b.sphere.center).norm() <= reach;
            if compound(a) || compound(b) {
                // One per pair of parts, in order, each naming a part of a compound side.
                assert!(
                    left[k].windows(2).all(|w| w[0].parts < w[1].parts),
                    "pair {k}"
                );
                for e in &left[k] {
                    assert!(e.parts.iter().all(|&p| p < 4), "pair {k}");
                    assert!(compound(a) || e.parts[0] == 0, "pair {k}");
                    assert!(compound(b) || e.parts[1] == 0, "pair {k}");
                }
                part_axes += left[k].len();
            } else if hulls {
                assert!(left[k].len() <= 1 && left[k].iter().all(|e| e.parts == [0, 0]));
            } else {
                assert!(left[k].is_empty(), "pair {k}");
            }
            hull_pairs += usize::from(hulls && near);
            cached_pairs += usize::from(hulls && !left[k].is_empty());
        }
        let before: Vec<&[PartAxis]> = left.iter().map(Vec::as_slice).collect();
        let (again, again_left) = cached(&before);
        assert_eq!(again, first);
        assert_eq!(again_left, left);
    }
    // (Pairs the boxes or the line of the centres find apart leave no axis.)
    assert!(
        cached_pairs > 1_000 && hull_pairs > 2_000 && part_axes > 300 && preferred > 10,
        "{cached_pairs} {hull_pairs} {part_axes} {preferred}"
    );
}
