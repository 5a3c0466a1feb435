//! Where `cargo covcheck` runs: Linux only. Its supervisor ties every worker
//! to its life with `prctl(PR_SET_PDEATHSIG)` and stops them with POSIX
//! signals, the workers read `/proc`, and the campaign engine shares its
//! corpus through System V shared memory marked for removal while still
//! attached, which only Linux lets other processes attach. The instrumented
//! build is tested on x86_64; nothing in it depends on the architecture.
//!
//! On any other host the command still builds (so that `cargo install`
//! works and `--help` reads the same), but every command stops at once with
//! [`unsupported`] and exit status 2 ([`crate::exit::USAGE`]). Plain
//! `cargo test` with covcheck-rt is not affected: it builds and runs on
//! macOS and Windows too (CI lints it for both).

/// Whether this build of `cargo covcheck` can run campaigns.
pub const SUPPORTED: bool = cfg!(target_os = "linux");

/// Why `cargo covcheck` does nothing on `os` (`std::env::consts::OS`), and
/// what works there instead.
pub fn unsupported(os: &str) -> String {
    format!(
        "cargo covcheck runs campaigns on Linux only, and this is {os}: its workers rely on \
         Linux's process control (prctl's parent-death signal, /proc) and its engine on \
         Linux's System V shared memory. Plain `cargo test` with covcheck-rt works here: it \
         replays your saved seeds and runs the random cases. Run campaigns on a Linux \
         machine, in a Linux container or VM, or under WSL 2."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusal_names_the_host_and_what_still_works() {
        let message = unsupported("macos");
        assert!(
            message.starts_with("cargo covcheck runs campaigns on Linux only, and this is macos:")
        );
        assert!(message.contains("Plain `cargo test` with covcheck-rt works here"));
    }

    #[test]
    fn linux_is_the_supported_host() {
        assert_eq!(SUPPORTED, std::env::consts::OS == "linux");
    }
}
