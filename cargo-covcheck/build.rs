//! Builds `stubs.c` into a static archive that the binary embeds and links
//! into every instrumented target (see `src/compile/mod.rs`).

fn main() {
    println!("cargo::rerun-if-changed=src/stubs.c");
    // Campaigns run on Linux only (src/platform.rs): elsewhere nothing
    // links the stubs, and the host may have no C compiler.
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return;
    }
    cc::Build::new()
        .file("src/stubs.c")
        .opt_level(2)
        .compile("covcheck_sancov_stubs");
}
