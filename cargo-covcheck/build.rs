//! Builds `stubs.c` into a static archive that the binary embeds and links
//! into every instrumented target (see `src/compile/mod.rs`).

fn main() {
    println!("cargo::rerun-if-changed=src/stubs.c");
    cc::Build::new()
        .file("src/stubs.c")
        .opt_level(2)
        .compile("covcheck_sancov_stubs");
}
