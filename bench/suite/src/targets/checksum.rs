//! A packet parser guarded by a magic byte, a length and a checksum, with a
//! bug past the checks: `[0xC5, len, payload.., checksum]` where the checksum
//! is the wrapping sum of the payload xor 0x5A.

pub fn parse(packet: &[u8]) -> Result<Option<u8>, String> {
    let [0xC5, len, rest @ ..] = packet else {
        return Ok(None);
    };
    let len = *len as usize;
    if rest.len() != len + 1 {
        return Ok(None);
    }
    let (payload, checksum) = rest.split_at(len);
    let sum = payload.iter().fold(0u8, |s, b| s.wrapping_add(*b)) ^ 0x5A;
    if sum != checksum[0] {
        return Ok(None);
    }
    // Past the checks: command 0x42 reads one byte too far.
    if payload.first() == Some(&0x42) && len >= 3 {
        return Err(format!("command 0x42 read past the payload of {len} bytes"));
    }
    Ok(payload.first().copied())
}

pub fn check(packet: &[u8]) -> Result<(), String> {
    parse(packet).map(|_| ())
}

pub fn size(packet: &[u8]) -> usize {
    packet.len()
}
