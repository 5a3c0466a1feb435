//! Times of day as `HH:MM[:SS]` and durations as `1h30m`, `90s`, `2d`.

pub const DAY: u32 = 24 * 60 * 60;

/// Seconds since midnight of `HH:MM` or `HH:MM:SS`, on a 24-hour clock.
/// The leap second `23:59:60` (RFC 3339) is read as the last second of the
/// day.
pub fn parse_time(text: &str) -> Option<u32> {
    let mut fields = text.split(':');
    let mut seconds = 0;
    let mut count = 0;
    // Planted bug (medium): the seconds admit 60 for the leap second, but
    // nothing checks that it is 23:59 or maps it to the last second, so
    // `HH:MM:60` reads as the next minute and `23:59:60` as a whole day.
    for (limit, field) in [24, 60, 61].into_iter().zip(&mut fields) {
        if field.len() != 2 || !field.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let value: u32 = field.parse().ok()?;
        if value >= limit {
            return None;
        }
        seconds = seconds * 60 + value;
        count += 1;
    }
    if fields.next().is_some() {
        return None;
    }
    match count {
        2 => Some(seconds * 60),
        3 => Some(seconds),
        _ => None,
    }
}

pub fn format_time(seconds: u32) -> String {
    let s = seconds % DAY;
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// A sum of numbers with units `d`, `h`, `m` and `s`, each unit at most
/// once and in that order: `1d2h`, `90m`, `45s`.
pub fn parse_duration(text: &str) -> Option<u64> {
    const UNITS: [(u8, u64); 4] = [(b'd', 86_400), (b'h', 3600), (b'm', 60), (b's', 1)];
    let bytes = text.as_bytes();
    let mut total = 0u64;
    let mut at = 0;
    let mut next_unit = 0;
    while at < bytes.len() {
        let start = at;
        while at < bytes.len() && bytes[at].is_ascii_digit() {
            at += 1;
        }
        if at == start || at == bytes.len() {
            return None;
        }
        let number: u64 = text[start..at].parse().ok()?;
        let unit = UNITS[next_unit..]
            .iter()
            .position(|&(u, _)| u == bytes[at])?;
        let (_, scale) = UNITS[next_unit + unit];
        next_unit += unit + 1;
        total = total.checked_add(number.checked_mul(scale)?)?;
        at += 1;
    }
    (at > 0).then_some(total)
}

pub fn format_duration(mut seconds: u64) -> String {
    if seconds == 0 {
        return "0s".to_string();
    }
    let mut out = String::new();
    for (unit, scale) in [('d', 86_400), ('h', 3600), ('m', 60), ('s', 1)] {
        if seconds >= scale {
            out.push_str(&(seconds / scale).to_string());
            out.push(unit);
            seconds %= scale;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use covcheck_rt::covcheck;

    #[covcheck]
    fn time_of_day_roundtrip(seconds: u32) {
        let text = format_time(seconds);
        assert_eq!(parse_time(&text), Some(seconds % DAY));
        if seconds.is_multiple_of(60) {
            assert_eq!(parse_time(&text[..5]), Some(seconds % DAY));
        }
    }

    #[covcheck]
    fn times_parse_to_their_fields(hour: u8, minute: u8, second: u8) {
        let text = format!("{hour:02}:{minute:02}:{second:02}");
        let expected = (u32::from(hour) * 60 + u32::from(minute)) * 60 + u32::from(second);
        // The valid times are those that print back, and the leap second.
        let valid = format_time(expected) == text;
        match parse_time(&text) {
            Some(seconds) => assert!(valid && seconds == expected || seconds == DAY - 1),
            None => assert!(!valid),
        }
    }

    #[covcheck]
    fn durations_parse_to_what_they_format_to(text: String) {
        if let Some(seconds) = parse_duration(&text) {
            assert_eq!(parse_duration(&format_duration(seconds)), Some(seconds));
        }
    }
}
