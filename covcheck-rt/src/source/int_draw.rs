//! [`IntDraw`]: the record of one integer draw that lets campaigns
//! move between a choice index and the value the program saw.

use crate::choice::IntDomain;

/// Where an integer was drawn and from which domain: what the campaign
/// mutator needs to turn a choice index into the value the program saw (and
/// back), for AFL's interesting values, arithmetic and input-to-state
/// replacement. Recorded only when asked for (`Source::record_int_draws`,
/// in campaigns), so ordinary runs pay nothing for it.
// Recorded by `Source::draw_int` in every build, read only by campaigns.
#[cfg_attr(not(feature = "campaign"), allow(dead_code))]
#[derive(Clone, Copy, Debug)]
pub struct IntDraw {
    /// Position of the choice in the sequence.
    pub position: usize,
    pub domain: IntDomain,
    /// Width of the integer type in bits.
    pub bits: u32,
    pub signed: bool,
}

#[cfg_attr(not(feature = "campaign"), allow(dead_code))]
impl IntDraw {
    /// The value's two's-complement bit pattern (zero-extended to 64 bits)
    /// for a choice index; `None` for types wider than 64 bits.
    pub fn value_bits(&self, index: u64) -> Option<u64> {
        if self.bits > 64 {
            return None;
        }
        let ordinal = self.domain.ordinal(u128::from(index));
        Some(((ordinal ^ self.sign_flip()) as u64) & self.mask())
    }

    /// The choice index that draws the value with bit pattern `bits`, if the
    /// value lies in the domain.
    pub fn index_of(&self, bits: u64) -> Option<u64> {
        if self.bits > 64 {
            return None;
        }
        let bits = bits & self.mask();
        let ordinal = if self.signed {
            let shift = 64 - self.bits;
            (((bits << shift) as i64 >> shift) as i128 as u128) ^ self.sign_flip()
        } else {
            u128::from(bits)
        };
        u64::try_from(self.domain.index(ordinal)?).ok()
    }

    fn mask(&self) -> u64 {
        if self.bits >= 64 {
            u64::MAX
        } else {
            (1 << self.bits) - 1
        }
    }

    fn sign_flip(&self) -> u128 {
        if self.signed { 1 << 127 } else { 0 }
    }
}
