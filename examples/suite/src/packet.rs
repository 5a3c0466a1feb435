//! A framed wire format: an eight-byte header, a payload and a CRC-32 of
//! both. Table frames carry records of `[id, length, value...]`.
//!
//! ```text
//! magic: u32 LE | version: u8 | kind: u8 | length: u16 LE | payload | crc32: u32 LE
//! ```

use crate::checksum::crc32;

pub const MAGIC: u32 = 0x7E11_A5ED;
pub const VERSION: u8 = 2;
const HEADER: usize = 8;
const TRAILER: usize = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Ping,
    Data,
    Table,
}

impl Kind {
    pub fn code(self) -> u8 {
        match self {
            Kind::Ping => 1,
            Kind::Data => 2,
            Kind::Table => 7,
        }
    }

    pub fn from_code(code: u8) -> Option<Kind> {
        match code {
            1 => Some(Kind::Ping),
            2 => Some(Kind::Data),
            7 => Some(Kind::Table),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub kind: Kind,
    pub payload: Vec<u8>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameError {
    Short,
    BadMagic,
    BadVersion(u8),
    BadKind(u8),
    LengthMismatch,
    BadChecksum,
    /// A ping carries nothing.
    PingWithPayload,
    /// A record runs past the end of the payload.
    TruncatedRecord(usize),
    PayloadTooLong,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record<'a> {
    pub id: u8,
    pub value: &'a [u8],
}

/// The bytes of a frame.
pub fn encode(kind: Kind, payload: &[u8]) -> Result<Vec<u8>, FrameError> {
    let length = u16::try_from(payload.len()).map_err(|_| FrameError::PayloadTooLong)?;
    if kind == Kind::Ping && length != 0 {
        return Err(FrameError::PingWithPayload);
    }
    let mut out = Vec::with_capacity(HEADER + payload.len() + TRAILER);
    out.extend_from_slice(&MAGIC.to_le_bytes());
    out.push(VERSION);
    out.push(kind.code());
    out.extend_from_slice(&length.to_le_bytes());
    out.extend_from_slice(payload);
    let crc = crc32(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    Ok(out)
}

/// Checks and splits one frame, which must fill `bytes`.
pub fn decode(bytes: &[u8]) -> Result<Frame, FrameError> {
    if bytes.len() < HEADER + TRAILER {
        return Err(FrameError::Short);
    }
    let word =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    if word(0) != MAGIC {
        return Err(FrameError::BadMagic);
    }
    if bytes[4] != VERSION {
        return Err(FrameError::BadVersion(bytes[4]));
    }
    let kind = Kind::from_code(bytes[5]).ok_or(FrameError::BadKind(bytes[5]))?;
    let length = usize::from(u16::from_le_bytes([bytes[6], bytes[7]]));
    if HEADER + length + TRAILER != bytes.len() {
        return Err(FrameError::LengthMismatch);
    }
    let end = HEADER + length;
    if word(end) != crc32(&bytes[..end]) {
        return Err(FrameError::BadChecksum);
    }
    if kind == Kind::Ping && length != 0 {
        return Err(FrameError::PingWithPayload);
    }
    Ok(Frame {
        kind,
        payload: bytes[HEADER..end].to_vec(),
    })
}

impl Frame {
    /// The records of a table frame's payload.
    pub fn records(&self) -> Result<Vec<Record<'_>>, FrameError> {
        let payload = &self.payload;
        let mut records = Vec::new();
        let mut at = 0;
        while at < payload.len() {
            if at + 2 > payload.len() {
                return Err(FrameError::TruncatedRecord(at));
            }
            let id = payload[at];
            let length = usize::from(payload[at + 1]);
            // Planted bug (deep): the bound forgets the two header bytes of
            // the record, so a value that runs one or two bytes past the end
            // of the payload is sliced out of range.
            if at + length > payload.len() {
                return Err(FrameError::TruncatedRecord(at));
            }
            let value = &payload[at + 2..at + 2 + length];
            records.push(Record { id, value });
            at += 2 + length;
        }
        Ok(records)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use covcheck_rt::covcheck;

    fn kind_of(selector: u8) -> Kind {
        match selector % 3 {
            0 => Kind::Ping,
            1 => Kind::Data,
            _ => Kind::Table,
        }
    }

    #[covcheck]
    fn frame_roundtrip(selector: u8, payload: Vec<u8>) {
        let kind = kind_of(selector);
        match encode(kind, &payload) {
            Ok(bytes) => {
                assert_eq!(bytes.len(), HEADER + payload.len() + TRAILER);
                assert_eq!(decode(&bytes), Ok(Frame { kind, payload }));
            }
            Err(error) => assert!(kind == Kind::Ping && error == FrameError::PingWithPayload),
        }
    }

    #[covcheck]
    fn damaged_frames_are_refused(selector: u8, payload: Vec<u8>, cut: u16, flip: u32) {
        let Ok(bytes) = encode(kind_of(selector), &payload) else {
            return;
        };
        let cut = usize::from(cut) % bytes.len();
        assert!(decode(&bytes[..cut]).is_err());
        let mut flipped = bytes.clone();
        let bit = flip as usize % (bytes.len() * 8);
        flipped[bit / 8] ^= 1 << (bit % 8);
        assert!(decode(&flipped).is_err());
    }

    #[covcheck]
    fn table_frames_account_for_every_byte(bytes: Vec<u8>) {
        let Ok(frame) = decode(&bytes) else {
            return;
        };
        if frame.kind != Kind::Table {
            return;
        }
        if let Ok(records) = frame.records() {
            let used: usize = records.iter().map(|r| 2 + r.value.len()).sum();
            assert_eq!(used, frame.payload.len());
        }
    }
}
