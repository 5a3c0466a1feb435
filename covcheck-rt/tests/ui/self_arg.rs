use covcheck_rt::covcheck;

struct S;

impl S {
    #[covcheck]
    fn p(&self, x: u8) {
        let _ = x;
    }
}

fn main() {}
