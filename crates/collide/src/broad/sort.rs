//! The sorts the row sweep needs, each linear in the common case: a stable counting sort, an
//! insertion sort that gives up past a budget, and the sort of the output pairs.

/// A stable counting sort of `items` by `key(item) < buckets`: linear in items plus buckets.
/// On return `counts[b]` is the end of bucket `b`'s run.
pub(super) fn counting_sort<T: Copy>(
    items: &mut Vec<T>,
    scratch: &mut Vec<T>,
    counts: &mut Vec<u32>,
    buckets: usize,
    key: impl Fn(&T) -> usize,
) {
    counts.clear();
    counts.resize(buckets + 1, 0);
    let Some(&first) = items.first() else {
        return;
    };
    for item in items.iter() {
        counts[key(item) + 1] += 1;
    }
    for b in 1..counts.len() {
        counts[b] += counts[b - 1];
    }
    scratch.clear();
    scratch.resize(items.len(), first);
    for item in items.iter() {
        let at = &mut counts[key(item)];
        scratch[*at as usize] = *item;
        *at += 1;
    }
    std::mem::swap(items, scratch);
}

/// Insertion sort by `precedes`, cheap on nearly sorted input. Gives up (returns `false`, the
/// items permuted but not sorted) once it has made more than `budget` moves.
pub(super) fn insertion_sort_within<T>(
    items: &mut [T],
    budget: usize,
    precedes: impl Fn(&T, &T) -> bool,
) -> bool {
    let mut moves = 0usize;
    for i in 1..items.len() {
        let mut j = i;
        while j > 0 && precedes(&items[j], &items[j - 1]) {
            items.swap(j, j - 1);
            j -= 1;
            moves += 1;
        }
        if moves > budget {
            return false;
        }
    }
    true
}

/// Sorts pairs `(i, j)` of indices below `n` in about linear time: a counting sort by `i`,
/// then a sort of each run of pairs that share an `i` (a few, except for walls and floors).
pub(super) fn sort_pairs(
    pairs: &mut Vec<(u32, u32)>,
    n: usize,
    scratch: &mut Vec<(u32, u32)>,
    counts: &mut Vec<u32>,
) {
    counting_sort(pairs, scratch, counts, n, |&(i, _)| i as usize);
    let mut start = 0;
    for &end in counts.iter().take(n) {
        let run = &mut pairs[start..end as usize];
        if run.len() > 1 {
            run.sort_unstable();
        }
        start = end as usize;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_sort_by_first_then_second_index() {
        // A "wall" (index 0) with many partners given in a scrambled order, and short runs.
        let mut pairs: Vec<(u32, u32)> = (1..500u32).map(|j| (0, (j * 7919) % 499 + 1)).collect();
        pairs.extend([(5, 9), (3, 4), (5, 6), (498, 499), (3, 8)]);
        let mut expected = pairs.clone();
        expected.sort_unstable();
        let (mut scratch, mut counts) = (Vec::new(), Vec::new());
        sort_pairs(&mut pairs, 500, &mut scratch, &mut counts);
        assert_eq!(pairs, expected);
        sort_pairs(&mut pairs, 500, &mut scratch, &mut counts);
        assert_eq!(pairs, expected);
        // No pairs after some: nothing of the last call's counts may remain.
        let mut empty = Vec::new();
        sort_pairs(&mut empty, 500, &mut scratch, &mut counts);
        assert!(empty.is_empty());
        sort_pairs(&mut empty, 0, &mut scratch, &mut counts);
        assert!(empty.is_empty());
    }

    #[test]
    fn counting_sort_is_stable_and_insertion_sort_keeps_its_budget() {
        let mut items: Vec<(usize, u32)> =
            (0..100u32).map(|i| ((i as usize * 37) % 7, i)).collect();
        let (mut scratch, mut counts) = (Vec::new(), Vec::new());
        counting_sort(&mut items, &mut scratch, &mut counts, 7, |&(k, _)| k);
        assert!(
            items.windows(2).all(|w| w[0] < w[1]),
            "by key, then in input order"
        );
        assert_eq!(counts[6] as usize, items.len());

        let mut nearly: Vec<u32> = (0..50).collect();
        nearly.swap(10, 11);
        assert!(insertion_sort_within(&mut nearly, 1, |a, b| a < b));
        assert!(nearly.windows(2).all(|w| w[0] < w[1]));
        let mut reversed: Vec<u32> = (0..50).rev().collect();
        assert!(!insertion_sort_within(&mut reversed, 10, |a, b| a < b));
    }
}
