//! [`Source`]: where generators get their choices from.
//!
//! Its public face is the handful of typed draws a hand-written
//! [`crate::Generate`] uses; the rest (constructors, the primitive draw,
//! collections and spans, argument renderings) is the runtime's own, and the
//! few functions that macro-generated code calls live at the bottom of this
//! file, re-exported through `__private`.
//!
//! A source either makes fresh choices with an RNG and the value heuristics
//! (*random mode*), or replays a recorded sequence of indices (*replay mode*),
//! which is how seeds are replayed and how every shrink candidate is tried.
//! Either way it records every choice and the spans that group them, and that
//! record is the test case's canonical form.
//!
//! Generators must be deterministic functions of the choices they read: given
//! the same indices, the same value. Reading past the end of a replayed
//! sequence yields index zero, the simplest value, so any prefix of a valid
//! sequence — and any edit of one — still generates a value.

mod int_draw;
mod limits;
#[cfg(test)]
mod tests;

use std::fmt::Debug;

use crate::choice::{Choice, ChoiceKind, IntDomain, Span, char_from_index, char_index};
use crate::heuristics;
use crate::int::Int;
use crate::rng::Rng;

pub use int_draw::IntDraw;
pub use limits::Limits;

enum Mode {
    Random(Rng),
    Replay(Vec<u64>),
}

/// Where a value's randomness comes from: the choices of one test case.
///
/// [`Generate::generate`](crate::Generate::generate) and
/// [`Generator::generate`](crate::Generator::generate) receive one and build
/// their value from its draws. A source either makes fresh choices (with
/// AFL's value heuristics) or replays the choices of a saved seed or of a
/// shrink candidate, and records every choice it hands out: that record is
/// what covcheck saves, shrinks and mutates, so any value built from the
/// draws below shrinks, whatever its type.
///
/// Two rules for code that draws:
/// - read all randomness from the source, never from a global RNG or the
///   clock, so that the same choices give the same value;
/// - choice zero of every draw gives the simplest value (`0`, `false`,
///   `'a'`, `""`, the first variant), which is what shrinking moves towards.
///   A replayed sequence that runs out yields zeros.
///
/// ```
/// use covcheck_rt::{Generate, Source};
///
/// /// Two numbers with `lo <= hi`; `hi` shrinks towards `lo`.
/// #[derive(Debug)]
/// struct Interval { lo: u32, hi: u32 }
///
/// impl Generate for Interval {
///     fn generate(src: &mut Source) -> Self {
///         let lo = src.draw_int(0u32, 1000);
///         let hi = src.draw_int(lo, 1000);
///         Interval { lo, hi }
///     }
/// }
/// ```
pub struct Source {
    mode: Mode,
    choices: Vec<Choice>,
    spans: Vec<Span>,
    depth: u32,
    limits: Limits,
    rendered: Option<Vec<(&'static str, String)>>,
    generate_only: bool,
    int_draws: Option<Vec<IntDraw>>,
}

impl Source {
    /// A source making fresh random choices from `seed`.
    pub(crate) fn random(seed: u64, limits: Limits) -> Self {
        Self::new(Mode::Random(Rng::new(seed)), limits)
    }

    /// A source replaying `indices` (then zeros).
    pub(crate) fn replay(indices: Vec<u64>, limits: Limits) -> Self {
        Self::new(Mode::Replay(indices), limits)
    }

    fn new(mode: Mode, limits: Limits) -> Self {
        // A replay makes about as many choices as it is given: one
        // allocation rather than a doubling for each power of two.
        let expected = match &mode {
            Mode::Replay(indices) => indices.len().min(limits.max_choices),
            Mode::Random(_) => 0,
        };
        Self::in_buffers(mode, limits, Vec::with_capacity(expected), Vec::new())
    }

    /// A source that records its choices and spans in `choices` and
    /// `spans`, which must be empty.
    fn in_buffers(mode: Mode, limits: Limits, choices: Vec<Choice>, spans: Vec<Span>) -> Self {
        Source {
            mode,
            choices,
            spans,
            depth: 0,
            limits,
            rendered: None,
            generate_only: false,
            int_draws: None,
        }
    }

    /// The indices a replaying source replays (before the implied zeros).
    #[cfg(feature = "campaign")]
    pub(crate) fn replayed_indices(&self) -> Option<&[u64]> {
        match &self.mode {
            Mode::Replay(indices) => Some(indices),
            Mode::Random(_) => None,
        }
    }

    /// Asks the generated property code to stop after drawing (and, when
    /// rendering, rendering) its arguments, without running the body. The
    /// campaign mutator uses it to learn an input's shape safely, even for an
    /// input that crashes the process.
    #[cfg(feature = "campaign")]
    pub(crate) fn set_generate_only(&mut self, on: bool) {
        self.generate_only = on;
    }

    /// Starts recording the domain of every integer draw ([`IntDraw`]).
    #[cfg(feature = "campaign")]
    pub(crate) fn record_int_draws(&mut self) {
        self.int_draws = Some(Vec::new());
    }

    /// The integer draws recorded since [`Source::record_int_draws`].
    #[cfg(feature = "campaign")]
    pub(crate) fn take_int_draws(&mut self) -> Vec<IntDraw> {
        self.int_draws.take().unwrap_or_default()
    }

    /// The choices made so far.
    #[cfg(any(test, feature = "campaign"))]
    pub(crate) fn choices(&self) -> &[Choice] {
        &self.choices
    }

    /// Starts replaying `indices` (then zeros) afresh, as
    /// [`Source::replay`] would, in this source's buffers: a campaign
    /// replays an input per execution, and a new source for each cost two
    /// allocations or more every time.
    #[cfg(feature = "campaign")]
    pub(crate) fn replay_again(&mut self, indices: &[u64], limits: Limits) {
        let mode = match std::mem::replace(&mut self.mode, Mode::Replay(Vec::new())) {
            Mode::Replay(mut replayed) => {
                replayed.clear();
                replayed.extend_from_slice(indices);
                Mode::Replay(replayed)
            }
            Mode::Random(_) => Mode::Replay(indices.to_vec()),
        };
        self.restart(mode, limits);
        self.choices.reserve(indices.len().min(limits.max_choices));
    }

    /// Starts making fresh choices from `seed`, as [`Source::random`]
    /// would, in this source's buffers: a stalled campaign draws a fresh
    /// input every few executions, and growing a new record for each, a
    /// doubling at a time, cost more than drawing it.
    #[cfg(feature = "campaign")]
    pub(crate) fn random_again(&mut self, seed: u64, limits: Limits) {
        self.restart(Mode::Random(Rng::new(seed)), limits);
    }

    /// Empties the record and starts over in `mode`, keeping the record's
    /// buffers.
    #[cfg(feature = "campaign")]
    fn restart(&mut self, mode: Mode, limits: Limits) {
        let mut choices = std::mem::take(&mut self.choices);
        choices.clear();
        let mut spans = std::mem::take(&mut self.spans);
        spans.clear();
        *self = Source::in_buffers(mode, limits, choices, spans);
    }

    /// Runs `plan` with the RNG in random mode; `None` when replaying. Use it to
    /// decide *what to generate* (a target length, a nasty string) and then
    /// record that decision through ordinary draws, so replay needs no plan.
    pub(crate) fn plan<T>(&mut self, plan: impl FnOnce(&mut Rng) -> T) -> Option<T> {
        match &mut self.mode {
            Mode::Random(rng) => Some(plan(rng)),
            Mode::Replay(_) => None,
        }
    }

    /// The primitive draw: an index in `0..=max` of the given kind. In random
    /// mode `random` picks it; in replay mode the next recorded index is used,
    /// wrapped into range. Past [`Limits::max_choices`] it returns 0 and
    /// records nothing.
    #[inline]
    pub(crate) fn draw(
        &mut self,
        kind: ChoiceKind,
        max: u64,
        random: impl FnOnce(&mut Rng) -> u64,
    ) -> u64 {
        if self.choices.len() >= self.limits.max_choices {
            return 0;
        }
        let wrap = |index: u64| match max.checked_add(1) {
            Some(size) if index > max => index % size,
            _ => index,
        };
        let index = match &mut self.mode {
            Mode::Random(rng) => wrap(random(rng)),
            Mode::Replay(indices) => indices.get(self.choices.len()).map_or(0, |&i| wrap(i)),
        };
        self.choices.push(Choice { index, max, kind });
        index
    }

    /// An integer in `lo..=hi`, of any primitive integer type; shrinks
    /// towards the value closest to zero. Random cases favour the ends of the
    /// range, AFL's interesting values and small values.
    ///
    /// # Panics
    /// When `lo > hi`.
    pub fn draw_int<T: Int>(&mut self, lo: T, hi: T) -> T {
        self.draw_int_picked::<T, false>(lo, hi)
    }

    /// [`Source::draw_int`], its random index picked by the value
    /// heuristics: inlined when `INLINE` (the whole-range draws, which
    /// have the heuristics' domain arithmetic folded with their bounds
    /// known), out of line otherwise, so that the heuristics are never
    /// compiled into (and instrumented with) the crates under test.
    #[inline(always)]
    fn draw_int_picked<T: Int, const INLINE: bool>(&mut self, lo: T, hi: T) -> T {
        assert!(lo.to_ordinal() <= hi.to_ordinal(), "empty range: lo > hi");
        let domain = IntDomain::new(lo.to_ordinal(), hi.to_ordinal(), T::ZERO.to_ordinal());
        let max = domain.max_index();
        let pick = |rng: &mut Rng| {
            if INLINE {
                heuristics::int_index_inline(rng, &domain, T::BITS, T::SIGNED)
            } else {
                heuristics::int_index(rng, &domain, T::BITS, T::SIGNED)
            }
        };
        let index = if let Ok(max) = u64::try_from(max) {
            let zigzag_limit = u64::try_from(domain.zigzag_limit()).unwrap_or(u64::MAX);
            let kind = ChoiceKind::Int { zigzag_limit };
            // Sometimes the index of an earlier draw from the same domain,
            // which is the same value.
            let repeat = match &mut self.mode {
                Mode::Random(rng) if INLINE => {
                    heuristics::repeat_earlier_inline(rng, &self.choices, kind, max)
                }
                Mode::Random(rng) => heuristics::repeat_earlier(rng, &self.choices, kind, max),
                Mode::Replay(_) => None,
            };
            if let Some(draws) = &mut self.int_draws {
                draws.push(IntDraw {
                    position: self.choices.len(),
                    domain,
                    bits: T::BITS,
                    signed: T::SIGNED,
                });
            }
            u128::from(self.draw(kind, max, |rng| repeat.unwrap_or_else(|| pick(rng) as u64)))
        } else {
            // A domain wider than 64 bits is recorded as two halves, high first,
            // so that shrinking the high half shrinks the magnitude.
            let kind = ChoiceKind::Int { zigzag_limit: 0 };
            let mut planned = 0u128;
            let high = self.draw(kind, (max >> 64) as u64, |rng| {
                planned = pick(rng);
                (planned >> 64) as u64
            });
            let low = self.draw(kind, u64::MAX, |_| planned as u64);
            (u128::from(high) << 64) | u128::from(low)
        };
        T::from_ordinal(domain.ordinal(index))
    }

    /// A `bool`, uniformly; shrinks towards `false`.
    pub fn draw_bool(&mut self) -> bool {
        self.draw(ChoiceKind::Bool, 1, |rng| rng.at_most(1)) == 1
    }

    /// A variant index in `0..count`, for choosing among the variants of an
    /// enum; shrinks towards 0. The first `leaves` variants must be the
    /// non-recursive ones (pass `count` when none recurses): past the nesting
    /// depth limit (`depth`) only those are drawn, so recursive values stay
    /// finite.
    ///
    /// # Panics
    /// When `count` is zero.
    pub fn draw_variant(&mut self, count: usize, leaves: usize) -> usize {
        assert!(count > 0, "a choice among zero variants");
        if count == 1 || (leaves < count && self.depth >= self.limits.max_depth) {
            return 0;
        }
        let (depth, max_depth) = (self.depth, self.limits.max_depth);
        let pick = |rng: &mut Rng| heuristics::variant(rng, count, leaves, depth, max_depth) as u64;
        self.draw(ChoiceKind::Variant, count as u64 - 1, pick) as usize
    }

    /// A `char`: printable ASCII, nasty and multi-byte characters in random
    /// cases; shrinks towards `'a'`.
    pub fn draw_char(&mut self) -> char {
        self.draw_char_planned(None)
    }

    fn draw_char_planned(&mut self, planned: Option<char>) -> char {
        let max = crate::choice::CHAR_COUNT - 1;
        let index = self.draw(ChoiceKind::Char, max, |rng| {
            char_index(planned.unwrap_or_else(|| heuristics::char(rng)))
        });
        char_from_index(index)
    }

    /// A `String` of at most `max_len` characters (and at most the size
    /// limit, `size`, when `max_len` is `usize::MAX`); shrinks towards `""`,
    /// then towards `'a'`s. Random cases include whole nasty strings.
    pub fn draw_string(&mut self, max_len: usize) -> String {
        let nasty = self.plan(heuristics::nasty_string).flatten();
        let planned: Option<Vec<char>> = nasty.map(|s| s.chars().take(max_len).collect());
        let mut out = String::new();
        let label = label_of::<char>();
        self.collection(
            0,
            max_len,
            planned.as_ref().map(Vec::len),
            label,
            |src, i| {
                out.push(src.draw_char_planned(planned.as_ref().map(|p| p[i])));
            },
        );
        out
    }

    /// Any `f64`, NaN and infinities included; shrinks towards `0.0`, and
    /// through plain integers like `1.0` and `-2.0` before arbitrary
    /// fractions. (Two choices: a *form*, 0 for an integer-valued float and 1
    /// for any bit pattern, then its payload.)
    pub fn draw_f64(&mut self) -> f64 {
        match self.draw_float(heuristics::f64_plan, (1 << 54) - 1, u64::MAX) {
            FloatDraw::Integer(value) => value,
            FloatDraw::Bits(bits) => f64::from_bits(bits),
        }
    }

    /// Any `f32`, drawn and shrunk like [`Source::draw_f64`].
    pub fn draw_f32(&mut self) -> f32 {
        match self.draw_float(heuristics::f32_plan, (1 << 25) - 1, u64::from(u32::MAX)) {
            FloatDraw::Integer(value) => value as f32,
            FloatDraw::Bits(bits) => f32::from_bits(bits as u32),
        }
    }

    /// The two choices of a float: its form, then an integer payload of at
    /// most `integer_max` (form 0) or a bit pattern of at most `bits_max`.
    fn draw_float(
        &mut self,
        plan: fn(&mut Rng) -> (u64, u64),
        integer_max: u64,
        bits_max: u64,
    ) -> FloatDraw {
        let mut planned = (0, 0);
        let form = self.draw(ChoiceKind::FloatForm, 1, |rng| {
            planned = plan(rng);
            planned.0
        });
        if form == 0 {
            FloatDraw::Integer(signed_magnitude(self.draw(
                ChoiceKind::FloatBits,
                integer_max,
                |_| planned.1,
            )))
        } else {
            FloatDraw::Bits(self.draw(ChoiceKind::FloatBits, bits_max, |_| planned.1))
        }
    }

    /// Drives the generation of a collection of `min..=max` elements. An
    /// open-ended `max` (`usize::MAX`) is capped by [`Limits::max_len`]; past
    /// the nesting limit only the `min` required elements are generated. Each optional
    /// element is preceded by a [`ChoiceKind::More`] flag, and flag plus element
    /// form one span, so deleting a span removes exactly one element. `planned`
    /// fixes the length in random mode; otherwise a heuristic length is chosen.
    /// Returns the number of elements generated.
    pub(crate) fn collection(
        &mut self,
        min: usize,
        max: usize,
        planned: Option<usize>,
        label: u64,
        mut element: impl FnMut(&mut Source, usize),
    ) -> usize {
        let mut max = if max == usize::MAX {
            self.limits.max_len.max(min)
        } else {
            max
        };
        if self.depth >= self.limits.max_depth {
            max = min;
        }
        let depth = self.depth;
        let target = planned.or_else(|| {
            // Deeper collections are shorter, so that nested values stay small.
            let outer = if depth > 0 {
                max.min(self.limits.nested_len)
            } else {
                max
            };
            let cap = min.max(outer >> depth.min(16));
            self.plan(|rng| heuristics::length(rng, min, cap))
        });
        let mut len = 0;
        loop {
            let start = self.choices.len();
            if len >= min {
                if len >= max {
                    break;
                }
                let wanted = target.is_some_and(|t| len < t);
                if self.draw(ChoiceKind::More, 1, |_| u64::from(wanted)) == 0 {
                    break;
                }
            }
            self.depth += 1;
            element(self, len);
            self.depth -= 1;
            self.close_span(start, label);
            len += 1;
        }
        len
    }

    fn close_span(&mut self, start: usize, label: u64) {
        let end = self.choices.len();
        if end > start {
            self.spans.push(Span {
                start,
                end,
                depth: self.depth,
                label,
            });
        }
    }

    /// Asks generated property code to record each argument's `Debug` rendering.
    pub(crate) fn set_rendering(&mut self, on: bool) {
        self.rendered = on.then(Vec::new);
    }

    /// Consumes the source, returning its choices and spans without copying.
    pub(crate) fn into_record(self) -> (Vec<Choice>, Vec<Span>) {
        (self.choices, self.spans)
    }

    /// The recorded renderings, in argument order.
    pub(crate) fn take_rendered(&mut self) -> Option<Vec<(&'static str, String)>> {
        self.rendered.take()
    }
}

/// Whole-range draws of each integer type, which `Generate` for the
/// integer types calls. Not generic, and never inlined: the generic
/// [`Source::draw_int`] is compiled into the crate that calls it, and a
/// campaign build instruments the crates under test, so that every
/// integer of every input went through instrumented code (a counter for
/// each branch and a call to the comparison hooks for each comparison).
/// Compiled here, with the bounds known, it is neither instrumented nor
/// slower.
macro_rules! whole_range_draws {
    ($($name:ident: $t:ty),*) => {$(
        #[inline(never)]
        pub(crate) fn $name(&mut self) -> $t {
            self.draw_int_picked::<$t, true>(<$t>::MIN, <$t>::MAX)
        }
    )*};
}

/// The same for the unsigned types up to 64 bits, whose replay takes a
/// shortcut ([`Source::replay_unsigned`]).
macro_rules! whole_range_unsigned_draws {
    ($($name:ident: $t:ty),*) => {$(
        #[inline(never)]
        pub(crate) fn $name(&mut self) -> $t {
            match self.replay_unsigned(<$t>::MAX as u64) {
                Some(index) => index as $t,
                None => {
                    self.draw_int_picked::<$t, true>(<$t>::MIN, <$t>::MAX)
                }
            }
        }
    )*};
}

impl Source {
    whole_range_unsigned_draws!(
        draw_u8: u8, draw_u16: u16, draw_u32: u32, draw_u64: u64, draw_usize: usize
    );
    whole_range_draws!(
        draw_u128: u128, draw_i8: i8, draw_i16: i16, draw_i32: i32, draw_i64: i64,
        draw_i128: i128, draw_isize: isize
    );

    /// `bytes.len()` whole-range `u8` draws, as many [`Source::draw_u8`]s
    /// would make them. A replay copies the run in one loop: a campaign
    /// replays a `[u8; N]` argument on every execution, and a call per
    /// byte was a fifth of the time of a property that does little else.
    #[inline(never)]
    pub(crate) fn draw_u8s(&mut self, bytes: &mut [u8]) {
        let start = self.choices.len();
        // Drawn (or recorded) one by one, in this loop rather than a call
        // each: a stalled campaign draws fresh inputs often.
        let mut one_by_one = |src: &mut Source| {
            bytes.fill_with(|| src.draw_int_picked::<u8, true>(u8::MIN, u8::MAX));
        };
        let Mode::Replay(indices) = &self.mode else {
            return one_by_one(self);
        };
        if self.int_draws.is_some() {
            return one_by_one(self);
        }
        // Past the choice cap a draw gives zero and records nothing; past
        // the replayed indices it gives (and records) zero.
        let recorded = self
            .limits
            .max_choices
            .saturating_sub(start)
            .min(bytes.len());
        let replayed = indices.get(start..).unwrap_or_default();
        let (recorded_bytes, capped) = bytes.split_at_mut(recorded);
        self.choices.reserve(recorded);
        for (k, byte) in recorded_bytes.iter_mut().enumerate() {
            let index = replayed.get(k).map_or(0, |&i| i & u64::from(u8::MAX));
            *byte = index as u8;
            self.choices.push(Choice {
                index,
                max: u64::from(u8::MAX),
                kind: ChoiceKind::Int { zigzag_limit: 0 },
            });
        }
        capped.fill(0);
    }

    /// A replayed whole-range draw of an unsigned type whose largest
    /// value is `max` (at most `u64::MAX`), as [`Source::draw_int`]
    /// replays it, or `None` when the source does not replay (or records
    /// integer draws). Such a draw's index is its value, so replaying it
    /// is a read and a push: a campaign replays every byte of every input
    /// this way, and the general path's 128-bit domain arithmetic cost
    /// several times as much.
    #[inline(always)]
    fn replay_unsigned(&mut self, max: u64) -> Option<u64> {
        let Mode::Replay(indices) = &self.mode else {
            return None;
        };
        if self.int_draws.is_some() {
            return None;
        }
        if self.choices.len() >= self.limits.max_choices {
            return Some(0);
        }
        // `max` is all ones: the remainder is a mask.
        let index = indices.get(self.choices.len()).map_or(0, |&i| i & max);
        self.choices.push(Choice {
            index,
            max,
            kind: ChoiceKind::Int { zigzag_limit: 0 },
        });
        Some(index)
    }
}

/// A float as drawn by [`Source::draw_float`], before narrowing to its type.
enum FloatDraw {
    Integer(f64),
    Bits(u64),
}

/// Decodes a float payload of form 0: magnitude in the high bits, sign in bit 0.
fn signed_magnitude(payload: u64) -> f64 {
    let magnitude = (payload >> 1) as f64;
    if payload & 1 == 1 {
        -magnitude
    } else {
        magnitude
    }
}

// What macro-generated code calls, re-exported through `__private`: free
// functions rather than methods, so that none of them is a method of the
// public `Source`. Their bodies are those of the methods they were.

/// Whether the generated property code should stop after drawing (and, when
/// rendering, rendering) its arguments, without running the body (see
/// `Source::set_generate_only`).
pub fn is_generate_only(src: &Source) -> bool {
    src.generate_only
}

/// Called by the generated property code when argument generation is done
/// and the body starts: campaigns only trace the body's comparisons.
#[inline]
pub fn begin_body(_src: &mut Source) {
    crate::coverage_gate::set_open(true);
}

/// Runs `generate` one nesting level deeper and records its choices as one
/// span labelled `label`. Derived generators wrap every struct and enum in
/// this, which is what bounds recursion and lets shrinking replace a subtree
/// by a subtree.
pub fn nested<T>(src: &mut Source, label: u64, generate: impl FnOnce(&mut Source) -> T) -> T {
    let start = src.choices.len();
    src.depth += 1;
    let value = generate(src);
    src.depth -= 1;
    src.close_span(start, label);
    value
}

/// True when argument renderings are being recorded.
pub fn is_rendering(src: &Source) -> bool {
    src.rendered.is_some()
}

/// Records an argument's rendering (a no-op unless rendering).
pub fn render_arg(src: &mut Source, name: &'static str, value: &dyn Debug) {
    if let Some(rendered) = &mut src.rendered {
        let compact = format!("{value:?}");
        let text = if compact.len() > 80 {
            format!("{value:#?}")
        } else {
            compact
        };
        rendered.push((name, crate::text::escape_invalid_utf8(text)));
    }
}

/// A cheap label identifying a type within one process: the address of its
/// type name. Labels only need to agree within a run (shrinking, splicing), not
/// across builds, so hashing the name is unnecessary.
pub fn label_of<T: ?Sized>() -> u64 {
    std::any::type_name::<T>().as_ptr() as u64
}
