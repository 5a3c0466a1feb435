//! The coverage counters of one test binary that have code on changed
//! lines: what a campaign aimed at a change is to reach.
//!
//! The counters are symbolised as the report does ([`symbols::locate`]),
//! with the files of the work tree as the ones to show: code inlined from
//! std or a dependency counts for the changed line that called it, code
//! inlined from another file of the work tree for that file. The lines a
//! macro generated are dropped by the report's rules
//! ([`source_lines::drop_generated`]), and so are the lines of `#[test]`
//! functions, which no property is meant to reach.
//!
//! A changed line with no counter is no code: a comment, a blank line, a
//! file no property's binary compiles. But a line that holds no code of its
//! own inside a statement (a field of a multi-line struct literal, an
//! argument line of a call) is reached with its statement, as the report
//! shows it: it takes the counters of the line with code before it, so that
//! changing a constant there still aims the campaign at its statement.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::diff::ChangedLines;
use crate::reach::source_lines::{self, Sources, Spans, holds_code_text};
use crate::reach::symbols::{self, Block};

/// The counters of one test binary with code on changed lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChangedCode {
    /// Every such counter (an index into the binary's PC table, as the
    /// reach worker and the campaign count them).
    pub counters: BTreeSet<u32>,
    /// Of them, those whose block only leads to a panic (a bounds check's
    /// failure, an `unwrap` on `None`): reaching one is a finding, and a
    /// line of nothing else (`unreachable!()`) is no gap while it is not
    /// reached, as the report counts them apart.
    pub panic_paths: BTreeSet<u32>,
    /// Each changed line with code (absolute path, symbolic links resolved;
    /// 1-based line), and its counters.
    pub lines: BTreeMap<(PathBuf, u32), Vec<u32>>,
}

/// Where one changed line of code stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LineState {
    /// The line has a counter that is not a panic path: code a property
    /// is meant to reach.
    pub code: bool,
    /// One of its counters is reached.
    pub reached: bool,
}

impl ChangedCode {
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The changed lines with code none of whose counters is in `reached`
    /// (counter indices), sorted; lines with only panic paths are not
    /// listed.
    pub fn unreached_lines(&self, reached: &HashSet<u32>) -> Vec<(PathBuf, u32)> {
        self.line_states(reached)
            .filter(|(_, state)| state.code && !state.reached)
            .map(|(line, _)| line.clone())
            .collect()
    }

    /// Each changed line with code, and where it stands when `reached`
    /// are the counters reached.
    pub fn line_states<'a>(
        &'a self,
        reached: &'a HashSet<u32>,
    ) -> impl Iterator<Item = (&'a (PathBuf, u32), LineState)> + 'a {
        self.lines.iter().map(|(line, counters)| {
            let state = LineState {
                code: counters.iter().any(|c| !self.panic_paths.contains(c)),
                reached: counters.iter().any(|c| reached.contains(c)),
            };
            (line, state)
        })
    }
}

/// The counters of `binary` (whose PC table, as its reach worker reports
/// it, is `pcs`) with code on the `changed` lines. An error names a binary
/// whose debug information cannot be read.
pub fn changed_counters(
    binary: &Path,
    pcs: &[u64],
    changed: &ChangedLines,
) -> Result<ChangedCode, String> {
    if changed.is_empty() {
        return Ok(ChangedCode::default());
    }
    let in_work_tree = |file: &Path| canonical(file).starts_with(&changed.top) && file.is_file();
    let mut blocks = symbols::locate(binary, pcs, in_work_tree)?;
    source_lines::drop_generated(&mut blocks, &mut Sources::default());
    // The line tables name files by the paths rustc was given, which may
    // go through a symbolic link git resolved.
    let mut resolved: HashMap<PathBuf, PathBuf> = HashMap::new();
    for block in &mut blocks {
        block.lines = std::mem::take(&mut block.lines)
            .into_iter()
            .map(|(file, line)| {
                let file = resolved.entry(file).or_insert_with_key(|f| canonical(f));
                (file.clone(), line)
            })
            .collect();
    }
    let with_code: HashSet<&Path> = blocks
        .iter()
        .flat_map(|b| b.lines.iter().map(|(file, _)| file.as_path()))
        .collect();
    let texts: HashMap<PathBuf, String> = changed
        .files()
        .filter(|(file, _)| with_code.contains(file))
        .map(|(file, _)| {
            (
                file.to_path_buf(),
                std::fs::read_to_string(file).unwrap_or_default(),
            )
        })
        .collect();
    Ok(code_of(&blocks, changed, &texts))
}

fn canonical(file: &Path) -> PathBuf {
    std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf())
}

/// The counters of `blocks` (one per counter, in counter order) on the
/// `changed` lines; `texts` holds the text of the changed files that have
/// code.
fn code_of(
    blocks: &[Block],
    changed: &ChangedLines,
    texts: &HashMap<PathBuf, String>,
) -> ChangedCode {
    // Every line with code of a changed file, changed or not: a line
    // without code takes the counters of the one before it.
    let mut with_code: BTreeMap<(PathBuf, u32), Vec<u32>> = BTreeMap::new();
    for (counter, block) in blocks.iter().enumerate() {
        for (file, line) in &block.lines {
            if changed.of_file(file).is_some() {
                let counters = with_code.entry((file.clone(), *line)).or_default();
                counters.push(counter as u32);
            }
        }
    }
    let mut code = ChangedCode::default();
    for (file, lines) in changed.files() {
        let Some(text) = texts.get(file) else {
            continue;
        };
        let spans = Spans::of(text);
        let source: Vec<&str> = text.lines().collect();
        for &line in lines {
            if spans.in_test(line) {
                continue;
            }
            let key = (file.to_path_buf(), line);
            let counters = match with_code.get(&key) {
                Some(counters) => counters,
                None => {
                    let text = source.get((line as usize).wrapping_sub(1)).copied();
                    if !(spans.continues_before(line) && text.is_some_and(holds_code_text)) {
                        continue;
                    }
                    match with_code.range(..key.clone()).next_back() {
                        Some(((before, _), counters)) if before == file => counters,
                        _ => continue,
                    }
                }
            };
            code.counters.extend(counters);
            let panics = counters.iter().filter(|&&c| blocks[c as usize].panic_path);
            code.panic_paths.extend(panics);
            code.lines.insert(key, counters.clone());
        }
    }
    code
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    const LIB: &str = "\
pub fn parse(input: &[u8]) -> Option<Point> {
    // the first byte
    let x = *input.first()?;
    let p = Point {
        x,
        y: 7,
    };

    Some(p)
}

#[test]
fn parses() {
    assert!(parse(b\"1\").is_some());
}
";

    fn block(lines: &[u32], panic_path: bool) -> Block {
        Block {
            lines: lines
                .iter()
                .map(|&n| (PathBuf::from("/w/src/lib.rs"), n))
                .collect(),
            panic_path,
            ..Block::default()
        }
    }

    fn changed(lines: &[u32]) -> ChangedLines {
        let file = PathBuf::from("/w/src/lib.rs");
        let lines = BTreeMap::from([(file, lines.iter().copied().collect())]);
        ChangedLines::new(PathBuf::from("/w"), "base".to_string(), lines)
    }

    fn code(lines: &[u32]) -> ChangedCode {
        // 0: the function's start; 1, 2: line 3 and its `?`, whose early
        // return is line 10's too; 3: a bounds check's panic on line 3;
        // 4: the literal (line 4, as optimised code has it) and line 9; 5:
        // the test.
        let blocks = [
            block(&[1], false),
            block(&[3], false),
            block(&[3, 10], false),
            block(&[3], true),
            block(&[4, 9], false),
            block(&[14], false),
        ];
        let texts = HashMap::from([(PathBuf::from("/w/src/lib.rs"), LIB.to_string())]);
        code_of(&blocks, &changed(lines), &texts)
    }

    fn line(n: u32) -> (PathBuf, u32) {
        (PathBuf::from("/w/src/lib.rs"), n)
    }

    #[test]
    fn each_changed_line_with_code_has_its_counters() {
        let code = code(&[1, 3, 9]);
        assert_eq!(code.lines[&line(1)], [0]);
        assert_eq!(code.lines[&line(3)], [1, 2, 3]);
        assert_eq!(code.lines[&line(9)], [4]);
        assert_eq!(code.counters, BTreeSet::from([0, 1, 2, 3, 4]));
        assert_eq!(code.panic_paths, BTreeSet::from([3]));
    }

    #[test]
    fn comments_blank_lines_and_tests_are_no_changed_code() {
        let code = code(&[2, 8, 12, 13, 14, 15]);
        assert!(code.is_empty(), "{code:?}");
        assert!(code.counters.is_empty());
    }

    #[test]
    fn a_line_inside_a_statement_takes_the_counters_of_its_code() {
        // `y: 7,` and the literal's end: no code of their own.
        let code = code(&[6, 7]);
        assert_eq!(code.lines[&line(6)], [4]);
        assert_eq!(code.lines[&line(7)], [4]);
    }

    #[test]
    fn a_line_is_unreached_while_none_of_its_counters_is() {
        let code = code(&[1, 3, 9]);
        assert_eq!(
            code.unreached_lines(&HashSet::new()),
            [line(1), line(3), line(9)]
        );
        // Line 3 through its `?` alone, line 9 not at all.
        assert_eq!(code.unreached_lines(&HashSet::from([0, 2])), [line(9)]);
    }

    /// A function of this test binary, and the line of its body.
    #[inline(never)]
    fn triple(x: u32) -> (u32, u32) {
        (std::hint::black_box(x).wrapping_mul(3), line!())
    }

    /// This test binary, the offset of [`triple`] in it (as the reach
    /// worker reports a counter's address), a change of its body's line,
    /// and that line.
    pub(in crate::changed) fn triple_changed() -> (PathBuf, u64, ChangedLines, (PathBuf, u32)) {
        let pc = offset_in_this_binary(triple as fn(u32) -> (u32, u32) as usize);
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let file = canonical(&manifest.join("src/changed/counters.rs"));
        let (_, body) = triple(1);
        let lines = BTreeMap::from([(file.clone(), BTreeSet::from([body]))]);
        let changed = ChangedLines::new(canonical(manifest), "base".to_string(), lines);
        let binary = std::env::current_exe().unwrap();
        (binary, pc, changed, (file, body))
    }

    /// The offset of the code at `address` in this test binary's mapping.
    pub(in crate::changed) fn offset_in_this_binary(address: usize) -> u64 {
        // SAFETY: `dladdr` only reads the dynamic linker's tables.
        let base = unsafe {
            let mut info: libc::Dl_info = std::mem::zeroed();
            assert_ne!(libc::dladdr(address as *const libc::c_void, &mut info), 0);
            info.dli_fbase as usize
        };
        (address - base) as u64
    }

    #[test]
    fn the_counter_of_a_function_of_this_binary_is_on_its_changed_line() {
        let (binary, pc, changed, body) = triple_changed();
        let code = changed_counters(&binary, &[pc], &changed).unwrap();
        assert_eq!(code.lines.get(&body), Some(&vec![0]), "{code:?}");
        assert_eq!(code.counters, BTreeSet::from([0]));
        assert_eq!(code.unreached_lines(&HashSet::new()), [body]);
        assert!(code.unreached_lines(&HashSet::from([0])).is_empty());
    }

    #[test]
    fn a_line_of_panic_paths_only_is_no_gap() {
        let blocks = [block(&[3], true)];
        let texts = HashMap::from([(PathBuf::from("/w/src/lib.rs"), LIB.to_string())]);
        let code = code_of(&blocks, &changed(&[3]), &texts);
        assert_eq!(code.counters, BTreeSet::from([0]));
        assert!(code.unreached_lines(&HashSet::new()).is_empty());
    }
}
