//! A framed wire format: an eleven-byte header, a payload and, when the
//! flags say so, a CRC-32 of the payload. Table frames carry records of
//! `[id, length, value...]`.
//!
//! ```text
//! magic: u32 LE | version: u8 | application: u16 LE | kind: u8 | flags: u8 | length: u16 LE | payload | crc32: u32 LE
//! ```

use crate::checksum::crc32;

pub const MAGIC: u32 = 0x7E11_A5ED;
pub const VERSION: u8 = 2;
/// The application whose frames these are; others share the port.
pub const APPLICATION: u16 = 0x0A55;
/// The frame ends in a CRC-32 of the payload.
pub const FLAG_CHECKSUM: u8 = 1;
const HEADER: usize = 11;
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
    OtherApplication,
    BadKind(u8),
    BadFlags(u8),
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

/// The bytes of a frame, with its checksum.
pub fn encode(kind: Kind, payload: &[u8]) -> Result<Vec<u8>, FrameError> {
    let length = u16::try_from(payload.len()).map_err(|_| FrameError::PayloadTooLong)?;
    if kind == Kind::Ping && length != 0 {
        return Err(FrameError::PingWithPayload);
    }
    let mut out = Vec::with_capacity(HEADER + payload.len() + TRAILER);
    out.extend_from_slice(&MAGIC.to_le_bytes());
    out.push(VERSION);
    out.extend_from_slice(&APPLICATION.to_le_bytes());
    out.push(kind.code());
    out.push(FLAG_CHECKSUM);
    out.extend_from_slice(&length.to_le_bytes());
    out.extend_from_slice(payload);
    let crc = crc32(payload);
    out.extend_from_slice(&crc.to_le_bytes());
    Ok(out)
}

/// Checks and splits the frame at the front of `bytes`: the frame, and how
/// many bytes it took. What follows it is the next frame's.
pub fn decode(bytes: &[u8]) -> Result<(Frame, usize), FrameError> {
    if bytes.len() < HEADER {
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
    if u16::from_le_bytes([bytes[5], bytes[6]]) != APPLICATION {
        return Err(FrameError::OtherApplication);
    }
    let kind = Kind::from_code(bytes[7]).ok_or(FrameError::BadKind(bytes[7]))?;
    let flags = bytes[8];
    if flags & !FLAG_CHECKSUM != 0 {
        return Err(FrameError::BadFlags(flags));
    }
    let trailer = if flags & FLAG_CHECKSUM != 0 {
        TRAILER
    } else {
        0
    };
    let length = usize::from(u16::from_le_bytes([bytes[9], bytes[10]]));
    let room = bytes.len() - HEADER;
    if room < trailer || length > room - trailer {
        return Err(FrameError::Short);
    }
    let end = HEADER + length;
    if trailer != 0 && word(end) != crc32(&bytes[HEADER..end]) {
        return Err(FrameError::BadChecksum);
    }
    if kind == Kind::Ping && length != 0 {
        return Err(FrameError::PingWithPayload);
    }
    let frame = Frame {
        kind,
        payload: bytes[HEADER..end].to_vec(),
    };
    Ok((frame, end + trailer))
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
    fn frame_roundtrip(selector: u8, payload: Vec<u8>, next: Vec<u8>) {
        let kind = kind_of(selector);
        match encode(kind, &payload) {
            Ok(mut bytes) => {
                let len = bytes.len();
                assert_eq!(len, HEADER + payload.len() + TRAILER);
                bytes.extend_from_slice(&next);
                assert_eq!(decode(&bytes), Ok((Frame { kind, payload }, len)));
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
        // A flipped bit makes the frame invalid, or (in the length or the
        // flags) a frame that ends before the bytes do.
        let mut flipped = bytes.clone();
        let bit = flip as usize % (bytes.len() * 8);
        flipped[bit / 8] ^= 1 << (bit % 8);
        if let Ok((_, used)) = decode(&flipped) {
            assert!(used < flipped.len());
        }
    }

    #[covcheck]
    fn table_frames_account_for_every_byte(bytes: Vec<u8>) {
        let Ok((frame, _)) = decode(&bytes) else {
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
