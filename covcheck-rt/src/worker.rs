//! The worker side of `cargo covcheck`: a property's `#[test]` function,
//! started by the CLI with [`WORKER_ENV`] set, runs a campaign (or shrinks a
//! crash) instead of the plain `cargo test` burst. See [`crate::protocol`].

use crate::harness::PropertyInfo;
use crate::property::PropertyFn;
use crate::protocol::{Event, WORKER_ENV, WorkerConfig, emit};

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
