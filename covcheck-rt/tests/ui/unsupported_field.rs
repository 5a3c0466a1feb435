use covcheck_rt::Generate;

#[derive(Debug)]
struct Packet {
    bytes: Vec<u8>,
}

#[derive(Debug, Generate)]
struct Session {
    packets: Vec<Packet>,
}

fn main() {
    let _ = Session::generate;
}
