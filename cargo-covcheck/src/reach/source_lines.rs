//! What the source text says about lines the line tables alone get wrong,
//! so that the report counts lines as LLVM's source-based coverage does
//! (`cargo xtask report-vs-llvm-cov` measures how far it agrees):
//!
//! - code a macro generated is no line of the user's: the rows of an
//!   attribute line (`#[covcheck]`, `#[derive(..)]`) are dropped, and so
//!   are those of every function a derive generated (their other rows fall
//!   on the type's field and variant lines);
//! - a line that holds no code of its own is counted where LLVM's regions
//!   span it, found by parsing the file ([`Spans`]): inside a multi-line
//!   struct literal, call, method chain, array, tuple or macro call, and
//!   the first line of a `let`, it is part of the statement and takes the
//!   state of the line with code before it, as do a `break`, a `continue`
//!   and the closing brace of a `while` loop's body; the closing brace of
//!   an `if` without `else` is the implicit `else`: not reached if the `if`
//!   was not, else as the code after it. Other lines without code (the
//!   braces of `loop`, `match` and `else` blocks) are not counted, as in
//!   LLVM's.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use super::model::{FunctionCoverage, LineCoverage};
use super::symbols::Block;

/// The text of the files under test, read once each.
#[derive(Default)]
pub struct Sources {
    texts: HashMap<PathBuf, Vec<String>>,
}

impl Sources {
    fn line(&mut self, file: &Path, line: u32) -> &str {
        let lines = self.texts.entry(file.to_path_buf()).or_insert_with(|| {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            text.lines().map(str::to_string).collect()
        });
        let index = (line as usize).wrapping_sub(1);
        lines.get(index).map_or("", String::as_str)
    }
}

/// Whether a line of source is an attribute.
pub fn is_attribute(text: &str) -> bool {
    let text = text.trim_start();
    text.starts_with("#[") || text.starts_with("#![")
}

/// Whether a line of source holds something a region could span: not
/// blank, not only a comment, not an attribute.
pub fn holds_code_text(text: &str) -> bool {
    let text = text.trim();
    !(text.is_empty() || text.starts_with("//") || is_attribute(text))
}

/// Drops the lines of macro-generated code from `blocks`: every line of a
/// function whose first line is a `derive` attribute, and the attribute
/// lines of every other.
pub fn drop_generated(blocks: &mut [Block], sources: &mut Sources) {
    let mut first: HashMap<&str, &(PathBuf, u32)> = HashMap::new();
    for block in blocks.iter() {
        if let (Some(name), Some(line)) = (&block.function, block.lines.first()) {
            let earliest = first.entry(name).or_insert(line);
            *earliest = (*earliest).min(line);
        }
    }
    let derived: Vec<String> = first
        .into_iter()
        .filter(|(_, (file, line))| {
            let text = sources.line(file, *line);
            is_attribute(text) && text.contains("derive(")
        })
        .map(|(name, _)| name.to_string())
        .collect();
    // Their closures too: `<T as Trait>::method::{{closure}}`.
    let of_derived = |f: &String| {
        derived.iter().any(|d| {
            f == d
                || f.strip_prefix(d.as_str())
                    .is_some_and(|r| r.starts_with("::"))
        })
    };
    for block in blocks.iter_mut() {
        if block.function.as_ref().is_some_and(of_derived) {
            block.lines.clear();
        }
        block
            .lines
            .retain(|(file, line)| !is_attribute(sources.line(file, *line)));
    }
}

/// Where a line without code takes its state from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Anchor {
    /// The line with code before it: it continues that statement.
    Before,
    /// The implicit `else` of the `if` on this line: not reached if the
    /// `if` was not, else as the line with code after it.
    ElseOf(u32),
}

/// The lines of a file that LLVM's regions span though they may hold no
/// code, from its syntax.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Spans {
    anchors: BTreeMap<u32, Anchor>,
    /// The (first, last) lines of the `#[test]` functions.
    tests: Vec<(u32, u32)>,
}

impl Spans {
    /// Parses `text`; a file that does not parse spans nothing.
    pub fn of(text: &str) -> Spans {
        let mut spans = Spans::default();
        if let Ok(file) = syn::parse_file(text) {
            syn::visit::Visit::visit_file(&mut spans, &file);
        }
        spans
    }

    /// Whether `line` is in a `#[test]` function: test code, which no
    /// property is meant to reach.
    pub fn in_test(&self, line: u32) -> bool {
        self.tests
            .iter()
            .any(|&(first, last)| (first..=last).contains(&line))
    }

    /// Whether `line`, where it holds no code of its own, is part of the
    /// statement of the line with code before it (a field of a multi-line
    /// struct literal, an argument of a multi-line call, ...).
    pub fn continues_before(&self, line: u32) -> bool {
        self.anchors.get(&line) == Some(&Anchor::Before)
    }

    /// The lines after the first of `span`, up to its last (`to_end`) or
    /// the one before: a macro call's closing line is no line of LLVM's.
    fn continues(&mut self, span: proc_macro2::Span, to_end: bool) {
        let end = span.end().line + usize::from(to_end);
        for line in span.start().line + 1..end {
            self.anchors.entry(line as u32).or_insert(Anchor::Before);
        }
    }

    /// The closing brace of a `while` loop's body, unless its last
    /// statement jumps away.
    fn falls_through(&mut self, block: &syn::Block) {
        let jumps = block.stmts.last().is_some_and(|stmt| {
            let expr = match stmt {
                syn::Stmt::Expr(expr, _) => expr,
                _ => return false,
            };
            matches!(
                expr,
                syn::Expr::Return(_) | syn::Expr::Break(_) | syn::Expr::Continue(_)
            )
        });
        if !jumps {
            let close = block.brace_token.span.close().start().line as u32;
            self.anchors.entry(close).or_insert(Anchor::Before);
        }
    }
}

impl<'ast> syn::visit::Visit<'ast> for Spans {
    fn visit_expr(&mut self, expr: &'ast syn::Expr) {
        use syn::spanned::Spanned as _;
        match expr {
            syn::Expr::Struct(_)
            | syn::Expr::Call(_)
            | syn::Expr::MethodCall(_)
            | syn::Expr::Array(_)
            | syn::Expr::Tuple(_) => self.continues(expr.span(), true),
            syn::Expr::Macro(_) => self.continues(expr.span(), false),
            syn::Expr::Break(_) | syn::Expr::Continue(_) => {
                let line = expr.span().start().line as u32;
                self.anchors.entry(line).or_insert(Anchor::Before);
            }
            syn::Expr::If(expr_if) if expr_if.else_branch.is_none() => {
                let open = expr_if.if_token.span.start().line as u32;
                let close = expr_if.then_branch.brace_token.span.close().start().line;
                self.anchors.insert(close as u32, Anchor::ElseOf(open));
            }
            syn::Expr::While(expr_while) => self.falls_through(&expr_while.body),
            _ => {}
        }
        syn::visit::visit_expr(self, expr);
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        use syn::spanned::Spanned as _;
        if item.attrs.iter().any(|a| a.path().is_ident("test")) {
            let span = item.span();
            self.tests
                .push((span.start().line as u32, span.end().line as u32));
        }
        syn::visit::visit_item_fn(self, item);
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        let line = local.let_token.span.start().line as u32;
        self.anchors.entry(line).or_insert(Anchor::Before);
        syn::visit::visit_local(self, local);
    }

    fn visit_stmt_macro(&mut self, stmt: &'ast syn::StmtMacro) {
        use syn::spanned::Spanned as _;
        self.continues(stmt.span(), false);
        syn::visit::visit_stmt_macro(self, stmt);
    }
}

/// Gives each line of a function's extent that has no code but that LLVM's
/// regions span its state: that of the line with code before or after it
/// in the function (see [`Spans`]).
pub fn fill(
    lines: &mut BTreeMap<u32, LineCoverage>,
    functions: &[FunctionCoverage],
    text: &str,
    spans: &Spans,
) {
    let text: Vec<&str> = text.lines().collect();
    let mut filled = Vec::new();
    for function in functions {
        for number in function.first_line..=function.last_line {
            let holds = text
                .get((number as usize).wrapping_sub(1))
                .is_some_and(|t| holds_code_text(t));
            let Some(anchor) = spans.anchors.get(&number).filter(|_| holds) else {
                continue;
            };
            if lines.contains_key(&number) {
                continue;
            }
            let before = lines.range(function.first_line..number).next_back();
            let after = lines.range(number..=function.last_line).next();
            let from = match *anchor {
                Anchor::Before => before.map(|(_, line)| line),
                Anchor::ElseOf(open) => match lines.get(&open) {
                    Some(line) if !line.reached() => Some(line),
                    _ => after.or(before).map(|(_, line)| line),
                },
            };
            if let Some(line) = from {
                filled.push((number, spanned(line)));
            }
        }
    }
    lines.extend(filled);
}

/// A code-free line spanned by the statement of `line`: reached as it is,
/// one block of its own (it has no branches).
fn spanned(line: &LineCoverage) -> LineCoverage {
    LineCoverage {
        reached_by: line.reached_by.clone(),
        hits: line.hits,
        blocks: 1,
        blocks_hit: u32::from(line.reached()),
        panic_paths: 0,
        panic_paths_hit: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(reached: bool) -> LineCoverage {
        LineCoverage {
            reached_by: if reached { vec![0] } else { vec![] },
            hits: u64::from(reached),
            blocks: 2,
            blocks_hit: u32::from(reached),
            ..LineCoverage::default()
        }
    }

    #[test]
    fn code_free_lines_are_counted_where_llvm_regions_span_them() {
        let text = "fn f(x: u32) {\n    let p = P {\n        at: 0,\n    };\n    // note\n\n    \
                    if x > 1 {\n        g();\n    }\n    h();\n    loop {\n        break;\n    }\n\
                    while x > 2 {\n        if x > 3 {\n            g();\n        }\n        h();\n    }\n}\n";
        let mut lines = BTreeMap::from([
            (1, line(true)),
            (2, line(true)),
            (7, line(true)),
            (8, line(false)),
            (10, line(true)),
            (12, line(true)),
            (14, line(false)),
            (15, line(false)),
            (16, line(false)),
            (18, line(false)),
            (20, line(true)),
        ]);
        let function = FunctionCoverage {
            name: "c::f".to_string(),
            first_line: 1,
            last_line: 20,
            reached_by: vec![0],
        };
        fill(&mut lines, &[function], text, &Spans::of(text));
        let state = |n| lines.get(&n).map(LineCoverage::reached);
        assert_eq!(state(3), Some(true), "a field of a struct literal");
        assert_eq!(state(4), Some(true), "the literal's end");
        assert_eq!(state(5), None, "a comment");
        assert_eq!(state(6), None, "a blank line");
        assert_eq!(
            state(9),
            Some(true),
            "an if's implicit else, as the code after it"
        );
        assert_eq!(state(11), None, "a loop's opening line");
        assert_eq!(state(13), None, "a loop's closing brace");
        assert_eq!(
            state(17),
            Some(false),
            "the implicit else of an if never run"
        );
        assert_eq!(
            state(19),
            Some(false),
            "a while loop's closing brace, as its body"
        );
        assert_eq!(lines[&3].blocks, 1);
    }

    #[test]
    fn test_functions_are_known_by_their_attribute() {
        let spans = Spans::of("fn f() {}\n\n#[test]\nfn t() {\n    f();\n}\n");
        assert!(!spans.in_test(1));
        assert!(spans.in_test(5));
    }

    #[test]
    fn attributes_and_comments_hold_no_code() {
        assert!(is_attribute("    #[derive(Clone)]"));
        assert!(!holds_code_text("  #[covcheck]"));
        assert!(!holds_code_text("   // x"));
        assert!(holds_code_text("    }"));
    }
}
