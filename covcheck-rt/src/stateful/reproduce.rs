//! A failing sequence as Rust: the `#[test]` a failure report ends with,
//! for the user to paste beside the property.
//!
//! Commands are written with their `Debug` form, which for a derived
//! `Debug` of an enum is its variant as code (`Put { key: 1, value: 2 }`),
//! under a `use` of the enum's variants. Types are written with the last
//! segment of their paths (`KvStore`, not `my_crate::tests::KvStore`): the
//! test goes beside the property, where those names are in scope.

use std::fmt::{Debug, Write};

/// The test that runs `commands` on `S` with [`super::Commands`].
pub(super) fn sequential<S, C: Debug>(commands: &[C]) -> String {
    let mut call = format!(
        "covcheck_rt::stateful::Commands::<{}>::new({})",
        short_type_name(std::any::type_name::<S>()),
        vec_of(commands, 0)
    );
    call.push_str("\n.run();");
    test::<C>(commands.iter(), &call)
}

/// The test that runs `prefix` then `branches` on `S` with
/// [`super::ParallelCommands`].
pub(super) fn parallel<S, C: Debug>(prefix: &[C], branches: &[Vec<C>]) -> String {
    let mut threads = String::from("vec![\n");
    for branch in branches {
        let _ = writeln!(threads, "        {},", vec_of(branch, 2));
    }
    threads.push_str("    ]");
    let call = format!(
        "covcheck_rt::stateful::ParallelCommands::<{}>::new(\n    {},\n    {threads},\n)\n.run();",
        short_type_name(std::any::type_name::<S>()),
        vec_of(prefix, 1),
    );
    let all = prefix.iter().chain(branches.iter().flatten());
    test::<C>(all, &call)
}

/// The `#[test]` around `call`, with the `use` the commands need.
fn test<'a, C: Debug + 'a>(commands: impl Iterator<Item = &'a C>, call: &str) -> String {
    let mut body = String::new();
    if let Some(enum_name) = enum_of_variants::<C>(commands) {
        let _ = writeln!(body, "        use {enum_name}::*;");
    }
    for line in call.lines() {
        let _ = writeln!(body, "        {line}");
    }
    format!(
        "\n\nThe sequence as a test (paste it beside the property):\n\n    #[test]\n    fn reproduces_the_failure() {{\n{body}    }}"
    )
}

/// `vec![...]` of `items`, one per line, closed at `indent` levels.
fn vec_of<C: Debug>(items: &[C], indent: usize) -> String {
    let one_line: Vec<String> = items.iter().map(|item| format!("{item:?}")).collect();
    let one_line = format!("vec![{}]", one_line.join(", "));
    if one_line.len() <= 60 && !one_line.contains('\n') {
        return one_line;
    }
    let inner = "    ".repeat(indent + 1);
    let mut out = String::from("vec![\n");
    for item in items {
        let _ = writeln!(out, "{inner}{item:?},");
    }
    out.push_str(&"    ".repeat(indent));
    out.push(']');
    out
}

/// The name to import variants from, when the commands are written as
/// bare variants (an enum's derived `Debug`), not as the type's own name (a
/// struct's).
fn enum_of_variants<'a, C: Debug + 'a>(
    mut commands: impl Iterator<Item = &'a C>,
) -> Option<String> {
    let name = short_type_name(std::any::type_name::<C>());
    let bare = name.split('<').next().unwrap_or(&name).to_string();
    let written_as_type = |text: &str| {
        text.strip_prefix(&bare)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '(', '{']))
    };
    commands
        .any(|c| !written_as_type(&format!("{c:?}")))
        .then_some(bare)
}

/// `a::b::C<d::E, F>` as `C<E, F>`.
pub(super) fn short_type_name(name: &str) -> String {
    let mut out = String::new();
    let mut path = String::new();
    let flush = |path: &mut String, out: &mut String| {
        out.push_str(path.rsplit("::").next().unwrap_or(""));
        path.clear();
    };
    for c in name.chars() {
        if c.is_alphanumeric() || c == '_' || c == ':' {
            path.push(c);
        } else {
            flush(&mut path, &mut out);
            out.push(c);
        }
    }
    flush(&mut path, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    #[allow(dead_code, reason = "only the Debug form is used")]
    enum Op {
        Put { key: u8 },
        Clear,
    }

    #[derive(Debug)]
    #[allow(dead_code, reason = "only the Debug form is used")]
    struct Push(u8);

    struct KvStore;

    #[test]
    fn paths_keep_their_last_segment() {
        assert_eq!(short_type_name("a::b::C<d::E, F>"), "C<E, F>");
        assert_eq!(short_type_name("u8"), "u8");
        assert_eq!(short_type_name("(a::B, [c::D; 2])"), "(B, [D; 2])");
    }

    #[test]
    fn an_enums_commands_are_its_variants_in_scope() {
        let text = sequential::<KvStore, _>(&[Op::Put { key: 1 }, Op::Clear]);
        assert_eq!(
            text,
            "\n\nThe sequence as a test (paste it beside the property):\n\n    #[test]\n    fn reproduces_the_failure() {\n        use Op::*;\n        covcheck_rt::stateful::Commands::<KvStore>::new(vec![Put { key: 1 }, Clear])\n        .run();\n    }"
        );
    }

    #[test]
    fn a_structs_commands_need_no_import() {
        let text = sequential::<KvStore, _>(&[Push(1)]);
        assert!(!text.contains("use "), "{text}");
        assert!(text.contains("::new(vec![Push(1)])"), "{text}");
    }
}
