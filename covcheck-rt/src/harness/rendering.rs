//! Whether a saved seed still generates what it was saved as: a seed's
//! choices are replayed as they are, and when the property's argument types
//! or generators change they may no longer render the values the seed file
//! records. Such a seed is still replayed, with a warning.

use std::io::Write as _;

use super::report::rendered_args;
use crate::property::Case;
use covcheck_protocol::seeds::{ArgRecord, Seed};

/// Warns (on the real stderr, so it shows even when the test passes) when a
/// seed's choices no longer render the values it was saved with: the
/// property's types or generators changed, and the seed may no longer test
/// what it was saved for.
pub(super) fn warn_if_rendering_changed(seed: &Seed, case: &Case) {
    let now = rendered_args(case);
    if seed.file.args.is_empty() || same_rendering(&seed.file.args, &now) {
        return;
    }
    let show = |args: &[ArgRecord]| {
        args.iter()
            .map(|a| format!("{} = {}", a.name, a.value))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(
        std::io::stderr(),
        "covcheck: warning: seed {} was saved as `{}` but now generates `{}`; the property's argument \
         types or generators changed. It is still replayed; delete it if it no longer tests anything useful.",
        seed.path.display(),
        show(&seed.file.args),
        show(&now)
    );
}

/// Equal renderings, where the entries of a `{...}` group may come in any
/// order: `HashMap` and `HashSet` print theirs in a per-process random order
/// and must not warn on every run. Anything else that moved (`[1, 2]` and
/// `[2, 1]`) is a change.
fn same_rendering(saved: &[ArgRecord], now: &[ArgRecord]) -> bool {
    saved.len() == now.len()
        && saved.iter().zip(now).all(|(a, b)| {
            a.name == b.name
                && (a.value == b.value
                    || braced_entries_sorted(&a.value) == braced_entries_sorted(&b.value))
        })
}

/// `text` with the comma-separated entries of every `{...}` group sorted
/// (string and character literals are kept whole).
fn braced_entries_sorted(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut pos = 0;
    sorted_group(&chars, &mut pos, None)
}

/// The rest of a group up to `close` (consumed), normalised.
fn sorted_group(chars: &[char], pos: &mut usize, close: Option<char>) -> String {
    let braced = close == Some('}');
    let mut entries = vec![String::new()];
    while let Some(&c) = chars.get(*pos) {
        *pos += 1;
        if Some(c) == close {
            break;
        }
        let entry = entries.last_mut().expect("never empty");
        match c {
            '"' | '\'' => {
                entry.push(c);
                while let Some(&d) = chars.get(*pos) {
                    *pos += 1;
                    entry.push(d);
                    if d == '\\' {
                        entry.extend(chars.get(*pos));
                        *pos += 1;
                    } else if d == c {
                        break;
                    }
                }
            }
            '{' | '[' | '(' => {
                let closer = match c {
                    '{' => '}',
                    '[' => ']',
                    _ => ')',
                };
                let inner = sorted_group(chars, pos, Some(closer));
                entry.push(c);
                entry.push_str(&inner);
                entry.push(closer);
            }
            ',' if braced => entries.push(String::new()),
            _ => entry.push(c),
        }
    }
    if braced {
        let mut trimmed: Vec<&str> = entries.iter().map(|e| e.trim()).collect();
        trimmed.sort_unstable();
        trimmed.join(", ")
    } else {
        entries.concat()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reordered_renderings_are_the_same() {
        let arg = |v: &str| {
            vec![ArgRecord {
                name: "m".into(),
                value: v.into(),
            }]
        };
        assert!(same_rendering(&arg("{1: 2, 3: 4}"), &arg("{3: 4, 1: 2}")));
        assert!(same_rendering(
            &arg("[{\"a,b\", \"c\"}, {}]"),
            &arg("[{\"c\", \"a,b\"}, {}]")
        ));
        assert!(!same_rendering(&arg("[1, 2]"), &arg("[1, 3]")));
        // Order matters outside hash-ordered groups: a drift must warn.
        assert!(!same_rendering(&arg("[1, 2]"), &arg("[2, 1]")));
        assert!(!same_rendering(&arg("\"ab\""), &arg("\"ba\"")));
        assert!(!same_rendering(&arg("{\"ab\"}"), &arg("{\"ba\"}")));
    }
}
