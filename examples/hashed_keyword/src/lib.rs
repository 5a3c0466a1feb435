//! A command dispatcher that finds its commands by hash, whose bug hides
//! behind one 8-byte command word.
//!
//! The dispatcher hashes every 8-byte window of its input and compares the
//! hash with those of the commands it knows. Comparison tracing sees only
//! hashes, which no input byte equals, and the command word is spelled
//! nowhere in this crate's code, so neither input-to-state mutation nor the
//! dictionary of the crate's literals can write it: a campaign needs to be
//! told it. The property's `#[covcheck(dict = [...])]` does (the protocol's
//! documentation would be where it comes from), and `cargo xtask dict`
//! measures the difference with and without `--no-dict`.

/// FNV-1a, 64-bit.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The hash of the command word that must never run on untrusted input.
const SELF_DESTRUCT: u64 = 0x5e4a_c150_e676_d1ef;

/// Runs the commands found in `input`: any 8-byte window whose hash is a
/// command's hash.
pub fn dispatch(input: &[u8]) {
    for word in input.windows(8) {
        if fnv1a(word) == SELF_DESTRUCT {
            panic!("self-destruct command run from untrusted input"); // The bug.
        }
    }
}

#[cfg(test)]
mod tests {
    use covcheck_rt::covcheck;

    #[covcheck(dict = ["FROBNITZ"])]
    fn untrusted_input_never_self_destructs(input: Vec<u8>) {
        super::dispatch(&input);
    }
}
