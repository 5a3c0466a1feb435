use covcheck_rt::covcheck;

#[covcheck(dict = "GET ")]
fn not_an_array(x: String) {
    let _ = x;
}

#[covcheck(dict = ["GET ", 42])]
fn not_a_string(x: String) {
    let _ = x;
}

#[covcheck(dict = [])]
fn empty_array(x: String) {
    let _ = x;
}

#[covcheck(dict = ["GET ", b""])]
fn empty_token(x: Vec<u8>) {
    let _ = x;
}

fn main() {}
