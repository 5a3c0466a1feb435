use covcheck_rt::covcheck;

#[covcheck]
fn p(x: u8) -> bool {
    x > 3
}

fn main() {}
