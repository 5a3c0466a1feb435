//! A template interpreter from crates.io: `upon` 0.7.0 compiles a template
//! (`Hello {{ user.name }}!`) and renders it with a small context. An index
//! in a path that does not fit a `usize` (`{{ x.99999999999999999999 }}`)
//! panics in the parser's `unwrap` instead of failing to compile: upon's
//! "Fix integer overflow when parsing index access" (e2ed68f), released in
//! 0.7.1. Every other template compiles and renders, or fails with an error.

use std::sync::OnceLock;

use upon::{Engine, Value};

use crate::unwind::caught;

/// The context: scalars only, so that no template loops over anything and
/// every render takes time linear in the template.
fn context() -> &'static Value {
    static CONTEXT: OnceLock<Value> = OnceLock::new();
    CONTEXT.get_or_init(|| {
        Value::from([(
            "user",
            Value::from([
                ("name", Value::from("covcheck")),
                ("age", Value::from(7)),
                ("admin", Value::from(false)),
            ]),
        )])
    })
}

/// The rendered template, or the error that compiling or rendering it gave.
pub fn render(template: &str) -> Result<String, upon::Error> {
    let engine = Engine::new();
    engine.compile(template)?.render_from(context()).to_string()
}

pub fn check(template: &str) -> Result<(), String> {
    caught(|| render(template)).map(|_| ())
}

pub fn size(template: &str) -> usize {
    template.len()
}
