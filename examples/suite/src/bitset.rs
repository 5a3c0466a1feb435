//! A fixed-capacity bit set over 64-bit words.

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bitset {
    words: Vec<u64>,
    capacity: usize,
}

impl Bitset {
    /// An empty set of the bits `0..capacity`.
    pub fn new(capacity: usize) -> Self {
        Bitset {
            words: vec![0; capacity.div_ceil(64)],
            capacity,
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Adds `bit`; returns whether it was absent. Panics past the capacity.
    pub fn insert(&mut self, bit: usize) -> bool {
        assert!(bit < self.capacity, "bit {bit} out of range");
        let mask = 1u64 << (bit % 64);
        let word = &mut self.words[bit / 64];
        let absent = *word & mask == 0;
        *word |= mask;
        absent
    }

    /// Removes `bit`; returns whether it was present.
    pub fn remove(&mut self, bit: usize) -> bool {
        if bit >= self.capacity {
            return false;
        }
        let mask = 1u64 << (bit % 64);
        let word = &mut self.words[bit / 64];
        let present = *word & mask != 0;
        *word &= !mask;
        present
    }

    pub fn contains(&self, bit: usize) -> bool {
        bit < self.capacity && self.words[bit / 64] & (1u64 << (bit % 64)) != 0
    }

    /// The number of bits set.
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// Adds every bit of `other` that fits this set's capacity.
    pub fn union_with(&mut self, other: &Bitset) {
        for (n, (mine, theirs)) in self.words.iter_mut().zip(&other.words).enumerate() {
            *mine |= theirs & Self::word_mask(self.capacity, n);
        }
    }

    /// The bits of `0..capacity` that are not in the set.
    pub fn complement(&self) -> Bitset {
        Bitset {
            words: self
                .words
                .iter()
                .enumerate()
                .map(|(n, w)| !w & Self::word_mask(self.capacity, n))
                .collect(),
            capacity: self.capacity,
        }
    }

    /// The set bits, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(n, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let bit = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                Some(n * 64 + bit)
            })
        })
    }

    /// The bits of word `n` that lie below `capacity`.
    fn word_mask(capacity: usize, n: usize) -> u64 {
        let below = capacity.saturating_sub(n * 64);
        if below >= 64 {
            u64::MAX
        } else {
            (1u64 << below) - 1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use covcheck_rt::covcheck;
    use std::collections::BTreeSet;

    fn build(capacity: usize, bits: &[u16]) -> (Bitset, BTreeSet<usize>) {
        let mut set = Bitset::new(capacity);
        let mut model = BTreeSet::new();
        if capacity > 0 {
            for &bit in bits {
                let bit = usize::from(bit) % capacity;
                assert_eq!(set.insert(bit), model.insert(bit));
            }
        }
        (set, model)
    }

    #[covcheck]
    fn bitset_holds_exactly_the_inserted_bits(capacity: u16, bits: Vec<u16>, removed: Vec<u16>) {
        let capacity = usize::from(capacity % 1024);
        let (mut set, mut model) = build(capacity, &bits);
        for &bit in &removed {
            let bit = usize::from(bit);
            assert_eq!(set.remove(bit), model.remove(&bit));
        }
        assert_eq!(set.len(), model.len());
        assert_eq!(set.is_empty(), model.is_empty());
        assert!(set.iter().eq(model.iter().copied()));
        for bit in 0..capacity + 64 {
            assert_eq!(set.contains(bit), model.contains(&bit));
        }
    }

    #[covcheck]
    fn bitset_union_is_the_union_of_the_sets(a: (u16, Vec<u16>), b: (u16, Vec<u16>)) {
        let (mut left, left_model) = build(usize::from(a.0 % 512), &a.1);
        let (right, right_model) = build(usize::from(b.0 % 512), &b.1);
        left.union_with(&right);
        let expected: Vec<usize> = left_model
            .union(&right_model)
            .copied()
            .filter(|&bit| bit < left.capacity())
            .collect();
        assert!(left.iter().eq(expected));
    }

    #[covcheck]
    fn complement_holds_the_other_bits(capacity: u16, bits: Vec<u16>) {
        let capacity = usize::from(capacity % 1024);
        let (set, model) = build(capacity, &bits);
        let other = set.complement();
        assert_eq!(other.len(), capacity - model.len());
        for bit in other.iter() {
            assert!(!model.contains(&bit));
        }
    }
}
