//! [`Limits`]: how large a generated value may be.

/// Bounds on how large a generated value may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest length of a collection or string whose own bound is larger.
    pub max_len: usize,
    /// Nesting depth past which collections are empty, options are `None` and
    /// derived enums take their simplest variant, so recursive types terminate.
    pub max_depth: u32,
    /// Choices past this many read as zero: a hard cap on one case's size.
    pub max_choices: usize,
    /// The longest a collection nested inside another value is *planned*
    /// in random mode. Campaigns draw fresh inputs with a `max_len` of up to
    /// 4096 for long byte strings and operation sequences; nested values
    /// drawn that long (a JSON array of arrays of strings) would multiply
    /// into inputs of tens of thousands of choices and slow a campaign
    /// down tenfold. Replays are not bounded by it, so mutations still grow
    /// nested collections up to `max_len`.
    pub nested_len: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_len: 100,
            max_depth: 8,
            max_choices: covcheck_protocol::inflight::MAX_CHOICES,
            nested_len: usize::MAX,
        }
    }
}

impl Limits {
    /// What a seed file records of these limits (its `size`): the size
    /// limit, when it is not the default.
    pub fn seed_size(&self) -> Option<usize> {
        (self.max_len != Limits::default().max_len).then_some(self.max_len)
    }

    /// The limits to replay `seed` under: these, with at least the size
    /// limit the seed was found under (a longer input cut short would pass
    /// silently).
    pub fn for_seed(self, seed: &covcheck_protocol::seeds::Seed) -> Limits {
        Limits {
            max_len: self.max_len.max(seed.file.size.unwrap_or(0)),
            ..self
        }
    }
}
