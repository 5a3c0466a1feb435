//! Coverage counters to source lines: each counter's code address (from
//! the instrumented build's PC table, which the reach worker reports as an
//! offset into the mapped binary) looked up in the test binary's debug line
//! tables. The instrumented build keeps line tables for every instrumented
//! crate, so this works on its release-like profile.
//!
//! A counter stands for a basic block, and a block is many instructions,
//! often of several lines: `x.wrapping_mul(3)` in a one-block function is
//! code of the body's line, not of the signature's, where the block starts.
//! So a block's lines are those of every line-table row over its address
//! range, from its start to the next counter's (or the end of its
//! function), not only its first row's.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use object::{Object, ObjectSection, ObjectSegment, ObjectSymbol, ObjectSymbolTable};

/// The source lines of one block, and whether it only leads to a panic.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Block {
    /// Every (file, line) with code of the block, in a file the caller
    /// wants; code inlined from a file it does not want counts for the line
    /// that called it.
    pub lines: BTreeSet<(PathBuf, u32)>,
    /// The block calls a function that only panics (`panic_bounds_check`,
    /// `unwrap_failed`, `panic_fmt`, ...): a failure path, such as a
    /// bounds check, rather than code the user wrote to run.
    pub panic_path: bool,
    /// The function the block is code of (demangled, without its hash),
    /// and whether the block starts it.
    pub function: Option<String>,
    pub starts_function: bool,
    /// Where the block's last instruction jumps unconditionally, as an
    /// offset into the mapped binary (a block that jumps to a panic path
    /// is one: see [`spread_panic_paths`]).
    pub jumps_to: Option<u64>,
}

/// Each counter's block in `binary`, in the order of `pcs` (the counters'
/// code offsets, as the reach worker reports them): a block ends where the
/// next one starts, or with its function. `wanted` says whether a source
/// file is one to show (asked once per file). An error names a binary
/// whose debug information cannot be read.
pub fn locate(
    binary: &Path,
    pcs: &[u64],
    wanted: impl Fn(&Path) -> bool,
) -> Result<Vec<Block>, String> {
    let symbolizer = Symbolizer::open(binary)?;
    let mut cache: HashMap<PathBuf, bool> = HashMap::new();
    let mut wanted = |file: &Path| {
        *cache
            .entry(file.to_path_buf())
            .or_insert_with(|| wanted(file))
    };
    let mut starts: Vec<u64> = pcs.to_vec();
    starts.sort_unstable();
    let next_of = |pc: u64| starts.get(starts.partition_point(|&s| s <= pc)).copied();
    let mut blocks: Vec<Block> = pcs
        .iter()
        .map(|&pc| symbolizer.block(pc, next_of(pc), &mut wanted))
        .collect();
    spread_panic_paths(pcs, &mut blocks);
    Ok(blocks)
}

/// Reads one test binary's debug information and code.
pub struct Symbolizer {
    loader: addr2line::Loader,
    /// The link-time address mapped at the start of the binary's file
    /// mapping: 0 for the position-independent executables Rust builds by
    /// default, the first segment's address otherwise.
    base: u64,
    /// Functions by start address, non-overlapping: a block never runs
    /// past the end of its function.
    functions: Vec<Function>,
    /// The addresses of the functions that only panic.
    panics: HashSet<u64>,
    /// The addresses of the global offset table's slots that hold one of
    /// them: position-independent code calls other crates' functions
    /// through the table.
    panic_slots: HashSet<u64>,
    /// The start addresses of the test harness's generated `main`, which
    /// rustc places on the first line of the crate's root file.
    harness_mains: HashSet<u64>,
    /// Executable sections as (address, bytes), sorted by address.
    code: Vec<(u64, Vec<u8>)>,
    architecture: object::Architecture,
}

/// How far past a block's start its code is looked for when no function
/// symbol bounds it, in bytes.
const MAX_BLOCK: u64 = 256;

impl Symbolizer {
    pub fn open(binary: &Path) -> Result<Symbolizer, String> {
        let cannot = |e: &dyn std::fmt::Display| {
            format!(
                "cannot read the debug information of {}: {e}",
                binary.display()
            )
        };
        let loader = addr2line::Loader::new(binary).map_err(|e| cannot(&e))?;
        let data = std::fs::read(binary).map_err(|e| cannot(&e))?;
        let file = object::File::parse(&*data).map_err(|e| cannot(&e))?;
        let base = match file.kind() {
            object::ObjectKind::Executable => file
                .segments()
                .filter(|s| s.file_range().0 == 0)
                .map(|s| s.address())
                .min()
                .unwrap_or(0),
            _ => 0,
        };
        let Functions {
            ranges,
            mut panics,
            mains,
        } = functions(&file);
        let mut panic_slots = slots_holding(&file, &panics);
        // Unwinding resumes through the C runtime's `_Unwind_Resume`,
        // linked dynamically: its offset-table slot, and the PLT entries
        // that jump through it, lead only to a panic too.
        let resume_slots = slots_of_import(&file, "_Unwind_Resume");
        panics.extend(plt_entries_through(&file, &resume_slots));
        panic_slots.extend(resume_slots);
        Ok(Symbolizer {
            loader,
            base,
            functions: ranges,
            panic_slots,
            panics,
            harness_mains: mains,
            code: code(&file),
            architecture: file.architecture(),
        })
    }

    /// The block of code that starts at `offset` in the mapped binary and
    /// ends before `next` (the next block's start), if it does not end with
    /// its function first. `wanted` says whether a source file is shown.
    pub fn block(
        &self,
        offset: u64,
        next: Option<u64>,
        wanted: &mut dyn FnMut(&Path) -> bool,
    ) -> Block {
        let start = self.base + offset;
        let end = self.end_of(start, next.map(|n| self.base + n));
        let function = self.function_of(start);
        let mut block = Block {
            panic_path: self.calls_a_panic(start, end),
            function: function.map(|f| f.name.clone()),
            starts_function: function.is_some_and(|f| f.start == start),
            jumps_to: self
                .jump_at_end(start, end)
                .and_then(|target| target.checked_sub(self.base)),
            ..Block::default()
        };
        let Ok(rows) = self.loader.find_location_range(start, end) else {
            return block;
        };
        for (address, _, location) in rows {
            let (Some(file), Some(line)) = (location.file, location.line) else {
                continue;
            };
            if line == 0 {
                // The compiler's own code: the counter's increment, spills.
            } else if wanted(Path::new(file)) {
                block.lines.insert((PathBuf::from(file), line));
            } else if let Some(caller) = self.caller_in(address, wanted) {
                block.lines.insert(caller);
            }
        }
        let harness = function.is_some_and(|f| self.harness_mains.contains(&f.start));
        if harness && block.lines.iter().all(|(_, line)| *line == 1) {
            // Not the user's code: shown, it would make the first line of
            // every crate root partly reached.
            block.lines.clear();
        }
        block
    }

    /// The function that holds `address`.
    fn function_of(&self, address: u64) -> Option<&Function> {
        let at = self.functions.partition_point(|f| f.start <= address);
        let function = &self.functions[at.checked_sub(1)?];
        (address < function.end).then_some(function)
    }

    /// Where the block starting at `start` ends: at the next block, at the
    /// end of its function, or [`MAX_BLOCK`] on, whichever comes first.
    fn end_of(&self, start: u64, next: Option<u64>) -> u64 {
        let end = self.function_of(start).map_or(start + MAX_BLOCK, |f| f.end);
        next.filter(|&n| n > start).map_or(end, |n| n.min(end))
    }

    /// The innermost wanted location of the (possibly inlined) code at
    /// `address`: for std's `wrapping_mul` inlined into the user's
    /// function, the line of the user's call.
    fn caller_in(
        &self,
        address: u64,
        wanted: &mut dyn FnMut(&Path) -> bool,
    ) -> Option<(PathBuf, u32)> {
        let mut frames = self.loader.find_frames(address).ok()?;
        while let Ok(Some(frame)) = frames.next() {
            if let Some(location) = frame.location
                && let (Some(file), Some(line)) = (location.file, location.line)
                && line != 0
                && wanted(Path::new(file))
            {
                return Some((PathBuf::from(file), line));
            }
        }
        None
    }

    /// Whether the code from `start` to `end` calls (or jumps to) a
    /// function that only panics. The calls are found by their encoding
    /// (x86-64 `call`/`jmp rel32` and through the offset table, AArch64
    /// `bl`/`b`) aimed at one of those functions, which a few bytes of
    /// other code match only by a rare coincidence; other architectures
    /// have no panic paths.
    fn calls_a_panic(&self, start: u64, end: u64) -> bool {
        let Some(bytes) = self.bytes(start, end) else {
            return false;
        };
        match self.architecture {
            object::Architecture::X86_64 => (0..bytes.len().saturating_sub(4)).any(|i| {
                let rel_at = |at: usize| {
                    let rel = bytes.get(at..at + 4)?.try_into().ok()?;
                    let next = start + at as u64 + 4;
                    Some(next.wrapping_add_signed(i64::from(i32::from_le_bytes(rel))))
                };
                match bytes[i..] {
                    // call/jmp rel32
                    [0xe8 | 0xe9, ..] => rel_at(i + 1).is_some_and(|t| self.panics.contains(&t)),
                    // call/jmp [rip + disp32]
                    [0xff, 0x15 | 0x25, ..] => {
                        rel_at(i + 2).is_some_and(|slot| self.panic_slots.contains(&slot))
                    }
                    _ => false,
                }
            }),
            object::Architecture::Aarch64 => bytes.chunks_exact(4).enumerate().any(|(i, word)| {
                let word = u32::from_le_bytes(word.try_into().expect("4 bytes"));
                // b and bl: 0b?00101, then a signed 26-bit word offset.
                let offset = i64::from(((word & 0x03ff_ffff) << 6) as i32 >> 6) * 4;
                let target = (start + i as u64 * 4).wrapping_add_signed(offset);
                word & 0x7c00_0000 == 0x1400_0000 && self.panics.contains(&target)
            }),
            _ => false,
        }
    }

    /// The target of an unconditional jump that ends the code from `start`
    /// to `end` (x86-64 `jmp rel32` or `jmp rel8`; AArch64 `b`).
    fn jump_at_end(&self, start: u64, end: u64) -> Option<u64> {
        let bytes = self.bytes(start, end)?;
        let n = bytes.len();
        let rel = |at: usize, width: usize| -> Option<i64> {
            let field = bytes.get(at..at + width)?;
            Some(match width {
                1 => i64::from(field[0] as i8),
                _ => i64::from(i32::from_le_bytes(field.try_into().ok()?)),
            })
        };
        match self.architecture {
            object::Architecture::X86_64 => {
                let (at, width) = match bytes {
                    [.., 0xe9, _, _, _, _] => (n - 4, 4),
                    [.., 0xeb, _] => (n - 1, 1),
                    _ => return None,
                };
                Some(end.wrapping_add_signed(rel(at, width)?))
            }
            object::Architecture::Aarch64 if n >= 4 => {
                let word = u32::from_le_bytes(bytes[n - 4..].try_into().ok()?);
                let offset = i64::from(((word & 0x03ff_ffff) << 6) as i32 >> 6) * 4;
                (word & 0xfc00_0000 == 0x1400_0000).then(|| (end - 4).wrapping_add_signed(offset))
            }
            _ => None,
        }
    }

    /// The code from `start` to `end`, if one section holds it all.
    fn bytes(&self, start: u64, end: u64) -> Option<&[u8]> {
        let at = self.code.partition_point(|(address, _)| *address <= start);
        let (address, bytes) = self.code.get(at.checked_sub(1)?)?;
        let from = usize::try_from(start - address).ok()?;
        let to = usize::try_from(end - address).ok()?.min(bytes.len());
        bytes.get(from..to)
    }
}

/// One function of the symbol table.
struct Function {
    start: u64,
    end: u64,
    /// Demangled, without the hash.
    name: String,
}

/// What the symbol table says of the binary's functions.
struct Functions {
    /// Sorted by start.
    ranges: Vec<Function>,
    /// The addresses of those that only panic.
    panics: HashSet<u64>,
    /// The addresses of those named `<crate>::main`: the test harness's.
    mains: HashSet<u64>,
}

fn functions(file: &object::File<'_>) -> Functions {
    let mut functions = Functions {
        ranges: Vec::new(),
        panics: HashSet::new(),
        mains: HashSet::new(),
    };
    for symbol in file.symbols() {
        if symbol.kind() != object::SymbolKind::Text || symbol.address() == 0 {
            continue;
        }
        let Ok(name) = symbol.name() else { continue };
        let name = format!("{:#}", rustc_demangle::demangle(name));
        if symbol.size() > 0 {
            functions.ranges.push(Function {
                start: symbol.address(),
                end: symbol.address() + symbol.size(),
                name: name.clone(),
            });
        }
        if only_panics(&name) {
            functions.panics.insert(symbol.address());
        }
        if name.ends_with("::main") && name.matches("::").count() == 1 {
            functions.mains.insert(symbol.address());
        }
    }
    functions.ranges.sort_unstable_by_key(|f| f.start);
    functions.ranges.dedup_by_key(|f| f.start);
    functions
}

/// The offset-table slots that hold one of `functions`: those the dynamic
/// relocations fill with one (position-independent executables), and
/// those whose contents in the file are one (others).
fn slots_holding(file: &object::File<'_>, functions: &HashSet<u64>) -> HashSet<u64> {
    let mut slots = HashSet::new();
    if let Some(relocations) = file.dynamic_relocations() {
        for (slot, relocation) in relocations {
            let address = u64::try_from(relocation.addend()).unwrap_or(0);
            if relocation.target() == object::RelocationTarget::Absolute
                && functions.contains(&address)
            {
                slots.insert(slot);
            }
        }
    }
    for section in file.sections() {
        let is_got = section.name().is_ok_and(|n| n.starts_with(".got"));
        let Ok(data) = section.data() else { continue };
        if !is_got {
            continue;
        }
        for (i, word) in data.chunks_exact(8).enumerate() {
            let value = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            if functions.contains(&value) {
                slots.insert(section.address() + i as u64 * 8);
            }
        }
    }
    slots
}

/// The offset-table slots the dynamic linker fills with the imported
/// function `name`.
fn slots_of_import(file: &object::File<'_>, name: &str) -> HashSet<u64> {
    let (Some(relocations), Some(symbols)) =
        (file.dynamic_relocations(), file.dynamic_symbol_table())
    else {
        return HashSet::new();
    };
    relocations
        .filter(|(_, relocation)| match relocation.target() {
            object::RelocationTarget::Symbol(index) => symbols
                .symbol_by_index(index)
                .and_then(|s| s.name())
                .is_ok_and(|n| n == name),
            _ => false,
        })
        .map(|(slot, _)| slot)
        .collect()
}

/// The PLT entries (x86-64 `jmp [rip + disp32]`, with the `endbr64` and
/// `bnd` prefixes of the `.plt.sec` kind) that jump through one of `slots`.
fn plt_entries_through(file: &object::File<'_>, slots: &HashSet<u64>) -> Vec<u64> {
    let mut entries = Vec::new();
    if slots.is_empty() || file.architecture() != object::Architecture::X86_64 {
        return entries;
    }
    for section in file.sections() {
        let is_plt = section.name().is_ok_and(|n| n.starts_with(".plt"));
        let Ok(data) = section.data() else { continue };
        if !is_plt {
            continue;
        }
        for i in 0..data.len().saturating_sub(5) {
            let [0xff, 0x25, a, b, c, d, ..] = data[i..] else {
                continue;
            };
            let next = section.address() + i as u64 + 6;
            let slot = next.wrapping_add_signed(i64::from(i32::from_le_bytes([a, b, c, d])));
            if slots.contains(&slot) {
                let mut entry = i;
                if entry >= 1 && data[entry - 1] == 0xf2 {
                    entry -= 1; // bnd
                }
                if entry >= 4 && data[entry - 4..entry] == [0xf3, 0x0f, 0x1e, 0xfa] {
                    entry -= 4; // endbr64
                }
                entries.push(section.address() + entry as u64);
            }
        }
    }
    entries
}

/// Marks as panic paths the blocks that jump unconditionally to one: a
/// block whose only way on is a panic path only leads to a panic (the
/// drops that run while a panic unwinds, before `_Unwind_Resume`). `pcs`
/// are the blocks' start offsets, in the order of `blocks`.
pub fn spread_panic_paths(pcs: &[u64], blocks: &mut [Block]) {
    let index: HashMap<u64, usize> = pcs.iter().enumerate().map(|(n, &pc)| (pc, n)).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for n in 0..blocks.len() {
            let target = blocks[n].jumps_to.and_then(|t| index.get(&t)).copied();
            if !blocks[n].panic_path && target.is_some_and(|t| blocks[t].panic_path) {
                blocks[n].panic_path = true;
                changed = true;
            }
        }
    }
}

/// Whether the function of this (demangled, hash-free) name exists only to
/// panic: core's and std's panic entry points and the cold failure paths of
/// `unwrap`, `expect`, slicing, `RefCell` borrows and allocation.
pub fn only_panics(name: &str) -> bool {
    const PANICKING: [&str; 3] = [
        "core::panicking::",
        "std::panicking::",
        "std::rt::begin_panic",
    ];
    const STD: [&str; 3] = ["core::", "alloc::", "std::"];
    let last = name.rsplit("::").next().unwrap_or(name);
    PANICKING.iter().any(|prefix| name.starts_with(prefix))
        || STD.iter().any(|prefix| name.starts_with(prefix))
            && (last.ends_with("_fail")
                || last.ends_with("_failed")
                || last.starts_with("panic_")
                || matches!(
                    last,
                    "handle_error" | "handle_alloc_error" | "capacity_overflow"
                ))
}

/// The executable sections' addresses and bytes, sorted by address.
fn code(file: &object::File<'_>) -> Vec<(u64, Vec<u8>)> {
    let mut code: Vec<(u64, Vec<u8>)> = file
        .sections()
        .filter(|s| s.kind() == object::SectionKind::Text)
        .filter_map(|s| Some((s.address(), s.data().ok()?.to_vec())))
        .collect();
    code.sort_by_key(|(address, _)| *address);
    code
}

#[cfg(test)]
mod tests {
    use super::{Block, only_panics, spread_panic_paths};

    #[test]
    fn a_block_that_can_only_jump_to_a_panic_path_is_one() {
        let block = |panic_path, jumps_to| Block {
            panic_path,
            jumps_to,
            ..Block::default()
        };
        // 0x10 jumps to 0x20, which jumps to 0x30, which resumes unwinding;
        // 0x40 jumps to 0x50, ordinary code.
        let pcs = [0x10, 0x20, 0x30, 0x40, 0x50];
        let mut blocks = vec![
            block(false, Some(0x20)),
            block(false, Some(0x30)),
            block(true, None),
            block(false, Some(0x50)),
            block(false, None),
        ];
        spread_panic_paths(&pcs, &mut blocks);
        let panics: Vec<bool> = blocks.iter().map(|b| b.panic_path).collect();
        assert_eq!(panics, [true, true, true, false, false]);
    }

    #[test]
    fn the_failure_paths_of_std_only_panic_and_user_functions_never_do() {
        for name in [
            "core::panicking::panic_bounds_check",
            "core::panicking::panic_fmt",
            "core::panicking::assert_failed<u32, u32>",
            "core::option::unwrap_failed",
            "core::option::expect_failed",
            "core::result::unwrap_failed",
            "core::slice::index::slice_end_index_len_fail",
            "core::cell::panic_already_borrowed",
            "alloc::raw_vec::handle_error",
            "std::panicking::begin_panic<&str>",
        ] {
            assert!(only_panics(name), "{name}");
        }
        for name in [
            "core::option::Option<T>::unwrap",
            "core::slice::index::<impl>::index",
            "mycrate::parse_failed",
            "mycrate::panic_handler",
            "alloc::vec::Vec<T>::push",
        ] {
            assert!(!only_panics(name), "{name}");
        }
    }
}
