//! Stable hashing: seed file names and per-property RNG seeds derive from
//! it, so it must give the same value across Rust versions and platforms,
//! which `std`'s hashers do not promise.

/// 64-bit FNV-1a of `bytes`.
pub fn fnv1a(bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes.into_iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The hash of a choice sequence (its indices as little-endian bytes): a
/// seed file's name.
pub fn content_hash(indices: &[u64]) -> u64 {
    fnv1a(indices.iter().flat_map(|index| index.to_le_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_hash_is_stable() {
        // Seed file names depend on this value: it must never change.
        assert_eq!(content_hash(&[12345]), 0xe71e_b185_e2ed_cc4c);
        assert_eq!(fnv1a(*b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
