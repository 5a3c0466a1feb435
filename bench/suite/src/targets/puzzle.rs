//! fuzzcheck's ordered-conditions puzzle: a sequence of small enum values
//! (here `(variant % 8, payload)`) must contain seven given values in order.

/// The seven `(variant % 8, payload)` pairs, in the order they must appear.
pub const WANTED: [(u8, u8); 7] = [
    (1, 10),
    (3, 27),
    (0, 255),
    (7, 4),
    (2, 100),
    (5, 1),
    (6, 77),
];

pub fn check(items: &[(u8, u8)]) -> Result<(), String> {
    let mut stage = 0;
    for &(variant, payload) in items {
        if (variant % 8, payload) == WANTED[stage] {
            stage += 1;
            if stage == WANTED.len() {
                return Err("all seven conditions met in order".into());
            }
        }
    }
    Ok(())
}

pub fn size(items: &[(u8, u8)]) -> usize {
    items.len()
}
