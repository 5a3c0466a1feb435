use covcheck_rt::covcheck;

#[covcheck(casez = 10)]
fn p(x: u8) {
    let _ = x;
}

fn main() {}
