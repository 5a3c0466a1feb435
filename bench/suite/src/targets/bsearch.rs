//! Binary search over the implicit sorted array `a[i] = i` of length `len`.
//! Its midpoint `(lo + hi) / 2` overflows only when `lo + hi` exceeds
//! `u64::MAX`, that is for targets beyond 2^63 in an array at least as long.

fn search(len: u64, target: u64) -> Option<Option<u64>> {
    let (mut lo, mut hi) = (0u64, len);
    for _ in 0..200 {
        if lo >= hi {
            return Some(None);
        }
        // The bug: should be `lo + (hi - lo) / 2`.
        let mid = lo.wrapping_add(hi) / 2;
        match mid.cmp(&target) {
            std::cmp::Ordering::Equal => return Some(Some(mid)),
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
        }
    }
    None // did not terminate
}

pub fn check(len: u64, target: u64) -> Result<(), String> {
    let expected = (target < len).then_some(target);
    match search(len, target) {
        Some(found) if found == expected => Ok(()),
        Some(found) => Err(format!(
            "search({len}, {target}) = {found:?}, expected {expected:?}"
        )),
        None => Err(format!("search({len}, {target}) did not terminate")),
    }
}
