use covcheck_rt::covcheck;

#[covcheck]
fn p((a, b): (u8, u8)) {
    let _ = (a, b);
}

fn main() {}
