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
