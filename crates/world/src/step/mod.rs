//! The stages of a step that every response shares: finding contacts ([`collide`]) and moving
//! bodies ([`integrate`]). `World::step` calls them in order; see it for the list.

pub(crate) mod active;
pub(crate) mod collide;
pub(crate) mod integrate;
pub(crate) mod seams;
pub(crate) mod sleep;

pub(crate) use active::Active;

/// Merges the sorted `more` into the sorted `list`, an element in both kept once (`scratch`
/// a buffer, so that a step's merges do not allocate). Appends when `more` comes after `list`.
pub(crate) fn merge_sorted<T: Ord + Copy>(list: &mut Vec<T>, more: &[T], scratch: &mut Vec<T>) {
    let Some(first) = more.first() else {
        return;
    };
    if list.last().is_none_or(|last| last < first) {
        list.extend_from_slice(more);
        return;
    }
    scratch.clear();
    scratch.reserve(list.len() + more.len());
    let mut more = more.iter().copied().peekable();
    for &item in list.iter() {
        while let Some(m) = more.next_if(|&m| m < item) {
            scratch.push(m);
        }
        more.next_if_eq(&item);
        scratch.push(item);
    }
    scratch.extend(more);
    std::mem::swap(list, scratch);
}
pub(crate) use collide::Collision;

/// Merges `more` (sorted by `more_keys`) into `list` (sorted by `keys`, one key per entry),
/// from the back: only the entries of `list` after the first one merged move, each once, by
/// a swap, and nothing is reallocated while `list` has room. On equal keys `list`'s entries
/// come first. `more` is left holding what was swapped out.
pub(crate) fn merge_from_back<T: Clone, K: Ord + Copy>(
    list: &mut Vec<T>,
    keys: &mut Vec<K>,
    more: &mut [T],
    more_keys: &[K],
) {
    assert_eq!(list.len(), keys.len(), "one key per entry");
    assert_eq!(more.len(), more_keys.len(), "one key per entry");
    let old = list.len();
    // The lists grow by `more`'s length; the merge below fills every new place.
    list.extend_from_slice(more);
    keys.extend_from_slice(more_keys);
    let (mut i, mut j, mut w) = (old, more.len(), old + more.len());
    while j > 0 {
        w -= 1;
        if i > 0 && keys[i - 1] > more_keys[j - 1] {
            list.swap(i - 1, w);
            keys[w] = keys[i - 1];
            i -= 1;
        } else {
            std::mem::swap(&mut list[w], &mut more[j - 1]);
            keys[w] = more_keys[j - 1];
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::merge_from_back;

    #[test]
    fn merging_from_the_back_keeps_both_orders_and_puts_ties_after_the_list() {
        // Entries tagged by where they came from: the list's first on equal keys.
        let mut list: Vec<(u32, char)> = vec![(1, 'a'), (3, 'a'), (3, 'a'), (7, 'a')];
        let mut keys: Vec<u32> = list.iter().map(|e| e.0).collect();
        let mut more = vec![(0, 'b'), (3, 'b'), (5, 'b'), (9, 'b'), (9, 'c')];
        let more_keys: Vec<u32> = more.iter().map(|e| e.0).collect();
        merge_from_back(&mut list, &mut keys, &mut more, &more_keys);
        assert_eq!(
            list,
            [
                (0, 'b'),
                (1, 'a'),
                (3, 'a'),
                (3, 'a'),
                (3, 'b'),
                (5, 'b'),
                (7, 'a'),
                (9, 'b'),
                (9, 'c')
            ]
        );
        assert_eq!(keys, list.iter().map(|e| e.0).collect::<Vec<_>>());
        // Into an empty list, and nothing into a list.
        let (mut empty, mut no_keys) = (Vec::new(), Vec::new());
        merge_from_back(&mut empty, &mut no_keys, &mut [(2, 'x')], &[2]);
        assert_eq!((empty, no_keys), (vec![(2, 'x')], vec![2]));
        let before = list.clone();
        merge_from_back(&mut list, &mut keys, &mut [], &[]);
        assert_eq!(list, before);
    }
}
