//! The lines a change touched, as git tells them: the work tree against
//! the commit where it branched off the revision given (their merge base),
//! so that the edits not yet committed count, and so do the files not yet
//! added (git ignores them in a diff, but a new module is changed code).
//!
//! Why the merge base: with `--since origin/main` on a branch that main
//! has moved on from, the tip of main differs from the work tree also in
//! the lines main changed since, which this change never touched (as
//! `git diff origin/main...` and Jest's `--changedSince` see it). For a
//! revision HEAD descends from (`HEAD~3`, a tag) the merge base is the
//! revision itself.
//!
//! Only the new side of each hunk is kept: the lines added or modified, by
//! their number in the work tree, which is where the test binaries' line
//! tables point. A pure deletion (`@@ -5,2 +4,0 @@`) records nothing: what
//! was deleted has no code left to reach, and the lines around it are no
//! more changed than before (a deletion that matters, such as a removed
//! guard, changes how they run, which only running them shows).
//!
//! Git's output is read as its documentation describes it, with every
//! setting that would change its shape overridden (prefixes, colour,
//! external diff tools, text conversion, renames, paths relative to a
//! subdirectory, how names are quoted).

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use cargo_util::ProcessBuilder;

use crate::error::{ProcessFailure, SinceError};

/// The lines of each file a change touched, in the work tree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChangedLines {
    /// The work tree's top directory, as git names it (symbolic links
    /// resolved): every changed file is under it.
    pub top: PathBuf,
    /// The commit the work tree was compared with (the merge base), in
    /// full.
    pub base: String,
    /// Absolute paths, and the (1-based) numbers of their changed lines.
    lines: BTreeMap<PathBuf, BTreeSet<u32>>,
}

impl ChangedLines {
    pub fn new(
        top: PathBuf,
        base: String,
        lines: BTreeMap<PathBuf, BTreeSet<u32>>,
    ) -> ChangedLines {
        let mut lines = lines;
        lines.retain(|_, numbers| !numbers.is_empty());
        ChangedLines { top, base, lines }
    }

    /// The number of changed lines, in all files.
    pub fn len(&self) -> usize {
        self.lines.values().map(BTreeSet::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Each changed file (sorted) and its changed lines.
    pub fn files(&self) -> impl Iterator<Item = (&Path, &BTreeSet<u32>)> {
        self.lines
            .iter()
            .map(|(file, lines)| (file.as_path(), lines))
    }

    /// The changed lines of `file` (an absolute path, symbolic links
    /// resolved).
    pub fn of_file(&self, file: &Path) -> Option<&BTreeSet<u32>> {
        self.lines.get(file)
    }

    pub fn contains(&self, file: &Path, line: u32) -> bool {
        self.of_file(file)
            .is_some_and(|lines| lines.contains(&line))
    }
}

/// The lines of the work tree that `dir` is in that changed since `rev`
/// (where HEAD branched off it): see the module's documentation.
pub fn changed_lines(dir: &Path, rev: &str) -> Result<ChangedLines, SinceError> {
    let output = git(dir, &["rev-parse", "--show-toplevel"])?;
    if !output.status.success() {
        return Err(SinceError::NotACheckout {
            dir: dir.to_path_buf(),
            git: first_line(&output.stderr),
        });
    }
    let top = PathBuf::from(OsString::from_vec(trimmed(output.stdout)));
    let commit = format!("{rev}^{{commit}}");
    let output = git(
        &top,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &commit,
        ],
    )?;
    if !output.status.success() {
        return Err(SinceError::UnknownRevision {
            rev: rev.to_string(),
            shallow: is_shallow(&top),
            top,
        });
    }
    let commit = String::from_utf8_lossy(&trimmed(output.stdout)).into_owned();
    let base = merge_base(&top, &commit, rev)?;
    let diff = git_ok(
        &top,
        &[
            "diff",
            "-U0",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--no-renames",
            "--no-relative",
            "--ignore-submodules",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            &base,
            "--",
        ],
    )?;
    let text = String::from_utf8_lossy(&diff.stdout);
    let mut lines = parse_diff(&text, &top).map_err(SinceError::UnreadableDiff)?;
    let untracked = git_ok(&top, &["ls-files", "--others", "--exclude-standard", "-z"])?;
    for name in untracked
        .stdout
        .split(|&b| b == 0)
        .filter(|n| !n.is_empty())
    {
        let file = top.join(OsString::from_vec(name.to_vec()));
        if let Some(count) = line_count(&file) {
            lines.insert(file, (1..=count).collect());
        }
    }
    Ok(ChangedLines::new(top, base, lines))
}

/// The commit where HEAD branched off `commit` (`rev`, resolved); `commit`
/// itself where they share no history (a HEAD not born yet, unrelated
/// histories), unless a shallow clone may just lack it.
fn merge_base(top: &Path, commit: &str, rev: &str) -> Result<String, SinceError> {
    let output = git(top, &["merge-base", commit, "HEAD"])?;
    if output.status.success() {
        return Ok(String::from_utf8_lossy(&trimmed(output.stdout)).into_owned());
    }
    if is_shallow(top) {
        return Err(SinceError::NoMergeBase {
            rev: rev.to_string(),
            top: top.to_path_buf(),
        });
    }
    Ok(commit.to_string())
}

/// Whether the repository is a shallow clone, which lacks the commits
/// before some point.
fn is_shallow(top: &Path) -> bool {
    let output = git_ok(top, &["rev-parse", "--is-shallow-repository"]);
    output.is_ok_and(|out| out.stdout.starts_with(b"true"))
}

/// Runs git in `dir` on `args` and returns what it printed, whatever its
/// exit status; an error only if it did not start.
fn git(dir: &Path, args: &[&str]) -> Result<Output, SinceError> {
    let process = git_process(dir, args);
    process
        .build_command()
        .output()
        .map_err(|e| SinceError::GitNotStarted(ProcessFailure::not_started(&process, e)))
}

/// As [`git`], and git must succeed.
fn git_ok(dir: &Path, args: &[&str]) -> Result<Output, SinceError> {
    let output = git(dir, args)?;
    if !output.status.success() {
        let process = git_process(dir, args);
        return Err(SinceError::Git(ProcessFailure::failed(&process, &output)));
    }
    Ok(output)
}

fn git_process(dir: &Path, args: &[&str]) -> ProcessBuilder {
    let mut process = ProcessBuilder::new("git");
    // Not even the index's stat cache is written: a campaign's look at the
    // work tree must not race the user's own git commands for its lock.
    // Names outside ASCII quoted, byte by byte: the paths are read back
    // exactly whatever their encoding.
    process
        .arg("--no-optional-locks")
        .args(&["-c", "core.quotePath=true"])
        .arg("-C")
        .arg(dir)
        .args(args);
    process
}

/// One line of output, less its newline.
fn trimmed(mut bytes: Vec<u8>) -> Vec<u8> {
    if bytes.last() == Some(&b'\n') {
        bytes.pop();
    }
    bytes
}

fn first_line(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    text.lines().next().unwrap_or("").trim().to_string()
}

/// The number of lines of a regular file (one not ending with a newline
/// still counts its last); `None` for anything else, and for a file too
/// large to be source (a data file left untracked would only cost time).
fn line_count(file: &Path) -> Option<u32> {
    const MAX_SOURCE: u64 = 16 << 20;
    let metadata = std::fs::symlink_metadata(file).ok()?;
    if !metadata.is_file() || metadata.len() > MAX_SOURCE {
        return None;
    }
    let bytes = std::fs::read(file).ok()?;
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
    let last = usize::from(bytes.last().is_some_and(|&b| b != b'\n'));
    u32::try_from(newlines + last).ok()
}

/// The new-side lines of each file of a `git diff -U0` (with the prefixes
/// `a/` and `b/`), by absolute path under `top`. An error quotes the line
/// it cannot read.
pub fn parse_diff(text: &str, top: &Path) -> Result<BTreeMap<PathBuf, BTreeSet<u32>>, String> {
    let mut files: BTreeMap<PathBuf, BTreeSet<u32>> = BTreeMap::new();
    // The file the hunks are of (`None`: deleted), and the lines of the
    // current hunk's body still to come, old and new: a body line can look
    // like a header (`--- x` is the deleted line `-- x`).
    let mut file: Option<PathBuf> = None;
    let (mut old, mut new) = (0u32, 0u32);
    for line in text.split('\n') {
        if old + new > 0 {
            match line.as_bytes().first() {
                Some(b'-') => old -= 1,
                Some(b'+') => new -= 1,
                Some(b' ') => {
                    old = old.saturating_sub(1);
                    new = new.saturating_sub(1);
                }
                Some(b'\\') => {}
                _ => return Err(line.to_string()),
            }
        } else if line.starts_with("diff ") {
            file = None;
        } else if let Some(name) = line.strip_prefix("+++ ") {
            file = new_side_path(name).map(|path| top.join(path));
        } else if line.starts_with("@@") {
            let hunk = Hunk::parse(line).ok_or_else(|| line.to_string())?;
            (old, new) = (hunk.old_lines, hunk.new_lines);
            if let Some(file) = &file {
                let lines = files.entry(file.clone()).or_default();
                lines.extend(hunk.start..hunk.start.saturating_add(hunk.new_lines));
            }
        }
        // Else a header line (`index`, `---`, modes) or `Binary files ...
        // differ`: nothing to record.
    }
    files.retain(|_, lines| !lines.is_empty());
    Ok(files)
}

/// A hunk header's counts: `@@ -a[,b] +c[,d] @@`.
#[derive(Debug, PartialEq, Eq)]
struct Hunk {
    old_lines: u32,
    start: u32,
    new_lines: u32,
}

impl Hunk {
    fn parse(line: &str) -> Option<Hunk> {
        let ranges = line.strip_prefix("@@ ")?.split(" @@").next()?;
        let (old, new) = ranges.split_once(' ')?;
        let range = |text: &str| -> Option<(u32, u32)> {
            match text.split_once(',') {
                Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
                None => Some((text.parse().ok()?, 1)),
            }
        };
        let (_, old_lines) = range(old.strip_prefix('-')?)?;
        let (start, new_lines) = range(new.strip_prefix('+')?)?;
        Some(Hunk {
            old_lines,
            start,
            new_lines,
        })
    }
}

/// The path of a `+++` line, less its `b/` prefix; `None` for a deleted
/// file (`/dev/null`). Git quotes a name with unusual characters in C's
/// way, and ends one with a space with a tab.
fn new_side_path(name: &str) -> Option<PathBuf> {
    let name = name.strip_suffix('\t').unwrap_or(name);
    let bytes = match name.strip_prefix('"').and_then(|n| n.strip_suffix('"')) {
        Some(quoted) => unquote(quoted),
        None => name.as_bytes().to_vec(),
    };
    let path = bytes.strip_prefix(b"b/")?;
    Some(PathBuf::from(OsString::from_vec(path.to_vec())))
}

/// The bytes of a name git quoted: `\"`, `\\`, `\t`, `\n`, ... and octal
/// `\303\251` for bytes outside ASCII.
fn unquote(quoted: &str) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(quoted.len());
    let mut rest = quoted.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        rest = tail;
        if byte != b'\\' {
            bytes.push(byte);
            continue;
        }
        let Some((&escaped, tail)) = rest.split_first() else {
            bytes.push(byte);
            break;
        };
        rest = tail;
        let octal = |b: u8| (b'0'..=b'7').contains(&b);
        bytes.push(match escaped {
            b'a' => 0x07,
            b'b' => 0x08,
            b't' => b'\t',
            b'n' => b'\n',
            b'v' => 0x0b,
            b'f' => 0x0c,
            b'r' => b'\r',
            b'0'..=b'3' if rest.len() >= 2 && octal(rest[0]) && octal(rest[1]) => {
                let value = (escaped - b'0') << 6 | (rest[0] - b'0') << 3 | (rest[1] - b'0');
                rest = &rest[2..];
                value
            }
            other => other,
        });
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `git diff -U0 --no-renames` of a work tree with an edited file of
    /// several hunks (one a pure deletion), a new file, a deleted one, a
    /// renamed one (a deletion and an addition without renames), names
    /// with a space, a quote and a non-ASCII letter, a binary file, and a
    /// deleted line that reads like a header.
    const DIFF: &str = "\
diff --git a/src/lib.rs b/src/lib.rs
index 1111111..2222222 100644
--- a/src/lib.rs
+++ b/src/lib.rs
@@ -3 +3 @@ fn a() {
-    old();
+    new();
@@ -10,0 +11,2 @@ fn b() {
+    one();
+    two();
@@ -20,2 +21,0 @@ fn c() {
--- a/gone
-    gone();
@@ -30,2 +29,3 @@ fn d() {
-    x();
-    y();
+    x2();
+    y2();
+    z2();
\\ No newline at end of file
diff --git a/src/new.rs b/src/new.rs
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/src/new.rs
@@ -0,0 +1,3 @@
+pub fn n() {
+    todo!()
+}
diff --git a/src/old.rs b/src/old.rs
deleted file mode 100644
index 4444444..0000000
--- a/src/old.rs
+++ /dev/null
@@ -1,2 +0,0 @@
-fn o() {
-}
diff --git a/src/before.rs b/src/before.rs
deleted file mode 100644
index 5555555..0000000
--- a/src/before.rs
+++ /dev/null
@@ -1 +0,0 @@
-fn moved() {}
diff --git a/src/after.rs b/src/after.rs
new file mode 100644
index 0000000..5555555
--- /dev/null
+++ b/src/after.rs
@@ -0,0 +1 @@
+fn moved() {}
diff --git a/src/with space.rs b/src/with space.rs
index 6666666..7777777 100644
--- a/src/with space.rs\t
+++ b/src/with space.rs\t
@@ -1 +1 @@
-a
+b
diff --git \"a/src/q\\\"uote.rs\" \"b/src/q\\\"uote.rs\"
index 8888888..9999999 100644
--- \"a/src/q\\\"uote.rs\"
+++ \"b/src/q\\\"uote.rs\"
@@ -2,0 +3 @@
+c
diff --git \"a/src/caf\\303\\251.rs\" \"b/src/caf\\303\\251.rs\"
index aaaaaaa..bbbbbbb 100644
--- \"a/src/caf\\303\\251.rs\"
+++ \"b/src/caf\\303\\251.rs\"
@@ -1 +1 @@
-d
+e
diff --git a/logo.png b/logo.png
index ccccccc..ddddddd 100644
Binary files a/logo.png and b/logo.png differ
";

    #[test]
    fn the_new_side_lines_of_each_hunk_are_the_changed_ones() {
        let files = parse_diff(DIFF, Path::new("/repo")).unwrap();
        let lines = |name: &str| -> Vec<u32> {
            let path = Path::new("/repo").join(name);
            files
                .get(&path)
                .map_or(Vec::new(), |l| l.iter().copied().collect())
        };
        assert_eq!(lines("src/lib.rs"), [3, 11, 12, 29, 30, 31]);
        assert_eq!(lines("src/new.rs"), [1, 2, 3]);
        assert_eq!(lines("src/after.rs"), [1], "a rename is a new file");
        assert_eq!(lines("src/with space.rs"), [1]);
        assert_eq!(lines("src/q\"uote.rs"), [3]);
        assert_eq!(lines("src/café.rs"), [1]);
        let names: Vec<&Path> = files.keys().map(PathBuf::as_path).collect();
        assert_eq!(
            names.len(),
            6,
            "deleted and binary files have no lines: {names:?}"
        );
    }

    #[test]
    fn a_diff_cut_short_or_garbled_is_an_error_naming_the_line() {
        let garbled = "+++ b/x\n@@ -1 +1 @@\n-a\nb\n";
        assert_eq!(parse_diff(garbled, Path::new("/")), Err("b".to_string()));
        let header = "+++ b/x\n@@ -1 +one @@\n";
        assert_eq!(
            parse_diff(header, Path::new("/")),
            Err("@@ -1 +one @@".to_string())
        );
    }

    #[test]
    fn hunk_counts_default_to_one() {
        let hunk = |line| Hunk::parse(line).unwrap();
        assert_eq!(
            hunk("@@ -3 +4 @@"),
            Hunk {
                old_lines: 1,
                start: 4,
                new_lines: 1
            }
        );
        assert_eq!(hunk("@@ -3,2 +2,0 @@ fn f() {").new_lines, 0);
        assert_eq!(hunk("@@ -0,0 +1,7 @@").new_lines, 7);
    }

    #[test]
    fn quoted_names_are_unquoted_to_their_bytes() {
        assert_eq!(unquote(r#"a\"b\\c\td"#), b"a\"b\\c\td");
        assert_eq!(unquote(r"caf\303\251"), "café".as_bytes());
        assert_eq!(new_side_path("/dev/null"), None);
        assert_eq!(new_side_path("b/a b.rs\t"), Some(PathBuf::from("a b.rs")));
    }

    /// Runs git in `dir`, as a test's author would, and asserts it succeeds.
    fn run(dir: &Path, args: &[&str]) {
        let output = git_process(dir, args)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        assert!(output.status.success(), "git {args:?}: {output:?}");
    }

    fn commit(dir: &Path, message: &str) {
        run(dir, &["add", "-A"]);
        let who = ["-c", "user.name=t", "-c", "user.email=t@t"];
        run(dir, &[&who[..], &["commit", "-q", "-m", message]].concat());
    }

    /// A repository with one commit of `src/lib.rs`, whose top directory
    /// is returned as git names it.
    fn repository() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        run(dir.path(), &["init", "-q", "-b", "main"]);
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), "fn a() {}\nfn b() {}\n").unwrap();
        commit(dir.path(), "first");
        let top = std::fs::canonicalize(dir.path()).unwrap();
        (dir, top)
    }

    #[test]
    fn committed_uncommitted_and_untracked_changes_all_count() {
        let (_dir, top) = repository();
        std::fs::write(top.join("src/lib.rs"), "fn a() {}\nfn b() { 1; }\n").unwrap();
        for name in ["src/a b.rs", "src/é.rs"] {
            std::fs::write(top.join(name), "fn x() {}\n").unwrap();
        }
        commit(&top, "second");
        for name in ["src/a b.rs", "src/é.rs"] {
            std::fs::write(top.join(name), "fn x() {}\nfn y() {}\n").unwrap();
        }
        std::fs::write(
            top.join("src/lib.rs"),
            "fn z() {}\nfn a() {}\nfn b() { 1; }\n",
        )
        .unwrap();
        std::fs::write(top.join("src/new.rs"), "fn n() {}\n\nfn m() {}").unwrap();
        std::fs::write(top.join(".gitignore"), "ignored.rs\n").unwrap();
        std::fs::write(top.join("src/ignored.rs"), "fn i() {}\n").unwrap();
        let changed = changed_lines(&top.join("src"), "HEAD~1").unwrap();
        assert_eq!(changed.top, top);
        let lines = |name: &str| -> Vec<u32> {
            let lines = changed.of_file(&top.join(name));
            lines.map_or(Vec::new(), |l| l.iter().copied().collect())
        };
        assert_eq!(lines("src/lib.rs"), [1, 3]);
        assert_eq!(lines("src/new.rs"), [1, 2, 3]);
        assert_eq!(lines(".gitignore"), [1]);
        assert_eq!(lines("src/ignored.rs"), Vec::<u32>::new());
        assert_eq!(lines("src/a b.rs"), [1, 2], "new since HEAD~1");
        assert_eq!(lines("src/é.rs"), [1, 2]);
        assert_eq!(changed.len(), 10);
        assert!(changed.contains(&top.join("src/lib.rs"), 3));
    }

    #[test]
    fn a_diverged_revision_is_compared_from_where_head_branched_off_it() {
        let (_dir, top) = repository();
        run(&top, &["checkout", "-q", "-b", "topic"]);
        std::fs::write(top.join("src/lib.rs"), "fn a() {}\nfn b() {}\nfn t() {}\n").unwrap();
        commit(&top, "topic");
        run(&top, &["checkout", "-q", "main"]);
        std::fs::write(top.join("src/lib.rs"), "fn main_moved() {}\nfn b() {}\n").unwrap();
        commit(&top, "main moves on");
        run(&top, &["checkout", "-q", "topic"]);
        let changed = changed_lines(&top, "main").unwrap();
        let lib: Vec<u32> = changed
            .of_file(&top.join("src/lib.rs"))
            .unwrap()
            .iter()
            .copied()
            .collect();
        assert_eq!(lib, [3], "main's own change is not the topic's");
    }

    #[test]
    fn an_unknown_revision_is_named_with_the_way_to_fetch_it() {
        let (_dir, top) = repository();
        let error = changed_lines(&top, "origin/main").unwrap_err();
        assert!(
            matches!(&error, SinceError::UnknownRevision { rev, shallow: false, .. } if rev == "origin/main"),
            "{error:?}"
        );
        assert!(error.to_string().contains("`git fetch origin`"), "{error}");
        let option = changed_lines(&top, "--all").unwrap_err();
        assert!(
            matches!(option, SinceError::UnknownRevision { .. }),
            "{option:?}"
        );
    }

    #[test]
    fn a_directory_outside_any_checkout_says_since_needs_one() {
        let dir = tempfile::tempdir().unwrap();
        // Git looks for a repository in the directories above too: where
        // the temporary directory is inside one, there is nothing to test.
        if git(dir.path(), &["rev-parse"]).unwrap().status.success() {
            eprintln!("{} is in a git work tree: skipped", dir.path().display());
            return;
        }
        let error = changed_lines(dir.path(), "HEAD").unwrap_err();
        assert!(
            matches!(error, SinceError::NotACheckout { .. }),
            "{error:?}"
        );
        let message = error.to_string();
        let expected = format!(
            "--since compares the work tree with a git revision, so it needs a git \
             checkout, but {} is not in one (fatal: not a git repository",
            dir.path().display()
        );
        assert!(message.starts_with(&expected), "{message}");
    }

    #[test]
    fn a_shallow_clone_missing_the_revision_says_to_fetch_its_history() {
        let error = SinceError::UnknownRevision {
            rev: "origin/main".to_string(),
            top: PathBuf::from("/ci/repo"),
            shallow: true,
        };
        let message = error.to_string();
        assert!(message.contains("shallow clone"), "{message}");
        assert!(message.contains("fetch-depth: 0"), "{message}");
        assert_eq!(
            crate::error::Error::from(error).exit_code(),
            crate::exit::USAGE
        );
    }
}
