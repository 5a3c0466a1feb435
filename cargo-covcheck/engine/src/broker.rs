//! `covcheck-broker`: LibAFL's LLMP broker for the workers of one property.
//!
//! The workers of a property share corpus entries through it: each worker's
//! engine session is an LLMP client (see `session.rs`), and the broker
//! forwards every new corpus entry to the others, which run it and keep it
//! if it is new to them. A broker can also connect to another machine's
//! broker (LLMP's broker-to-broker link over TCP), so that the workers of
//! both machines share one corpus.
//!
//! `cargo covcheck` starts one broker process per property that runs on
//! more than one worker or machine, and ends it by closing its stdin.
//! A process of its own, not a thread of the supervisor: LLMP's shared
//! pages and TCP listener threads then live and die apart from the
//! supervisor, which links no LibAFL.
//!
//! Usage: `covcheck-broker <bind address> [<address of a broker to join>]`.
//! The bind address may be `fd:<n>`: a TCP socket already listening, which
//! the supervisor bound and passed as file descriptor `n`, so that workers
//! can connect before the broker has started. It prints `port <n>` on
//! stdout once it listens (the port it bound, so that port 0 picks a free
//! one), then `joined` once linked to the other broker, and runs until
//! stdin closes.

// The library's module, compiled into this program too: the broker's pages
// are freed however it ends, and it reads a client page that vanished as
// that client's exit.
mod shmem;

use std::io::{BufRead, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use libafl_bolts::llmp::{Listener, LlmpBroker};
use libafl_bolts::shmem::ShMemProvider;

/// How long the broker sleeps between rounds (LibAFL's launcher sleeps
/// 5 ms): at most the delay it adds to sharing. Without a pause it would
/// spin while workers send, taking CPU from them; each round forwards all
/// that came since the last.
const PAUSE: Duration = Duration::from_millis(1);

fn main() {
    if let Err(message) = run() {
        eprintln!("covcheck-broker: {message}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (bind, join) = match args.as_slice() {
        [bind] => (bind, None),
        [bind, join] => (bind, Some(join)),
        _ => return Err("usage: covcheck-broker <bind address> [<broker to join>]".into()),
    };
    let listener = listen(bind)?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let provider = shmem::KernelFreed::new().map_err(|e| e.to_string())?;
    let mut broker = LlmpBroker::new(provider, ()).map_err(|e| e.to_string())?;
    // Link to the other broker before listening: the listener numbers the
    // clients that attach from the count at its start, and the link is a
    // client too. Linked after, it would share its number with the first
    // worker, and each would drop the other's messages as its own.
    if let Some(join) = join {
        broker
            .inner_mut()
            .connect_b2b(join.as_str())
            .map_err(|e| format!("cannot reach the broker at {join}: {e}"))?;
    }
    broker
        .inner_mut()
        .launch_listener(Listener::Tcp(listener))
        .map_err(|e| e.to_string())?;
    say(&format!("port {port}"));
    if join.is_some() {
        say("joined");
    }
    let done = stdin_closed();
    while !done.load(Ordering::Relaxed) {
        broker.broker_once().map_err(|e| e.to_string())?;
        std::thread::sleep(PAUSE);
    }
    Ok(())
}

/// The listening socket `bind` names: an address to bind, or `fd:<n>`.
fn listen(bind: &str) -> Result<TcpListener, String> {
    if let Some(fd) = bind.strip_prefix("fd:") {
        let fd: i32 = fd
            .parse()
            .map_err(|_| format!("not a file descriptor: {bind}"))?;
        // SAFETY: the supervisor passed a listening TCP socket as `fd`, for
        // this process alone.
        return Ok(unsafe { <TcpListener as std::os::fd::FromRawFd>::from_raw_fd(fd) });
    }
    TcpListener::bind(bind).map_err(|e| format!("cannot listen on {bind}: {e}"))
}

fn say(line: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{line}");
    let _ = stdout.flush();
}

/// A flag set once stdin reaches its end: the supervisor closed it, or died.
fn stdin_closed() -> Arc<AtomicBool> {
    let done = Arc::new(AtomicBool::new(false));
    let flag = done.clone();
    std::thread::spawn(move || {
        for _ in std::io::stdin().lock().lines() {}
        flag.store(true, Ordering::Relaxed);
    });
    done
}
