#[cfg(test)]
mod tests {
    use covcheck_rt::covcheck;

    #[allow(unconditional_recursion)]
    fn deeper(n: u64) -> u64 {
        std::hint::black_box(n) + deeper(std::hint::black_box(n + 1)) + 1
    }

    #[covcheck]
    fn panic_easy(x: u32) {
        if x >= 1000 && x % 3 == 1 {
            panic!("the bug at {x}");
        }
    }

    #[covcheck]
    fn panic_magic(x: u32) {
        if x == 0xC0FF_EE42 {
            panic!("the bug at {x}");
        }
    }

    #[covcheck]
    fn abort_easy(x: u32) {
        if x >= 1000 && x % 3 == 1 {
            std::process::abort();
        }
    }

    #[covcheck]
    fn abort_magic(x: u32) {
        if x == 0xC0FF_EE42 {
            std::process::abort();
        }
    }

    #[covcheck]
    fn stack_overflow_easy(x: u32) {
        if x >= 1000 && x % 3 == 1 {
            std::hint::black_box(deeper(u64::from(x)));
        }
    }

    #[covcheck]
    fn stack_overflow_magic(x: u32) {
        if x == 0xC0FF_EE42 {
            std::hint::black_box(deeper(u64::from(x)));
        }
    }

    #[covcheck]
    fn segfault_easy(x: u32) {
        if x >= 1000 && x % 3 == 1 {
            unsafe { std::ptr::null_mut::<u32>().write_volatile(std::hint::black_box(x)) };
        }
    }

    #[covcheck]
    fn segfault_magic(x: u32) {
        if x == 0xC0FF_EE42 {
            unsafe { std::ptr::null_mut::<u32>().write_volatile(std::hint::black_box(x)) };
        }
    }

    #[covcheck]
    fn oom_easy(x: u32) {
        if x >= 1000 && x % 3 == 1 {
            let mut hoard = Vec::new(); loop { hoard.push(vec![1u8; 1 << 20]); std::hint::black_box(&hoard); }
        }
    }

    #[covcheck]
    fn oom_magic(x: u32) {
        if x == 0xC0FF_EE42 {
            let mut hoard = Vec::new(); loop { hoard.push(vec![1u8; 1 << 20]); std::hint::black_box(&hoard); }
        }
    }

    #[covcheck]
    fn hang_easy(x: u32) {
        if x >= 1000 && x % 3 == 1 {
            loop { std::hint::black_box(x); }
        }
    }

    #[covcheck]
    fn hang_magic(x: u32) {
        if x == 0xC0FF_EE42 {
            loop { std::hint::black_box(x); }
        }
    }

    #[covcheck]
    fn exit0_easy(x: u32) {
        if x >= 1000 && x % 3 == 1 {
            std::process::exit(0);
        }
    }

    #[covcheck]
    fn exit0_magic(x: u32) {
        if x == 0xC0FF_EE42 {
            std::process::exit(0);
        }
    }


    static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

    #[covcheck]
    fn slow_to_shrink(x: u32) {
        if x > 1000 {
            if RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) > 0 {
                loop {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
            }
            panic!("too large: {x}");
        }
    }

    #[covcheck]
    fn passes(x: u64) {
        std::hint::black_box(x);
    }
}
