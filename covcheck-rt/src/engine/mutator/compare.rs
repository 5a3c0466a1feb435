//! Input-to-state: draws replaced by the other operand of a comparison the
//! input made (integers by value or low bytes, byte strings where they occur
//! in a string or byte vector, collection lengths), or solved for where the
//! compared value is the stored one plus a small offset. The solves through
//! other arithmetic are in `arithmetic.rs`.

use super::bytes::{Element, index_for_byte, splice_bytes};
use super::stored::{Stored, StoredDraw};
use super::text::{splice_chars, text_sites};
use super::windows::{find_windows_in, mask};
use super::{ChoiceMutator, Shape};
use crate::engine::sancov::IntCmp;

/// How far a stored value may be from a compared one for
/// [`ChoiceMutator::replace_offset`] to take the difference for a constant.
const MAX_OFFSET: u64 = 64;

/// The smallest compared value [`ChoiceMutator::replace_offset`] solves for.
const MIN_OFFSET_SOLVED: u64 = 1 << 16;

/// A try of [`ChoiceMutator::input_to_state`] that found nowhere to write
/// in the input last read: the comparison (its position among the shape's,
/// and which operand was sought) and how many random numbers the try drew.
/// Repeating it would find nowhere again and draw as many, so a repeat
/// only skips them ([`crate::rng::Rng::skip`]): the stream, and so the
/// campaign, stays what it would have been. Failed tries were a third of a
/// campaign's time on a 64-byte input whose comparisons are all on
/// counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct DeadEnd {
    pick: usize,
    forward: bool,
    draws: u64,
}

impl ChoiceMutator {
    /// Replaces a draw by the other operand of a comparison it took part in.
    pub(super) fn input_to_state(&mut self, shape: &Shape, indices: &mut Vec<u64>) -> bool {
        let cmps = &shape.comparisons;
        let total = cmps.ints.len() + cmps.bytes.len();
        if total == 0 {
            return false;
        }
        // A try that fails changes nothing: one reading serves all of them,
        // and the next call's too while the input stays the same.
        let mut stored = std::mem::take(&mut self.stored);
        if stored.update(shape, indices) {
            self.dead_ends.clear();
        }
        let applied = self.try_comparisons(shape, &stored, indices);
        self.stored = stored;
        applied
    }

    /// [`ChoiceMutator::input_to_state`]'s tries.
    fn try_comparisons(&mut self, shape: &Shape, stored: &Stored, indices: &mut Vec<u64>) -> bool {
        let total = shape.comparisons.ints.len() + shape.comparisons.bytes.len();
        // A few tries: a random comparison may not involve any draw.
        for _ in 0..16 {
            let pick = self.rng.index(total);
            let forward = self.rng.percent(50);
            let known = (self.dead_ends.iter()).find(|d| d.pick == pick && d.forward == forward);
            if let Some(dead_end) = known {
                self.rng.skip(dead_end.draws);
                continue;
            }
            let before = (self.rng.clone(), self.sites_picked);
            if self.try_comparison(shape, stored, indices, pick, forward) {
                return true;
            }
            // Where a site was picked, its write may have failed where
            // another site's would not: only a try that found no site at
            // all is sure to fail again.
            if self.sites_picked == before.1 {
                self.dead_ends.push(DeadEnd {
                    pick,
                    forward,
                    draws: self.rng.draws_since(&before.0),
                });
            }
        }
        false
    }

    /// Writes the other operand of comparison `pick` where the input holds
    /// one operand (`a` when `forward`, else `b`).
    pub(super) fn try_comparison(
        &mut self,
        shape: &Shape,
        stored: &Stored,
        indices: &mut Vec<u64>,
        pick: usize,
        forward: bool,
    ) -> bool {
        let cmps = &shape.comparisons;
        let Some(&cmp) = cmps.ints.get(pick) else {
            let (a, b) = &cmps.bytes[pick - cmps.ints.len()];
            let (from, to) = if forward { (a, b) } else { (b, a) };
            return self.replace_bytes_or_text(shape, stored, indices, from, to);
        };
        let (from, to) = if forward {
            (cmp.a, cmp.b)
        } else {
            (cmp.b, cmp.a)
        };
        let sought = IntCmp {
            a: from,
            b: to,
            size: cmp.size,
        };
        self.replace_int(shape, stored, indices, sought)
            || self.resize_run(stored, indices, from, to)
            || self.replace_encoded(shape, stored, indices, from, to, cmp.size)
            || self.replace_offset(shape, stored, indices, from, to)
            || self.grow_past_offset(shape, stored, indices, from, to)
            || self.solve_arithmetic(shape, stored, indices, sought)
    }

    /// One of `count` places to write a solution at, and a tally of it.
    pub(super) fn pick_site(&mut self, count: usize) -> usize {
        self.sites_picked += 1;
        self.rng.index(count)
    }

    /// Integer draws whose value equals `cmp.a` get `cmp.b`. The match is also
    /// tried on the value's low 1, 2 and 4 bytes when both operands fit in
    /// them, which is how `x & 0xFFFF == 0xBEEF` or a truncating cast is
    /// solved: the high bytes are kept and the low ones replaced.
    pub(super) fn replace_int(
        &mut self,
        shape: &Shape,
        stored: &Stored,
        indices: &mut [u64],
        cmp: IntCmp,
    ) -> bool {
        let mut matches: Vec<(usize, u64)> = Vec::new();
        // The widest first: 8 bytes, then those of 4, 2 and 1 that both
        // operands fit in.
        let mut masks = [u64::MAX; 4];
        let mut count = 1;
        for bytes in [4u32, 2, 1] {
            let mask = (1u64 << (8 * bytes)) - 1;
            if cmp.a & !mask == 0 && cmp.b & !mask == 0 {
                masks[count] = mask;
                count += 1;
            }
        }
        let masks = &masks[..count];
        // Every match under a mask is one under the narrowest.
        let narrowest = masks[count - 1];
        // Draws past the end of `indices` (a replay reads zeros there) cannot
        // be written, and `stored` has none.
        for &StoredDraw {
            position, value, ..
        } in &stored.draws
        {
            if (value ^ cmp.a) & narrowest != 0 {
                continue;
            }
            let Some(&mask) = masks.iter().find(|&&mask| value & mask == cmp.a) else {
                continue;
            };
            let draw = shape.ints.get(position).expect("a stored draw");
            if let Some(index) = draw.index_of((value & !mask) | cmp.b) {
                matches.push((position, index));
            }
        }
        self.write_one_of(&matches, indices)
    }

    /// Writes one of `sites` (a draw's position and its new index), picked
    /// at random; false when there are none.
    pub(super) fn write_one_of(&mut self, sites: &[(usize, u64)], indices: &mut [u64]) -> bool {
        if sites.is_empty() {
            return false;
        }
        let (position, index) = sites[self.pick_site(sites.len())];
        indices[position] = index;
        true
    }

    /// Where a byte run occurs in a string or byte vector, writes `to` over it.
    pub(super) fn replace_bytes(
        &mut self,
        shape: &Shape,
        stored: &Stored,
        indices: &mut [u64],
        from: &[u8],
        to: &[u8],
    ) -> bool {
        if from.len() != to.len() || from.is_empty() {
            return false;
        }
        let mut sites = Vec::new();
        for (run, bytes) in stored.runs.iter().zip(&stored.bytes) {
            for start in 0..bytes.len().saturating_sub(from.len() - 1) {
                if bytes[start..start + from.len()] == *from {
                    sites.push(run[start..start + from.len()].to_vec());
                }
            }
        }
        if sites.is_empty() {
            return false;
        }
        let site = &sites[self.pick_site(sites.len())];
        write_site(shape, indices, site, to)
    }

    /// [`ChoiceMutator::replace_bytes`], or where no byte run holds
    /// `from`, in the UTF-8 of a string with wider characters: the
    /// characters covering it become those of `to`.
    fn replace_bytes_or_text(
        &mut self,
        shape: &Shape,
        stored: &Stored,
        indices: &mut Vec<u64>,
        from: &[u8],
        to: &[u8],
    ) -> bool {
        self.replace_bytes(shape, stored, indices, from, to)
            || self.replace_in_text(shape, stored, indices, from, to)
    }

    /// Writes `to` over the characters covering `from` in a string with
    /// wider characters.
    fn replace_in_text(
        &mut self,
        shape: &Shape,
        stored: &Stored,
        indices: &mut Vec<u64>,
        from: &[u8],
        to: &[u8],
    ) -> bool {
        let sites = text_sites(&stored.texts, from);
        if sites.is_empty() {
            return false;
        }
        let (t, range) = sites[self.pick_site(sites.len())].clone();
        splice_chars(shape, indices, &stored.texts[t], range, to)
    }

    /// Input-to-state through an offset: the compared value is a stored
    /// one plus a small constant (a chunk's end, `length + 8`, compared
    /// with the bytes left), which no draw and no spelling of it equals. A
    /// stored value within [`MAX_OFFSET`] of `from` (an integer draw, or 2,
    /// 4 or 8 bytes in either order) becomes `to` less the same offset.
    ///
    /// Only for `from` of at least 2^16, the size of a length field read
    /// from bytes that were never meant as one: with a bound of 256,
    /// measured, small numbers found a stored one nearby everywhere, each
    /// spurious solve took input-to-state's turn from the comparison that
    /// mattered, and `cargo xtask campaigns` medians rose by up to 95%.
    fn replace_offset(
        &mut self,
        shape: &Shape,
        stored: &Stored,
        indices: &mut [u64],
        from: u64,
        to: u64,
    ) -> bool {
        if from < MIN_OFFSET_SOLVED {
            return false;
        }
        let offset_from = |x: u64| {
            let offset = from.wrapping_sub(x);
            (offset != 0 && offset.wrapping_add(MAX_OFFSET) <= 2 * MAX_OFFSET).then_some(offset)
        };
        let mut sites = Vec::new();
        for size in [2u8, 4, 8] {
            let found = find_windows_in(stored, size, |x| {
                offset_from(x).is_some_and(|offset| to.wrapping_sub(offset) & !mask(size) == 0)
            });
            sites.extend(found);
        }
        if sites.is_empty() {
            return false;
        }
        let (window, x) = sites.swap_remove(self.pick_site(sites.len()));
        let offset = from.wrapping_sub(x);
        window.write(shape, indices, to.wrapping_sub(offset))
    }

    /// [`ChoiceMutator::replace_offset`] where the input is too short for
    /// any stored value to do: a chunk's end (`length + 8`) compared with
    /// the bytes left after a header, fewer than the offset. The stored
    /// value becomes zero, and a string or byte vector whose length lies
    /// within [`MAX_OFFSET`] above `to` (the bytes left are what follows
    /// the header) grows by the offset less `to`, copies of its last
    /// element, so that the chunk's end is the input's. A first entry that
    /// got past a signature is often this short, and no growth alone
    /// reaches new code while the length stays out of reach.
    fn grow_past_offset(
        &mut self,
        shape: &Shape,
        stored: &Stored,
        indices: &mut Vec<u64>,
        from: u64,
        to: u64,
    ) -> bool {
        if from < MIN_OFFSET_SOLVED || to >= MAX_OFFSET {
            return false;
        }
        let short_by = |x: u64| {
            let offset = from.wrapping_sub(x);
            (offset > to && offset <= MAX_OFFSET).then_some(offset - to)
        };
        let mut sites = Vec::new();
        for size in [2u8, 4, 8] {
            sites.extend(find_windows_in(stored, size, |x| short_by(x).is_some()));
        }
        let runs: Vec<&Vec<Element>> = (stored.runs.iter())
            .filter(|run| {
                (run.len() as u64)
                    .checked_sub(to)
                    .is_some_and(|k| k <= MAX_OFFSET)
            })
            .collect();
        if sites.is_empty() || runs.is_empty() {
            return false;
        }
        let (window, x) = sites.swap_remove(self.pick_site(sites.len()));
        let run = runs[self.pick_site(runs.len())];
        let grow = short_by(x).expect("a site is short") as usize;
        let last = run[run.len() - 1].value;
        if last >= indices.len() {
            return false;
        }
        window.write(shape, indices, 0);
        append_copies(indices, last, grow);
        true
    }

    /// A string or byte vector whose length was compared with another number
    /// is resized to it (so that a later `memcmp` can see a candidate).
    pub(super) fn resize_run(
        &mut self,
        stored: &Stored,
        indices: &mut Vec<u64>,
        from: u64,
        to: u64,
    ) -> bool {
        if to > 256 || from == to {
            return false;
        }
        let runs: Vec<&Vec<Element>> = (stored.runs.iter())
            .filter(|run| run.len() as u64 == from)
            .collect();
        if runs.is_empty() {
            return false;
        }
        let run = &runs[self.pick_site(runs.len())];
        let last = run[run.len() - 1].value;
        let to = to as usize;
        if to < run.len() {
            // Drop the trailing elements (flag and value each).
            let cut = run[to].value - 1;
            indices.drain(cut..=last);
        } else {
            append_copies(indices, last, to - run.len());
        }
        true
    }

    /// Where a compared integer is spelled out in a string or byte vector,
    /// spells the other operand there instead: little- or big-endian over
    /// its width or a narrower one both operands fit in (a stored length or
    /// checksum), or in ASCII decimal (a number in text) — the way libFuzzer's
    /// and AFL++'s comparison logs patch raw bytes.
    fn replace_encoded(
        &mut self,
        shape: &Shape,
        stored: &Stored,
        indices: &mut Vec<u64>,
        from: u64,
        to: u64,
        size: u8,
    ) -> bool {
        if stored.runs.is_empty() {
            // No string or byte vector to spell it in, so no spelling
            // applies; their order is drawn all the same, so that the
            // stream goes on as before (listing them was a tenth of a
            // campaign's time on a 64-byte array).
            self.rng.skip(spelling_count(from, to, size) as u64);
            return false;
        }
        let (mut forms, mut count) = encoding_forms(from, to, size);
        // A scan that ran off the end of a string or byte vector looking
        // for a delimiter: its last byte is among those compared.
        let ran_off_end = size == 1
            && stored.bytes.iter().any(|b| b.last() == Some(&(from as u8)))
            && scanned_for(shape, to);
        while count > 0 {
            // Spelled once picked: a try ends at the first form that
            // applies, and spelling each one up front cost 5% of a
            // campaign on text.
            let at = self.rng.index(count);
            let form = forms[at];
            count -= 1;
            forms[at] = forms[count];
            let (from, to, text) = form.spell(from, to, size);
            let applied = if text {
                self.replace_number(shape, stored, indices, &from, &to)
            } else if ran_off_end && self.rng.percent(50) {
                self.append_byte(shape, stored, indices, from[0], to[0])
            } else {
                self.replace_bytes_or_text(shape, stored, indices, &from, &to)
            };
            if applied {
                return true;
            }
        }
        false
    }

    /// Appends `to` to a string or byte vector that ends in `from`. A scan
    /// for a delimiter the input lacks (`split(',')` over
    /// `covcheck:explode` compares every byte with `,`) needs one element
    /// more, not one changed: writing the delimiter over a byte it
    /// compared cuts short what came before, the keyword matched.
    fn append_byte(
        &mut self,
        shape: &Shape,
        stored: &Stored,
        indices: &mut Vec<u64>,
        from: u8,
        to: u8,
    ) -> bool {
        let ends: Vec<usize> = (stored.bytes.iter().enumerate())
            .filter(|(_, bytes)| bytes.last() == Some(&from))
            .map(|(r, _)| r)
            .collect();
        if ends.is_empty() {
            return false;
        }
        let run = &stored.runs[ends[self.pick_site(ends.len())]];
        splice_bytes(shape, indices, run, run.len()..run.len(), &[to])
    }

    /// Replaces a decimal number `from` standing alone (not inside a longer
    /// run of digits) in a string or byte vector by `to`, of any length.
    fn replace_number(
        &mut self,
        shape: &Shape,
        stored: &Stored,
        indices: &mut Vec<u64>,
        from: &[u8],
        to: &[u8],
    ) -> bool {
        let mut sites = Vec::new();
        for (r, bytes) in stored.bytes.iter().enumerate() {
            let digit_at =
                |k: Option<usize>| k.and_then(|k| bytes.get(k)).is_some_and(u8::is_ascii_digit);
            for start in 0..bytes.len().saturating_sub(from.len() - 1) {
                let end = start + from.len();
                if bytes[start..end] == *from
                    && !digit_at(start.checked_sub(1))
                    && !digit_at(Some(end))
                {
                    sites.push((r, start..end));
                }
            }
        }
        if sites.is_empty() {
            return false;
        }
        let (r, range) = sites.swap_remove(self.pick_site(sites.len()));
        splice_bytes(shape, indices, &stored.runs[r], range, to)
    }
}

/// Whether the input was scanned for byte `sought`: compared with at least
/// two different bytes, as a search for a delimiter compares each byte it
/// passes.
fn scanned_for(shape: &Shape, sought: u64) -> bool {
    let mut compared = (shape.comparisons.ints.iter())
        .filter(|c| c.size == 1 && (c.a == sought || c.b == sought))
        .map(|c| c.a ^ c.b ^ sought);
    compared
        .next()
        .is_some_and(|first| compared.any(|other| other != first))
}

/// Appends `count` copies of the element whose value choice is at `last`
/// (the last of its string or byte vector), each a "more" flag and the value.
fn append_copies(indices: &mut Vec<u64>, last: usize, count: usize) {
    let element = [1, indices[last]];
    let extra: Vec<u64> = element.iter().copied().cycle().take(2 * count).collect();
    indices.splice(last + 1..last + 1, extra);
}

/// Writes `bytes` over the elements of `site`; true when any changed.
pub(super) fn write_site(
    shape: &Shape,
    indices: &mut [u64],
    site: &[Element],
    bytes: &[u8],
) -> bool {
    let mut changed = false;
    for (element, &byte) in site.iter().zip(bytes) {
        if element.value >= indices.len() {
            continue;
        }
        if let Some(index) = index_for_byte(shape, element.value, byte) {
            changed |= indices[element.value] != index;
            indices[element.value] = index;
        }
    }
    changed
}

/// The ways a compared integer of `size` bytes may be spelled in an input's
/// bytes, as `(from, to, is_decimal_text)`: [`encoding_forms`] spelled,
/// for the tests (the mutator spells only the form it picks).
#[cfg(test)]
pub(super) fn encodings(from: u64, to: u64, size: u8) -> Vec<(Spelling, Spelling, bool)> {
    let (forms, count) = encoding_forms(from, to, size);
    forms[..count]
        .iter()
        .map(|form| form.spell(from, to, size))
        .collect()
}

/// How a compared integer is spelled in bytes, before spelling it.
#[derive(Clone, Copy, Debug)]
enum EncodingForm {
    /// Its low `width` bytes in one byte order.
    Bytes { width: usize, big_endian: bool },
    /// ASCII decimal, read unsigned.
    Decimal,
    /// ASCII decimal, read as a signed integer of the compared width.
    SignedDecimal,
}

impl EncodingForm {
    /// `(from, to, is_decimal_text)` in this form.
    fn spell(self, from: u64, to: u64, size: u8) -> (Spelling, Spelling, bool) {
        match self {
            EncodingForm::Bytes { width, big_endian } => {
                let spell = |v: u64| {
                    if big_endian {
                        Spelling::new(&v.to_be_bytes()[8 - width..])
                    } else {
                        Spelling::new(&v.to_le_bytes()[..width])
                    }
                };
                (spell(from), spell(to), false)
            }
            EncodingForm::Decimal => (
                Spelling::decimal(i128::from(from)),
                Spelling::decimal(i128::from(to)),
                true,
            ),
            EncodingForm::SignedDecimal => {
                let (from, to) = signed_decimals(from, to, size).expect("a negative operand");
                (
                    Spelling::decimal(i128::from(from)),
                    Spelling::decimal(i128::from(to)),
                    true,
                )
            }
        }
    }
}

/// The ways a compared integer of `size` bytes may be spelled in an
/// input's bytes, the first `count` of the array: the byte orders
/// ([`byte_orders`]), decimal, and signed decimal when an operand so read
/// is negative.
fn encoding_forms(from: u64, to: u64, size: u8) -> ([EncodingForm; 8], usize) {
    let mut forms = [EncodingForm::Decimal; 8];
    let (orders, mut count) = byte_orders(from, to, size);
    for (form, (width, big_endian)) in forms.iter_mut().zip(&orders[..count]) {
        *form = EncodingForm::Bytes {
            width: *width,
            big_endian: *big_endian,
        };
    }
    forms[count] = EncodingForm::Decimal;
    count += 1;
    if signed_decimals(from, to, size).is_some() {
        forms[count] = EncodingForm::SignedDecimal;
        count += 1;
    }
    (forms, count)
}

/// The byte spellings of [`encoding_forms`], without the decimal ones: what a
/// search for a stored checksum or length looks for, spelled only when
/// asked (a traced run looks up dozens of compared values).
pub(super) fn byte_encodings(
    from: u64,
    to: u64,
    size: u8,
) -> impl Iterator<Item = (Spelling, Spelling)> {
    let (orders, count) = byte_orders(from, to, size);
    (0..count).map(move |k| {
        let (width, big_endian) = orders[k];
        let (from, to, _) = EncodingForm::Bytes { width, big_endian }.spell(from, to, size);
        (from, to)
    })
}

/// How many forms [`encoding_forms`] lists, without listing them.
pub(super) fn spelling_count(from: u64, to: u64, size: u8) -> usize {
    byte_orders(from, to, size).1 + 1 + usize::from(signed_decimals(from, to, size).is_some())
}

/// The byte spellings [`encoding_forms`] lists, as `(width, big_endian)`, the
/// first `count` of the array: each byte order at the compared width and
/// at the narrower ones of 4 and 2 bytes both operands fit in, less those
/// that spell `from` as one listed before (a width repeated, or bytes that
/// read the same both ways). A spelling is told by its width and its bytes
/// read as a little-endian number, so that none is spelled to count them.
fn byte_orders(from: u64, to: u64, size: u8) -> ([(usize, bool); 6], usize) {
    let size = usize::from(size.clamp(1, 8));
    let mut orders = [(0, false); 6];
    let mut spelled = [(0, 0); 6];
    let mut count = 0;
    for width in [size, 4, 2] {
        let fits = |v: u64| width == 8 || v >> (8 * width) == 0;
        if width > size || (width < size && !(fits(from) && fits(to))) {
            continue;
        }
        let le = if width == 8 {
            from
        } else {
            from & ((1 << (8 * width)) - 1)
        };
        let be = le.swap_bytes() >> (64 - 8 * width);
        for (bytes, big_endian) in [(le, false), (be, true)] {
            let applies = width > 1 || !big_endian;
            if applies && !spelled[..count].contains(&(width, bytes)) {
                spelled[count] = (width, bytes);
                orders[count] = (width, big_endian);
                count += 1;
            }
        }
    }
    (orders, count)
}

/// The operands read as signed integers of `size` bytes, when either is
/// negative so read: their decimal spellings differ from the unsigned ones.
fn signed_decimals(from: u64, to: u64, size: u8) -> Option<(i64, i64)> {
    let shift = 64 - 8 * u32::from(size.clamp(1, 8));
    let signed = |v: u64| ((v << shift) as i64) >> shift;
    (signed(from) < 0 || signed(to) < 0).then(|| (signed(from), signed(to)))
}

/// An integer spelled in bytes: a few bytes of it in either order, or its
/// decimal digits. Kept inline: input-to-state spells an operand for each
/// comparison it tries, and as vectors and strings the spellings were a
/// tenth of a campaign's time.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Spelling {
    bytes: [u8; 24],
    len: u8,
}

impl Spelling {
    fn new(bytes: &[u8]) -> Spelling {
        let mut spelling = Spelling {
            bytes: [0; 24],
            len: bytes.len() as u8,
        };
        spelling.bytes[..bytes.len()].copy_from_slice(bytes);
        spelling
    }

    /// `value`, a 64-bit integer signed or not, in decimal, with a `-` when
    /// negative (at most 20 bytes).
    fn decimal(value: i128) -> Spelling {
        let mut digits = [0u8; 24];
        let mut at = digits.len();
        // In 64 bits: a 128-bit division is a library call per digit.
        let mut rest = u64::try_from(value.unsigned_abs()).unwrap_or(u64::MAX);
        loop {
            at -= 1;
            digits[at] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        if value < 0 {
            at -= 1;
            digits[at] = b'-';
        }
        Spelling::new(&digits[at..])
    }
}

impl std::ops::Deref for Spelling {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

impl std::fmt::Debug for Spelling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", &**self)
    }
}
