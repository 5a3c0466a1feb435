//! `cargo xtask report-bench`: how long `cargo covcheck report` takes on a
//! crate with 20 properties and 10,000 corpus entries (issue 16 asks for
//! under 30 s on two cores). The crate is generated under the workspace's
//! target directory; its corpus caches are filled by a short campaign per
//! property, then topped up with random choice sequences (any sequence
//! replays: draws past its end are zero, out-of-range indices wrap).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::measure;

const PROPERTIES: usize = 20;
const ENTRIES: usize = 10_000;

pub fn main() -> Result<(), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf();
    let covcheck = measure::build_cargo_covcheck(&root)?;
    let work = measure::target_dir_of(&covcheck).join("report-bench");
    let manifest = write_crate(&work.join("crate"), &root)?;
    let target_dir = work.join("target");
    let covcheck_cmd = |args: &[&str]| {
        let mut command = Command::new(&covcheck);
        command
            .arg("covcheck")
            .args(args)
            .arg("--manifest-path")
            .arg(&manifest)
            .arg("--target-dir")
            .arg(&target_dir)
            .stdout(Stdio::null());
        command
    };
    // Builds, and makes each property's corpus cache directory.
    run(covcheck_cmd(&["--runs", "300", "--seed", "1", "--no-save"]))?;
    let corpus_dirs = corpus_dirs(&target_dir.join("covcheck/corpus"))?;
    if corpus_dirs.len() != PROPERTIES {
        return Err(format!(
            "expected {PROPERTIES} corpus caches, found {}",
            corpus_dirs.len()
        ));
    }
    let entries = top_up(&corpus_dirs)?;
    // The report's own build, once, outside the measurement.
    run(covcheck_cmd(&["report"]))?;
    let started = Instant::now();
    run(covcheck_cmd(&["report"]))?;
    let report = started.elapsed();
    println!(
        "cargo covcheck report, {PROPERTIES} properties, {entries} corpus entries, build \
         warm: {:.1} s",
        report.as_secs_f64()
    );
    Ok(())
}

fn run(mut command: Command) -> Result<(), String> {
    let status = command.status().map_err(|e| e.to_string())?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{command:?} failed: {status}"))
    }
}

/// A crate whose 20 properties exercise a small tokenizer in different ways.
fn write_crate(dir: &Path, root: &Path) -> Result<PathBuf, String> {
    let src = dir.join("src");
    std::fs::create_dir_all(&src).map_err(|e| e.to_string())?;
    let manifest = format!(
        "[package]\nname = \"report_bench\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [dev-dependencies]\ncovcheck-rt = {{ path = {:?} }}\n\n[workspace]\n",
        root.join("covcheck-rt").display().to_string()
    );
    let mut lib = String::from(TOKENIZER);
    lib.push_str("\n#[cfg(test)]\nmod tests {\n    use covcheck_rt::covcheck;\n");
    for n in 0..PROPERTIES {
        let _ = write!(
            lib,
            "\n    #[covcheck]\n    fn p{n:02}(text: String, skip: u8) {{\n        \
             let tokens = super::tokens(&text);\n        \
             std::hint::black_box(tokens.iter().skip(skip as usize % {m}).count());\n    }}\n",
            m = n + 1
        );
    }
    lib.push_str("}\n");
    let path = dir.join("Cargo.toml");
    std::fs::write(&path, manifest).map_err(|e| e.to_string())?;
    std::fs::write(src.join("lib.rs"), lib).map_err(|e| e.to_string())?;
    let _ = std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock"));
    Ok(path)
}

const TOKENIZER: &str = r#"#[derive(Debug, PartialEq)]
pub enum Token<'a> {
    Number(u64),
    Word(&'a str),
    Symbol(char),
}

pub fn tokens(text: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c.is_ascii_digit() {
            let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
            out.push(Token::Number(rest[..end].parse().unwrap_or(u64::MAX)));
            rest = &rest[end..];
        } else if c.is_alphabetic() {
            let end = rest.find(|c: char| !c.is_alphabetic()).unwrap_or(rest.len());
            out.push(Token::Word(&rest[..end]));
            rest = &rest[end..];
        } else {
            if !c.is_whitespace() {
                out.push(Token::Symbol(c));
            }
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}
"#;

fn corpus_dirs(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    Ok(dirs)
}

/// Fills the corpus caches up to [`ENTRIES`] in all with random choice
/// sequences (a fixed SplitMix64 stream); returns the total.
fn top_up(dirs: &[PathBuf]) -> Result<usize, String> {
    let per_dir = ENTRIES / dirs.len();
    let mut state = 0x5eed_u64;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut total = 0;
    for dir in dirs {
        let existing = std::fs::read_dir(dir).map_err(|e| e.to_string())?.count();
        for n in existing..per_dir {
            let len = 2 + next() % 48;
            let choices: Vec<String> = (0..len).map(|_| (next() % 128).to_string()).collect();
            let path = dir.join(format!("bench-{n:05}"));
            std::fs::write(&path, choices.join(" ")).map_err(|e| e.to_string())?;
        }
        total += std::fs::read_dir(dir).map_err(|e| e.to_string())?.count();
    }
    Ok(total)
}
