use covcheck_rt::covcheck;

#[covcheck(perf = true)]
fn p(x: u8) {
    let _ = x;
}

fn main() {}
