use covcheck_rt::covcheck;

#[covcheck]
fn p<T: Clone>(x: T) {
    let _ = x;
}

fn main() {}
