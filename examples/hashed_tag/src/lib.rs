//! A message store that files each message under a tag, the hash of its
//! sender's name, and whose bug hides behind one tag.
//!
//! The tag is compared with a constant, so comparison tracing sees the
//! constant, but no input value equals the tag, nor is it one of the
//! simple transforms of one that input-to-state solves (`x + k`, `x * k`,
//! ...): the hash folds every byte of the name into it. Coverage learns
//! nothing either until the gate opens. A name whose hash comes closer to
//! the tag than any before is progress all the same, which
//! `cargo covcheck --value-profile` keeps and mutates further (libFuzzer's
//! value profile); `cargo xtask value-profile` measures the difference.

/// The tag of the archive folder, which untrusted senders must never reach.
const ARCHIVE: u32 = 0x5eed_f00d;

/// The tag a sender's messages are filed under: the hash Java gives its
/// name (each byte added to 31 times the hash so far).
pub fn tag(sender: &[u8]) -> u32 {
    (sender.iter()).fold(0, |hash: u32, &byte| {
        hash.wrapping_mul(31).wrapping_add(u32::from(byte))
    })
}

/// Files a message from `sender`.
pub fn file(sender: &[u8]) {
    if tag(sender) == ARCHIVE {
        panic!("a message filed into the archive"); // The bug.
    }
}

#[cfg(test)]
mod tests {
    use covcheck_rt::covcheck;

    #[covcheck]
    fn no_sender_reaches_the_archive(sender: Vec<u8>) {
        super::file(&sender);
    }
}
