//! A property that does nothing, to measure what covcheck itself costs per
//! case: generation and execution in plain `cargo test`, and the whole
//! engine (execution, coverage map, feedback, mutation) under
//! `cargo covcheck`. `cargo xtask campaigns` reports both.

#[cfg(test)]
mod tests {
    use covcheck_rt::covcheck;

    #[covcheck(seed = 1)]
    fn trivial(x: u64) {
        std::hint::black_box(x);
    }
}
