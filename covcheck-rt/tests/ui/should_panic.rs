use covcheck_rt::covcheck;

#[covcheck]
#[should_panic]
fn p(x: u8) {
    let _ = x;
}

fn main() {}
