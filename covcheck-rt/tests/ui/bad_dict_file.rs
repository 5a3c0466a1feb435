use covcheck_rt::covcheck;

#[covcheck(dict_file = fuzz::http)]
fn not_a_string(x: String) {
    let _ = x;
}

#[covcheck(dict_file = "")]
fn empty_path(x: String) {
    let _ = x;
}

#[covcheck(dict = ["a"], dict = ["b"])]
fn twice(x: String) {
    let _ = x;
}

fn main() {}
