use covcheck_rt::covcheck;

#[covcheck]
fn p(data: &'static [u8]) {
    let _ = data;
}

#[covcheck]
fn q<'a>(data: &'a str) {
    let _ = data;
}

fn main() {}
