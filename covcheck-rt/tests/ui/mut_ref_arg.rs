use covcheck_rt::covcheck;

#[covcheck]
fn p(data: &mut Vec<u8>) {
    data.clear();
}

fn main() {}
