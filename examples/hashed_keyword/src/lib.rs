//! A command dispatcher that finds its words by hash, whose bug hides
//! behind a 4-byte method word and an 8-byte command word.
//!
//! A request starts with a method word; the dispatcher then hashes every
//! 8-byte window of the rest and compares the hash with those of the
//! commands it knows. Comparison tracing sees only hashes, which no input
//! byte equals, and neither word is spelled anywhere in this crate's code,
//! so neither input-to-state mutation nor the dictionary of the crate's
//! literals can write them: a campaign needs to be told them. The
//! property's `#[covcheck(dict = [...])]` does (where a real protocol's
//! documentation would), and `cargo xtask dict` measures the difference
//! with and without `--no-dict`.

/// FNV-1a, 64-bit.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The hash of the method word of a command request.
const COMMAND_REQUEST: u64 = 0x2564_9f6d_2b45_47dc;
/// The hash of the command word that must never run on untrusted input.
const SELF_DESTRUCT: u64 = 0x5e4a_c150_e676_d1ef;

/// Runs the commands of a command request: any 8-byte window after the
/// method word whose hash is a command's hash.
pub fn dispatch(request: &[u8]) {
    let Some((method, commands)) = request.split_first_chunk::<4>() else {
        return;
    };
    if fnv1a(method) != COMMAND_REQUEST {
        return;
    }
    for word in commands.windows(8) {
        if fnv1a(word) == SELF_DESTRUCT {
            panic!("self-destruct command run from untrusted input"); // The bug.
        }
    }
}

#[cfg(test)]
mod tests {
    use covcheck_rt::covcheck;

    #[covcheck(dict = ["EXEC", "FROBNITZ"])]
    fn untrusted_requests_never_self_destruct(request: Vec<u8>) {
        super::dispatch(&request);
    }
}
