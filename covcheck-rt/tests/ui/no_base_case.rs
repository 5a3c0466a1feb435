use covcheck_rt::Generate;

#[derive(Debug, Generate)]
enum Endless {
    More(Box<Endless>),
}

fn main() {}
