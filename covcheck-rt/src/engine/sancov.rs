//! The SanitizerCoverage runtime: the callbacks that the instrumented crate
//! calls, defined here because covcheck-rt itself is never instrumented
//! (instrumented callbacks would recurse into themselves).
//!
//! - `__sanitizer_cov_8bit_counters_init` hands us the counters, one byte per
//!   edge, which the engine observes as its coverage map.
//! - `__sanitizer_cov_pcs_init` hands us the PC table: for each counter, the
//!   address of its code, which `cargo covcheck report` symbolises into
//!   source lines ([`pcs`]).
//! - The `trace_cmp` family and `trace_switch` report integer comparisons;
//!   `memcmp`/`bcmp` are interposed so that byte-string comparisons (Rust's
//!   `==`, `starts_with`, `contains` on `str` and `[u8]`) are seen too, which
//!   SanitizerCoverage alone does not report. Comparisons with a constant
//!   also feed [`distance`], when a campaign turns it on.
//!
//! - `__sanitizer_cov_trace_pc`, in the performance build only, counts
//!   every edge executed: the cost of an execution ([`edges_executed`]).
//!
//! Comparisons are only recorded while [`Tracing`] is active, which the
//! engine turns on for one run of each new corpus entry: tracing every
//! execution costs about two thirds of the throughput.

use std::cell::Cell;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};

use super::distance;

/// A linker section that the instrumented modules report one by one: all
/// modules of one binary share the section, so the ranges they report touch
/// or overlap, and we keep their union.
struct Section<T> {
    start: AtomicPtr<T>,
    len: AtomicUsize,
}

impl<T> Section<T> {
    const fn new() -> Self {
        Section {
            start: AtomicPtr::new(std::ptr::null_mut()),
            len: AtomicUsize::new(0),
        }
    }

    /// (start, length in elements); null and 0 when none was reported.
    fn get(&self) -> (*mut T, usize) {
        (
            self.start.load(Ordering::Acquire),
            self.len.load(Ordering::Acquire),
        )
    }

    /// Widens the section to include `start..stop`.
    ///
    /// # Safety
    /// `start..stop` must be a range of the section.
    unsafe fn include(&self, start: *mut T, stop: *mut T) {
        if start.is_null() || stop <= start {
            return;
        }
        let (old_start, old_len) = self.get();
        let (new_start, new_stop) = if old_start.is_null() {
            (start, stop)
        } else {
            // SAFETY: old_start..old_start+len is the range recorded earlier.
            let old_stop = unsafe { old_start.add(old_len) };
            (start.min(old_start), stop.max(old_stop))
        };
        self.start.store(new_start, Ordering::Release);
        // SAFETY: both pointers are within (or at the end of) the same section.
        let len = unsafe { new_stop.offset_from(new_start) } as usize;
        self.len.store(len, Ordering::Release);
    }
}

static COUNTERS: Section<u8> = Section::new();
static PCS: Section<usize> = Section::new();

/// The instrumented code's 8-bit counters (empty when nothing is instrumented).
pub fn counters() -> (*mut u8, usize) {
    COUNTERS.get()
}

/// Called by each instrumented module's constructor with the bounds of the
/// counters section.
///
/// # Safety
/// Called by compiler-generated code with valid section bounds.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __sanitizer_cov_8bit_counters_init(start: *mut u8, stop: *mut u8) {
    // SAFETY: the compiler's bounds of the counters section.
    unsafe { COUNTERS.include(start, stop) }
}

/// Edges executed since the process started, counted by
/// [`__sanitizer_cov_trace_pc`]: the cost measure of performance mode.
/// Only the performance build (`cargo covcheck --perf`) calls it; in every
/// other build it stays zero and costs nothing.
static EDGES_EXECUTED: AtomicU64 = AtomicU64::new(0);

/// Edges executed so far (zero in a build that does not count them).
pub fn edges_executed() -> u64 {
    EDGES_EXECUTED.load(Ordering::Relaxed)
}

/// Called on every edge of the code built for performance mode
/// (`-sanitizer-coverage-trace-pc`). A load and a store rather than an
/// atomic add: the count is only meaningful for one thread anyway (a
/// property's cost is what its own thread ran), and a locked add on every
/// edge would cost a second time what the call already costs.
#[unsafe(no_mangle)]
pub extern "C" fn __sanitizer_cov_trace_pc() {
    let n = EDGES_EXECUTED.load(Ordering::Relaxed);
    EDGES_EXECUTED.store(n.wrapping_add(1), Ordering::Relaxed);
}

/// The address of each counter's code, in counter order (empty when nothing
/// is instrumented).
pub fn pcs() -> Vec<usize> {
    let (start, len) = PCS.get();
    if start.is_null() {
        return Vec::new();
    }
    // SAFETY: the PC table is `len` words of (address, flags) pairs that
    // live as long as the process.
    let table = unsafe { std::slice::from_raw_parts(start, len) };
    table.chunks_exact(2).map(|pair| pair[0]).collect()
}

/// Called by each instrumented module's constructor with the bounds of the
/// PC table, one (address, flags) pair per counter.
///
/// # Safety
/// Called by compiler-generated code with valid section bounds.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __sanitizer_cov_pcs_init(start: *const usize, stop: *const usize) {
    // SAFETY: the compiler's bounds of the PC table.
    unsafe { PCS.include(start.cast_mut(), stop.cast_mut()) }
}

/// An integer comparison: both operands zero-extended, and the width in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntCmp {
    pub a: u64,
    pub b: u64,
    pub size: u8,
}

impl IntCmp {
    /// Whether a comparison with the constant `a` is one a magic number or
    /// an XOR-form checksum is made of: 16 bits or wider, and a constant of
    /// at least 256 (smaller ones are loop bounds, flags and characters).
    pub fn is_wide(&self) -> bool {
        self.size >= 2 && self.a >= 256
    }
}

/// The comparisons seen during one traced run.
#[derive(Clone, Debug, Default)]
pub struct Comparisons {
    /// Integer comparisons whose operands differed: what input-to-state
    /// copies from.
    pub ints: Vec<IntCmp>,
    /// Comparisons of two equal values of at least 16 bits and at least
    /// 256, neither a compile-time constant: where a stored checksum or
    /// length matched what the code computed
    /// ([`crate::engine::mutator::Shape::sums`]). Small values are left
    /// out (loop counters and flags compare equal all the time), and so are
    /// comparisons with a constant (a magic number is no sum).
    pub equal: Vec<IntCmp>,
    /// Byte strings compared with `memcmp`/`bcmp` (equal lengths).
    pub bytes: Vec<(Vec<u8>, Vec<u8>)>,
    /// Comparisons with a compile-time constant, equal or not, in the
    /// order they ran, the constant as `a` (SanitizerCoverage passes it
    /// first). A checksum compared in XOR
    /// form shows up here: LLVM folds `stored == !crc` into
    /// `stored ^ crc == 0xFFFFFFFF` (see [`crate::engine::mutator::XorSum`]).
    pub constants: Vec<IntCmp>,
}

const MAX_INTS: usize = 4096;
const MAX_EQUAL: usize = 256;
const MAX_BYTES: usize = 512;
const MAX_BYTES_LEN: usize = 64;
const MAX_CONSTANTS: usize = 1024;

static TRACING: AtomicBool = AtomicBool::new(false);

/// Only the property's body is traced, not its argument generation: see
/// [`crate::coverage_gate`]. In this crate's unit tests nothing is
/// instrumented: a test calls the callbacks by hand, from a property that
/// runs beside other tests' properties, which open and close the one gate
/// as they go; there tracing alone decides.
#[inline(always)]
fn recording() -> bool {
    TRACING.load(Ordering::Relaxed) && (cfg!(test) || crate::coverage_gate::is_open())
}
static LOG: Mutex<Comparisons> = Mutex::new(Comparisons {
    ints: Vec::new(),
    equal: Vec::new(),
    bytes: Vec::new(),
    constants: Vec::new(),
});

thread_local! {
    /// Guards against recording from inside the recorder (a `memcmp` in the
    /// allocator, say).
    static RECORDING: Cell<bool> = const { Cell::new(false) };
}

/// Records comparisons while alive; [`Tracing::finish`] returns them.
pub struct Tracing(());

impl Tracing {
    pub fn start() -> Tracing {
        if let Ok(mut log) = LOG.lock() {
            log.ints.clear();
            log.equal.clear();
            log.bytes.clear();
            log.constants.clear();
        }
        TRACING.store(true, Ordering::SeqCst);
        Tracing(())
    }

    pub fn finish(self) -> Comparisons {
        TRACING.store(false, Ordering::SeqCst);
        LOG.lock()
            .map(|mut log| std::mem::take(&mut *log))
            .unwrap_or_default()
    }
}

impl Drop for Tracing {
    fn drop(&mut self) {
        TRACING.store(false, Ordering::SeqCst);
    }
}

fn with_log(record: impl FnOnce(&mut Comparisons)) {
    RECORDING.with(|busy| {
        if busy.replace(true) {
            return;
        }
        if let Ok(mut log) = LOG.try_lock() {
            record(&mut log);
        }
        busy.set(false);
    });
}

/// Records a comparison; `constant`: one operand is a compile-time
/// constant (SanitizerCoverage's `const_cmp` callbacks, and `switch` cases),
/// so an equal one is a magic number matched, never a sum.
#[inline(always)]
fn trace_int(a: u64, b: u64, size: u8, constant: bool) {
    let equal_sum = a == b && !constant && size >= 2 && a >= 256;
    if (a != b || equal_sum || constant) && recording() {
        with_log(|log| {
            let cmp = IntCmp { a, b, size };
            if constant && log.constants.len() < MAX_CONSTANTS {
                log.constants.push(cmp);
            }
            let (list, max) = if a != b {
                (&mut log.ints, MAX_INTS)
            } else if equal_sum {
                (&mut log.equal, MAX_EQUAL)
            } else {
                return;
            };
            if list.len() < max {
                list.push(cmp);
            }
        });
    }
}

/// Feeds a comparison with the constant `constant` to [`distance`], when a
/// campaign measures distances and the body runs. Not `switch` cases: a
/// value is compared with every case of its table at once.
#[inline(always)]
fn measure_distance(constant: u64, value: u64, size: u8) {
    if distance::enabled() && (cfg!(test) || crate::coverage_gate::is_open()) {
        distance::record(constant, value, size);
    }
}

macro_rules! cmp_callbacks {
    ($($name:ident, $const_name:ident: $ty:ty, $size:expr;)*) => {$(
        #[unsafe(no_mangle)]
        pub extern "C" fn $name(a: $ty, b: $ty) {
            trace_int(a as u64, b as u64, $size, false);
        }
        #[unsafe(no_mangle)]
        pub extern "C" fn $const_name(a: $ty, b: $ty) {
            measure_distance(a as u64, b as u64, $size);
            trace_int(a as u64, b as u64, $size, true);
        }
    )*};
}

cmp_callbacks! {
    __sanitizer_cov_trace_cmp1, __sanitizer_cov_trace_const_cmp1: u8, 1;
    __sanitizer_cov_trace_cmp2, __sanitizer_cov_trace_const_cmp2: u16, 2;
    __sanitizer_cov_trace_cmp4, __sanitizer_cov_trace_const_cmp4: u32, 4;
    __sanitizer_cov_trace_cmp8, __sanitizer_cov_trace_const_cmp8: u64, 8;
}

/// `switch` on `value`: `cases[0]` is the number of cases, `cases[1]` the
/// width in bits, then the case values.
///
/// # Safety
/// Called by compiler-generated code with a valid case table.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __sanitizer_cov_trace_switch(value: u64, cases: *const u64) {
    if !recording() {
        return;
    }
    // SAFETY: the table has 2 + cases[0] entries.
    let (count, bits) = unsafe { (*cases, *cases.add(1)) };
    let size = (bits / 8).clamp(1, 8) as u8;
    for i in 0..count.min(256) as usize {
        // SAFETY: as above.
        let case = unsafe { *cases.add(2 + i) };
        trace_int(value, case, size, true);
    }
}

/// Compares as `memcmp` does: with libc's own (vectorised for the
/// processor) once it is found, and with [`compare_volatile`] until then
/// or where it is not (a static build). Every slice comparison in the
/// process comes here, the campaign's own included (a mutant compared with
/// its original, 8 bytes a choice): byte by byte they were a twentieth of
/// a campaign's time on a 64-byte input.
///
/// # Safety
/// `a` and `b` must be valid for `n` bytes.
unsafe fn compare(a: *const u8, b: *const u8, n: usize) -> i32 {
    match libc_memcmp() {
        // SAFETY: as memcmp, which it is.
        Some(memcmp) => unsafe { memcmp(a, b, n) },
        // SAFETY: as this function.
        None => unsafe { compare_volatile(a, b, n) },
    }
}

type Memcmp = unsafe extern "C" fn(*const u8, *const u8, usize) -> i32;

/// libc's `memcmp`, the next one past this binary's ([`libc::RTLD_NEXT`]).
/// The first call looks it up and gets `None`, as does any call while the
/// lookup runs (`dlsym` might compare bytes itself).
fn libc_memcmp() -> Option<Memcmp> {
    /// The function's address; [`NOT_LOOKED_UP`] before the lookup, and
    /// [`NOT_FOUND`] during it and when it failed.
    static FOUND: AtomicUsize = AtomicUsize::new(NOT_LOOKED_UP);
    const NOT_LOOKED_UP: usize = 0;
    const NOT_FOUND: usize = 1;
    match FOUND.load(Ordering::Acquire) {
        NOT_LOOKED_UP => {
            if FOUND
                .compare_exchange(
                    NOT_LOOKED_UP,
                    NOT_FOUND,
                    Ordering::AcqRel,
                    Ordering::Acquire,
                )
                .is_ok()
            {
                // SAFETY: a lookup by a valid C string.
                let found = unsafe { libc::dlsym(libc::RTLD_NEXT, c"memcmp".as_ptr()) } as usize;
                if found != 0 && found != memcmp as *const () as usize && found != NOT_FOUND {
                    FOUND.store(found, Ordering::Release);
                }
            }
            None
        }
        NOT_FOUND => None,
        // SAFETY: the address of libc's `memcmp`, whose type this is.
        found => Some(unsafe { std::mem::transmute::<usize, Memcmp>(found) }),
    }
}

/// A comparison that the optimiser cannot turn back into a call to
/// `memcmp` (which would recurse): the reads are volatile. Equal stretches
/// are compared eight bytes at a time.
///
/// # Safety
/// `a` and `b` must be valid for `n` bytes.
#[inline(never)]
unsafe fn compare_volatile(a: *const u8, b: *const u8, n: usize) -> i32 {
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: the caller guarantees both ranges are valid; an array of
        // bytes needs no alignment.
        let (x, y) = unsafe {
            (
                a.add(i).cast::<[u8; 8]>().read_volatile(),
                b.add(i).cast::<[u8; 8]>().read_volatile(),
            )
        };
        if u64::from_ne_bytes(x) != u64::from_ne_bytes(y) {
            // The first difference is within these eight bytes.
            break;
        }
        i += 8;
    }
    while i < n {
        // SAFETY: as above.
        let (x, y) = unsafe { (a.add(i).read_volatile(), b.add(i).read_volatile()) };
        if x != y {
            return i32::from(x) - i32::from(y);
        }
        i += 1;
    }
    0
}

fn trace_bytes(a: *const u8, b: *const u8, n: usize) {
    if n == 0 || n > MAX_BYTES_LEN || !recording() {
        return;
    }
    with_log(|log| {
        if log.bytes.len() < MAX_BYTES {
            // SAFETY: memcmp's arguments are valid for n bytes.
            let (x, y) = unsafe {
                (
                    std::slice::from_raw_parts(a, n).to_vec(),
                    std::slice::from_raw_parts(b, n).to_vec(),
                )
            };
            if x != y {
                log.bytes.push((x, y));
            }
        }
    });
}

/// Interposes libc's `memcmp` for the whole test binary, to see byte-string
/// comparisons. Only present in campaign builds.
///
/// # Safety
/// As `memcmp`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    trace_bytes(a, b, n);
    // SAFETY: as memcmp.
    unsafe { compare(a, b, n) }
}

/// `bcmp` is what LLVM turns `memcmp(..) == 0` into.
///
/// # Safety
/// As `bcmp`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    trace_bytes(a, b, n);
    // SAFETY: as bcmp.
    unsafe { compare(a, b, n) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pairs of byte strings differing at each position of each length
    /// around the eight-byte steps, in both directions, and equal ones.
    fn pairs() -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut pairs = Vec::new();
        for len in 0..20 {
            let a: Vec<u8> = (0..len as u8).map(|i| i.wrapping_mul(37)).collect();
            pairs.push((a.clone(), a.clone()));
            for at in 0..len {
                let mut b = a.clone();
                b[at] = b[at].wrapping_add(200);
                pairs.push((a.clone(), b.clone()));
                pairs.push((b, a.clone()));
            }
        }
        pairs
    }

    #[test]
    fn both_comparisons_order_bytes_as_memcmp_does() {
        // The first call only looks libc's up.
        let _ = libc_memcmp();
        assert!(libc_memcmp().is_some(), "libc's memcmp is found");
        for (a, b) in pairs() {
            let expected = a.cmp(&b);
            // SAFETY: both are valid for their (equal) length.
            let (found, volatile) = unsafe {
                (
                    compare(a.as_ptr(), b.as_ptr(), a.len()),
                    compare_volatile(a.as_ptr(), b.as_ptr(), a.len()),
                )
            };
            assert_eq!(found.cmp(&0), expected, "{a:?} {b:?}");
            assert_eq!(volatile.cmp(&0), expected, "{a:?} {b:?}");
        }
    }
}
