use covcheck_rt::covcheck;

#[covcheck]
fn p() {}

fn main() {}
