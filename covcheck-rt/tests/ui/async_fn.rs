use covcheck_rt::covcheck;

#[covcheck]
async fn p(x: u8) {
    let _ = x;
}

fn main() {}
