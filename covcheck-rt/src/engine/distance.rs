//! Compare distance (libFuzzer's *value profile*): how close each
//! comparison with a wide constant came to equality in one execution.
//!
//! A gate like `checksum(x) == 0x5eed_f00d` gives coverage nothing until it
//! opens, and input-to-state nothing when the compared value is a
//! transform of the input it cannot invert (a rotation after a multiply,
//! a hash step). An input that brings the two operands closer, bit by bit,
//! is progress all the same: the campaign keeps it
//! ([`crate::engine::campaign`]'s `distances`), and mutating it further
//! climbs towards the constant one step at a time.
//!
//! Only comparisons with a compile-time constant of at least 16 bits and
//! at least 256 count ([`record`]), each *site* known by its constant and
//! width (SanitizerCoverage hands the callbacks no program counter that
//! stable Rust can read): small constants are loop bounds, flags and ASCII
//! bytes, whose distances are noise, and one-byte magic values are what
//! input-to-state already writes. Closeness is the number of equal bits
//! (`width - popcount(a ^ b)`), as in libFuzzer.
//!
//! Recording costs a flag check per comparison when off; when on, an atomic
//! maximum per comparison and nothing per execution beyond the slots the
//! execution touched: no map is cleared or scanned whole.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU16, AtomicUsize, Ordering};

/// Comparison sites told apart (a hash of constant and width picks one).
pub const SLOTS: usize = 4096;

static ON: AtomicBool = AtomicBool::new(false);
/// Per slot, 1 + the most equal bits this execution reached (0: untouched).
static CLOSEST: [AtomicU8; SLOTS] = [const { AtomicU8::new(0) }; SLOTS];
/// The slots this execution touched, in the order first touched.
static TOUCHED: [AtomicU16; SLOTS] = [const { AtomicU16::new(0) }; SLOTS];
static TOUCHED_LEN: AtomicUsize = AtomicUsize::new(0);

/// Held by the unit tests that record: the recording is global.
#[cfg(test)]
pub(crate) static TEST_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Turns recording on or off for the campaign (off by default).
pub fn set_enabled(on: bool) {
    ON.store(on, Ordering::Relaxed);
}

/// Whether comparisons are being recorded.
#[inline(always)]
pub fn enabled() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Records a comparison of `value` with the constant `constant`, both
/// `size` bytes wide, if it is one that counts (see the
/// [module](self) documentation).
#[inline]
pub fn record(constant: u64, value: u64, size: u8) {
    if size < 2 || constant < 256 {
        return;
    }
    let bits = u32::from(size) * 8;
    let equal_bits = bits - (constant ^ value).count_ones();
    let (above, below) = (value.wrapping_sub(constant), constant.wrapping_sub(value));
    let mask = u64::MAX >> (64 - bits);
    let apart = (above & mask).min(below & mask);
    // Both at most 65: each fits a byte.
    reach(slot_of(constant, size, Measure::Bits), equal_bits as u8 + 1);
    reach(
        slot_of(constant, size, Measure::Magnitude),
        (apart.leading_zeros() - (64 - bits)) as u8 + 1,
    );
}

/// The two ways a comparison's operands come closer, each its own slot.
#[derive(Clone, Copy)]
enum Measure {
    /// More equal bits: `popcount(a ^ b)` falls (libFuzzer's measure). A
    /// transform that moves few bits (a shift, a mask) climbs by it.
    Bits,
    /// A smaller difference, on a log scale: `|a - b|` loses a binary
    /// digit. A sum or a polynomial of input values (a rolling hash, a
    /// weighted checksum) climbs by it, each addend a digit.
    Magnitude,
}

/// Raises `slot`'s closeness this execution to `closeness` (1 or more).
#[inline]
fn reach(slot: usize, closeness: u8) {
    if CLOSEST[slot].fetch_max(closeness, Ordering::Relaxed) == 0 {
        let at = TOUCHED_LEN.fetch_add(1, Ordering::Relaxed);
        if let Some(touched) = TOUCHED.get(at) {
            touched.store(slot as u16, Ordering::Relaxed);
        }
    }
}

/// The slot of comparisons with `constant` at `size` bytes, by `measure`.
fn slot_of(constant: u64, size: u8, measure: Measure) -> usize {
    let key = constant ^ (u64::from(size) << 59) ^ ((measure as u64) << 58);
    // Fibonacci hashing: the top bits of a multiply by 2^64/φ.
    (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - SLOTS.trailing_zeros())) as usize
}

/// Moves what the last execution reached into `into` (cleared first), as
/// (slot, equal bits + 1), and resets for the next execution.
pub fn take(into: &mut Vec<(u16, u8)>) {
    into.clear();
    let len = TOUCHED_LEN.swap(0, Ordering::Relaxed).min(SLOTS);
    for touched in &TOUCHED[..len] {
        let slot = touched.load(Ordering::Relaxed);
        let closeness = CLOSEST[usize::from(slot)].swap(0, Ordering::Relaxed);
        if closeness > 0 {
            into.push((slot, closeness));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_execution_records_its_closest_approach_to_each_wide_constant() {
        let _recording = TEST_LOCK.lock();
        let mut reached = Vec::new();
        take(&mut reached);
        record(0xdead_beef, 0xdead_beee, 4); // one bit off
        record(0xdead_beef, 0, 4); // farther: the closest stays
        record(0x1234, 0x1234, 2); // equal
        record(7, 6, 4); // a small constant: not recorded
        record(0x300, 0x301, 1); // one byte wide: not recorded
        take(&mut reached);
        reached.sort_unstable();
        let mut expected = vec![
            (slot_of(0xdead_beef, 4, Measure::Bits) as u16, 32),
            (slot_of(0xdead_beef, 4, Measure::Magnitude) as u16, 32),
            (slot_of(0x1234, 2, Measure::Bits) as u16, 17),
            (slot_of(0x1234, 2, Measure::Magnitude) as u16, 17),
        ];
        expected.sort_unstable();
        assert_eq!(reached, expected);
        take(&mut reached);
        assert!(reached.is_empty(), "taking resets: {reached:?}");
    }

    #[test]
    fn a_difference_counts_its_binary_digits_either_way_round() {
        let _recording = TEST_LOCK.lock();
        let mut reached = Vec::new();
        take(&mut reached);
        // 0x1000 below, then 3 above: 13 binary digits apart, then 2.
        record(0x5000, 0x4000, 2);
        let magnitude = slot_of(0x5000, 2, Measure::Magnitude) as u16;
        take(&mut reached);
        assert!(reached.contains(&(magnitude, 16 - 13 + 1)), "{reached:?}");
        record(0x5000, 0x5003, 2);
        take(&mut reached);
        assert!(reached.contains(&(magnitude, 16 - 2 + 1)), "{reached:?}");
        // Wrapping: u32::MAX is one below 0 ... but 0 is no wide constant;
        // 0xFFFF_FF00 is 0x200 away from 0x100 across the wrap.
        record(0x100, 0xFFFF_FF00, 4);
        take(&mut reached);
        let wrapped = slot_of(0x100, 4, Measure::Magnitude) as u16;
        assert!(reached.contains(&(wrapped, 32 - 10 + 1)), "{reached:?}");
    }

    #[test]
    fn widths_constants_and_measures_pick_different_slots() {
        use Measure::*;
        assert_ne!(slot_of(0xdead_beef, 4, Bits), slot_of(0xdead_beef, 8, Bits));
        assert_ne!(slot_of(0x1000, 2, Bits), slot_of(0x1001, 2, Bits));
        assert_ne!(slot_of(0x1000, 2, Bits), slot_of(0x1000, 2, Magnitude));
    }
}
