//! Running one test case: generate the arguments from a [`Source`], call the
//! property, and classify what happened as a [`Status`].
//!
//! Panics are caught in-process. A panic hook, installed once and chained to
//! the previous one, records the message and location of panics raised while a
//! case runs on this thread and keeps them off the terminal (a shrink can
//! raise thousands); panics elsewhere go to the previous hook unchanged.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::choice::{Choice, Span};
use crate::coverage_gate;
use crate::source::Source;
use crate::text::escape_invalid_utf8;

/// A property as the macro hands it over: generates its arguments from the
/// source, records their renderings when asked, and runs the body. `Err`
/// carries the `Debug` rendering of an `Err` the body returned.
///
/// Not generic on purpose: the campaign code must not be monomorphised into
/// (and instrumented with) the user's crate.
pub type PropertyFn<'a> = dyn Fn(&mut Source) -> Result<(), String> + 'a;

/// Where a failure came from. Shrinking only accepts candidates that fail at
/// the same origin, so it never trades one bug for another.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    Panic {
        file: String,
        line: u32,
        column: u32,
        /// The frames that led there ([`crate::call_path`]): two bugs
        /// that panic at one place are told apart by it.
        path: u64,
    },
    ReturnedErr,
    /// A panic without location information.
    Unknown,
}

impl Origin {
    /// Its call path (0 when it has none).
    pub fn path(&self) -> u64 {
        match self {
            Origin::Panic { path, .. } => *path,
            Origin::ReturnedErr | Origin::Unknown => 0,
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Panic {
                file, line, column, ..
            } => write!(f, "{file}:{line}:{column}"),
            Origin::ReturnedErr => f.write_str("the property returned Err"),
            Origin::Unknown => f.write_str("unknown location"),
        }
    }
}

/// A failing case's message and origin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub message: String,
    pub origin: Origin,
}

/// What one case did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    Passed,
    /// Generation gave up (a filter or [`assume`] rejected it); not a failure.
    Rejected(String),
    Failed(Failure),
}

/// One executed test case: its choices, spans, status and (when requested)
/// the rendering of each argument.
#[derive(Clone, Debug)]
pub struct Case {
    pub choices: Vec<Choice>,
    pub spans: Vec<Span>,
    pub status: Status,
    pub args: Option<Vec<(&'static str, String)>>,
}

impl Case {
    /// The choice indices: what a seed stores and what replays this case.
    pub fn indices(&self) -> Vec<u64> {
        self.choices.iter().map(|c| c.index).collect()
    }

    pub fn failure(&self) -> Option<&Failure> {
        match &self.status {
            Status::Failed(failure) => Some(failure),
            _ => None,
        }
    }
}

/// How many times [`execute`] and [`generate_only`] ran a property: a
/// campaign's harness compares it before and after its own runs to know
/// whether anything else ran the instrumented code in between (and left
/// counters it must clear).
static RUNS: AtomicU64 = AtomicU64::new(0);

/// See [`RUNS`].
#[cfg_attr(not(feature = "campaign"), allow(dead_code))]
pub fn runs() -> u64 {
    RUNS.load(Ordering::Relaxed)
}

/// Runs `property` on `src`, recording argument renderings when `render`.
pub fn execute(property: &PropertyFn<'_>, mut src: Source, render: bool) -> Case {
    src.set_rendering(render);
    let status = execute_in(property, &mut src);
    let args = src.take_rendered();
    let (choices, spans) = src.into_record();
    Case {
        choices,
        spans,
        status,
        args,
    }
}

/// Runs `property` on `src`, which keeps the record of the choices made:
/// a campaign reuses one source for every execution
/// ([`Source::replay_again`]) rather than allocate one each time.
pub(crate) fn execute_in(property: &PropertyFn<'_>, src: &mut Source) -> Status {
    RUNS.fetch_add(1, Ordering::Relaxed);
    install_hook();
    coverage_gate::set_open(false);
    CAPTURING.with(|c| c.set(true));
    LAST_PANIC.with(|p| p.borrow_mut().take());
    crate::case_watch::executed();
    let result =
        crate::call_path::below_here(|| panic::catch_unwind(AssertUnwindSafe(|| property(src))));
    CAPTURING.with(|c| c.set(false));
    coverage_gate::set_open(false);
    match result {
        Ok(Ok(())) => Status::Passed,
        Ok(Err(message)) => Status::Failed(Failure {
            message: escape_invalid_utf8(message),
            origin: Origin::ReturnedErr,
        }),
        Err(payload) => classify_panic(payload),
    }
}

/// Draws `property`'s arguments from `src` without running its body, and
/// returns the source with the choices it made. Nothing the body does can
/// happen here, so a campaign draws fresh inputs and learns shapes this way
/// and runs bodies only where a crash or a hang is caught with its input.
#[cfg(feature = "campaign")]
pub fn generate_only(property: &PropertyFn<'_>, mut src: Source) -> Source {
    RUNS.fetch_add(1, Ordering::Relaxed);
    install_hook();
    src.set_generate_only(true);
    CAPTURING.with(|c| c.set(true));
    let _ = panic::catch_unwind(AssertUnwindSafe(|| property(&mut src)));
    CAPTURING.with(|c| c.set(false));
    LAST_PANIC.with(|p| p.borrow_mut().take());
    src
}

fn classify_panic(payload: Box<dyn Any + Send>) -> Status {
    if let Some(rejection) = payload.downcast_ref::<Rejection>() {
        return Status::Rejected(rejection.0.clone());
    }
    let recorded = LAST_PANIC.with(|p| p.borrow_mut().take());
    let mut failure = recorded.unwrap_or_else(|| Failure {
        message: payload_text(payload.as_ref()),
        origin: Origin::Unknown,
    });
    add_thread_panic(&mut failure.message);
    Status::Failed(failure)
}

/// `handle.join().unwrap()` on a thread that panicked panics with "Any { .. }",
/// the payload it cannot print; the thread's own panic, seen by the hook,
/// is what a user needs to read.
fn add_thread_panic(message: &mut String) {
    if !message.contains("Any { .. }") {
        return;
    }
    let other = OTHER_THREAD_PANIC
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take();
    if let Some(other) = other {
        message.push_str(&format!(
            "\ncaused by a panic in another thread at {}: {}",
            other.origin, other.message
        ));
    }
}

/// The origin of a panic at `location` with call path `path`.
fn origin_of(location: &panic::Location<'_>, path: u64) -> Origin {
    Origin::Panic {
        file: location.file().to_string(),
        line: location.line(),
        column: location.column(),
        path,
    }
}

fn payload_text(payload: &(dyn Any + Send)) -> String {
    let text = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "Box<dyn Any> (a panic with a non-string payload)".to_string()
    };
    escape_invalid_utf8(text)
}

/// The panic payload that rejects a case; see [`reject`].
struct Rejection(String);

/// Rejects the current case: it counts as neither pass nor failure. Used by
/// [`crate::Generator::filter`] and [`assume`]. Unwinds without running the
/// panic hook, so nothing is printed.
pub fn reject(reason: &str) -> ! {
    panic::resume_unwind(Box::new(Rejection(reason.to_string())))
}

/// Rejects the current case unless `condition` holds, like Hypothesis'
/// `assume`: a rejected case neither passes nor fails, and is not counted.
/// Too many rejections fail the property with an explanation; prefer
/// generating valid inputs directly (a [`crate::generators::range`], a
/// [`crate::Generator::map`]).
///
/// ```
/// use covcheck_rt::{assume, covcheck};
///
/// #[covcheck]
/// fn division_rounds_down(a: u32, b: u32) {
///     assume(b != 0);
///     assert!(a / b * b <= a);
/// }
/// # fn main() {}
/// ```
pub fn assume(condition: bool) {
    if !condition {
        reject("assume(false)");
    }
}

/// Adds `context` to the message of the panic unwinding through the
/// caller, and goes on unwinding it: what a stateful property's runner does
/// with a panic of the system under test, so that the report says at which
/// command it came, while the panic keeps its own origin (the shrinker keeps
/// failing there). Outside a case (a reproduction pasted into a plain
/// `#[test]`) the panic was printed already, and `context` is printed after it.
pub(crate) fn resume_with_context(payload: Box<dyn Any + Send>, context: &str) -> ! {
    if payload.downcast_ref::<Rejection>().is_none() {
        let recorded = LAST_PANIC.with(|p| match p.borrow_mut().as_mut() {
            Some(failure) => {
                failure.message.push_str(context);
                true
            }
            None => false,
        });
        if !recorded {
            eprintln!("{}", context.trim_start());
        }
    }
    panic::resume_unwind(payload)
}

/// Makes the panics of this thread (one a property started, that the
/// property joins) recorded like those of a case, instead of printed; the
/// thread hands its failure over with [`take_thread_failure`].
pub(crate) fn capture_panics_on_this_thread() {
    install_hook();
    CAPTURING.with(|c| c.set(true));
}

/// The failure of the panic this thread raised last, when it captures them.
pub(crate) fn take_thread_failure() -> Option<Failure> {
    LAST_PANIC.with(|p| p.borrow_mut().take())
}

/// Fails the running case with `failure` (one another thread raised), as
/// if it had been raised here: its message and origin are what the report
/// and the shrinker see.
pub(crate) fn fail_with(failure: Failure) -> ! {
    let message = failure.message.clone();
    let captured = LAST_PANIC.with(|p| {
        let capturing = CAPTURING.with(Cell::get);
        if capturing {
            *p.borrow_mut() = Some(failure);
        }
        capturing
    });
    if !captured {
        panic!("{message}");
    }
    panic::resume_unwind(Box::new(message))
}

/// The last panic of a thread that was not running a case (a thread the
/// property started, for one).
static OTHER_THREAD_PANIC: std::sync::Mutex<Option<Failure>> = std::sync::Mutex::new(None);

thread_local! {
    static CAPTURING: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC: RefCell<Option<Failure>> = const { RefCell::new(None) };
}

fn install_hook() {
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        set_capturing_hook(previous);
    });
}

static INSTALL: Once = Once::new();

/// The panic hook of a campaign's worker processes: covcheck's capturing
/// hook, which keeps the panics of other threads (a thread the property
/// started) for the report, but prints nothing. A worker's output is a log
/// no one reads while it runs, and the default hook, with `RUST_BACKTRACE`
/// set, would symbolise a backtrace of the whole instrumented binary for
/// every such panic: hundreds of milliseconds, enough to look like a hang.
#[cfg(feature = "campaign")]
pub fn take_over_panic_hook() {
    let _replaced = panic::take_hook();
    set_capturing_hook(Box::new(|_| {}));
    INSTALL.call_once(|| {});
}

type Hook = Box<dyn Fn(&panic::PanicHookInfo<'_>) + Sync + Send + 'static>;

fn set_capturing_hook(previous: Hook) {
    {
        panic::set_hook(Box::new(move |info| {
            if !CAPTURING.with(Cell::get) {
                let failure = Failure {
                    message: payload_text(info.payload()),
                    origin: info.location().map_or(Origin::Unknown, |l| origin_of(l, 0)),
                };
                *OTHER_THREAD_PANIC.lock().unwrap_or_else(|e| e.into_inner()) = Some(failure);
                return previous(info);
            }
            let message = payload_text(info.payload());
            let path = crate::call_path::of_current_panic();
            let origin = info
                .location()
                .map_or(Origin::Unknown, |l| origin_of(l, path));
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(Failure { message, origin }));
        }));
    }
}
