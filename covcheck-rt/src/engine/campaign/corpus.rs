//! Where a campaign's corpus comes from and goes: the corpus cache of earlier
//! campaigns and the property's covering seeds to start from, and the cache
//! that new entries are written to.

use std::path::Path;

use libafl::corpus::Corpus;
use libafl::state::HasCorpus;

use crate::engine::input::{ChoiceInput, load_corpus_dir};
use crate::info::PropertyInfo;
use covcheck_protocol::seeds::SeedKind;
use covcheck_protocol::worker::{Event, WorkerConfig, emit};

/// The inputs a campaign resumes from: the corpus cache, then the
/// property's covering seeds (failure seeds are `cargo test`'s business:
/// they are regressions). A seed file that cannot be read is reported.
pub(super) fn saved_inputs(info: &PropertyInfo, request: &WorkerConfig) -> Vec<Vec<u64>> {
    let mut initial: Vec<Vec<u64>> = load_corpus_dir(&request.corpus_dir);
    let (seeds, unreadable) = info.seed_store().load_valid();
    for error in unreadable {
        emit(&Event::Warning {
            message: format!("{error}; the campaign goes on without it"),
        });
    }
    initial.extend(
        seeds
            .into_iter()
            .filter(|s| s.file.kind == SeedKind::Covering)
            .map(|s| s.indices),
    );
    initial
}

/// Writes corpus entries added since the last call to the corpus cache.
pub(super) fn persist_new_entries<S: HasCorpus<ChoiceInput>>(
    state: &S,
    from: usize,
    dir: &Path,
) -> usize {
    let count = state.corpus().count();
    if count == from {
        return count;
    }
    let _ = std::fs::create_dir_all(dir);
    for n in from..count {
        let id = state.corpus().nth(n);
        let Ok(testcase) = state.corpus().get(id) else {
            continue;
        };
        let testcase = testcase.borrow();
        if let Some(input) = testcase.input() {
            let name = dir.join(libafl::inputs::Input::generate_name(input, None));
            if !name.exists() {
                let _ = libafl::inputs::Input::to_file(input, &name);
            }
        }
    }
    count
}
