//! Adler-32 (zlib, RFC 1950) with a running state, and CRC-32 (IEEE 802.3,
//! reflected, as in zip and PNG) computed bit by bit.

const ADLER_MOD: u32 = 65521;

/// A running Adler-32: feed it in pieces, read it at any point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Adler32 {
    a: u32,
    b: u32,
}

impl Default for Adler32 {
    fn default() -> Self {
        Adler32 { a: 1, b: 0 }
    }
}

impl Adler32 {
    pub fn update(&mut self, bytes: &[u8]) {
        // 5552 bytes is the most that cannot overflow `b` before reducing.
        for chunk in bytes.chunks(5552) {
            for &byte in chunk {
                self.a += u32::from(byte);
                self.b += self.a;
            }
            self.a %= ADLER_MOD;
            self.b %= ADLER_MOD;
        }
    }

    pub fn value(&self) -> u32 {
        self.b << 16 | self.a
    }
}

pub fn adler32(bytes: &[u8]) -> u32 {
    let mut state = Adler32::default();
    state.update(bytes);
    state.value()
}

pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            let low = crc & 1;
            crc >>= 1;
            if low == 1 {
                crc ^= 0xEDB8_8320;
            }
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;
    use covcheck_rt::covcheck;

    #[covcheck]
    fn adler32_in_pieces_equals_adler32_at_once(bytes: Vec<u8>, cuts: Vec<u16>) {
        let mut state = Adler32::default();
        let mut at = 0;
        for &cut in &cuts {
            let end = (at + usize::from(cut)).min(bytes.len());
            state.update(&bytes[at..end]);
            at = end;
        }
        state.update(&bytes[at..]);
        assert_eq!(state.value(), adler32(&bytes));
        assert!(state.value() & 0xFFFF < ADLER_MOD);
    }

    #[covcheck]
    fn crc32_sees_every_single_bit_flip(mut bytes: Vec<u8>, bit: u32) {
        if bytes.is_empty() {
            return;
        }
        let before = crc32(&bytes);
        let bit = bit as usize % (bytes.len() * 8);
        bytes[bit / 8] ^= 1 << (bit % 8);
        assert_ne!(crc32(&bytes), before);
    }
}
