//! The worker side of `cargo covcheck`: a property's `#[test]` function,
//! started by the CLI with [`WORKER_ENV`] set, runs a campaign (or shrinks a
//! crash, or minimizes a corpus) instead of the plain `cargo test` burst, or
//! replays its seeds one by one for `cargo covcheck replay`. It also prints
//! the property's line when the CLI lists a test binary's properties
//! ([`register`]). The messages are those of [`covcheck_protocol::worker`].

use std::io::Write as _;
use std::time::{Duration, Instant};

use crate::config::Config;
use crate::info::PropertyInfo;
use crate::property::PropertyFn;
use crate::runner::Runner;
use crate::watchdog::Watchdog;
use covcheck_protocol::seeds::SeedKind;
use covcheck_protocol::worker::{
    Event, LIST_ENV, LIST_PREFIX, Progress, SeedResult, WORKER_ENV, WorkerConfig, WorkerMode, emit,
};

/// Called for every property before `main` (see the macro): when
/// `cargo covcheck` asks for the list, prints this property's line.
pub fn register(info: fn() -> PropertyInfo) {
    if std::env::var_os(LIST_ENV).is_some() {
        let line = serde_json::to_string(&info().listing()).expect("listings serialize");
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{LIST_PREFIX}{line}");
        let _ = out.flush();
    }
}

/// The worker request addressed to this property, if any. A request that
/// cannot be read is reported as an error event and ends the process: the
/// supervisor is waiting for this worker and must hear why.
pub(crate) fn requested(info: &PropertyInfo) -> Option<WorkerConfig> {
    let path = std::env::var_os(WORKER_ENV)?;
    let parsed = std::fs::read_to_string(&path)
        .map_err(|e| e.to_string())
        .and_then(|text| serde_json::from_str::<WorkerConfig>(&text).map_err(|e| e.to_string()));
    match parsed {
        Ok(config) if config.test_name == info.test_name() => Some(config),
        Ok(_) => None,
        Err(problem) => {
            emit(&Event::Error {
                message: format!(
                    "cannot read the worker request {}: {problem}",
                    std::path::Path::new(&path).display()
                ),
            });
            std::process::exit(2)
        }
    }
}

/// Runs the request, then ends the process: a worker never returns to libtest,
/// whose summary would only add noise to the supervisor's view.
pub(crate) fn run(info: &PropertyInfo, property: &PropertyFn<'_>, config: WorkerConfig) {
    if let WorkerMode::Replay { skip } = &config.mode {
        let timeout = Duration::from_millis(config.timeout_ms.max(1));
        if let Err(message) = replay_seeds(info, property, skip, timeout) {
            emit(&Event::Error { message });
            std::process::exit(2)
        }
        std::process::exit(0)
    }
    #[cfg(feature = "campaign")]
    {
        crate::engine::run_worker(info, property, &config);
        std::process::exit(0)
    }
    #[cfg(not(feature = "campaign"))]
    {
        let _ = (property, config);
        emit(&Event::Error {
            message: format!(
                "the test binary of `{}` was built without covcheck-rt's `campaign` feature; \
                 run campaigns with `cargo covcheck`, which builds it with the feature on",
                info.full_path()
            ),
        });
        std::process::exit(2)
    }
}

/// Replays every saved seed (but those in `skip`) and reports each as its
/// own result. Needs no instrumentation: `cargo covcheck replay` runs it on
/// the normal test build, like `cargo test` but seed by seed. A seed that
/// runs past `timeout` ends the process, which the supervisor reports as a
/// hang of that seed.
fn replay_seeds(
    info: &PropertyInfo,
    property: &PropertyFn<'_>,
    skip: &[String],
    timeout: Duration,
) -> Result<(), String> {
    let config = Config::resolve(&info.attributes)?;
    let seeds = info.seed_store().load().map_err(|e| e.to_string())?;
    let runner = Runner::new(property, config);
    let watchdog = Watchdog::start(timeout);
    let started = Instant::now();
    for seed in &seeds {
        let file = seed.file_name();
        if skip.contains(&file) {
            continue;
        }
        let kind = match seed.file.kind {
            SeedKind::Failure => "failure",
            SeedKind::Covering => "covering",
            SeedKind::Performance => "performance",
        }
        .to_string();
        emit(&Event::SeedStarted {
            file: file.clone(),
            kind: kind.clone(),
        });
        let began = Instant::now();
        let armed = watchdog.arm();
        let case = runner.replay_seed(seed);
        drop(armed);
        let failure = case.failure();
        emit(&Event::SeedReplayed(SeedResult {
            file,
            kind,
            passed: failure.is_none(),
            message: failure.map(|f| f.message.clone()).unwrap_or_default(),
            location: failure.map(|f| f.origin.to_string()).unwrap_or_default(),
            path: failure.map_or(0, |f| f.origin.path()),
            micros: began.elapsed().as_micros() as u64,
        }));
    }
    emit(&Event::Done(Progress {
        execs: seeds.len() as u64,
        elapsed_ms: started.elapsed().as_millis() as u64,
        ..Progress::default()
    }));
    Ok(())
}
