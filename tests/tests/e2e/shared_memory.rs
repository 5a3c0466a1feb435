//! End-to-end: no System V shared memory segment outlives a campaign,
//! however it ends (issue 25). The workers of a property and its broker
//! share corpus entries through LLMP's pages in such segments, and a
//! segment stays in `ipcs -m` until someone removes it: before, every
//! worker that did not end cleanly left its pages behind (2 per `-j 2` run
//! that found an abort, 2 per SIGINT or SIGTERM, one per restart under
//! `--keep-going`), 256 MiB each.
//!
//! - A failure found with `-j 2`: one worker aborts, the other is stopped.
//! - SIGINT, SIGTERM and SIGKILL to the supervisor: it kills its workers, or
//!   they die with it. While the campaign runs, its segments are already
//!   marked for removal (the kernel frees them with their last user).
//! - `--keep-going` on a property that aborts now and then: a new worker
//!   after each crash.
//!
//! Other campaigns may run meanwhile (other tests, other checkouts, older
//! covcheck versions that do leak), so the test counts only the segments of
//! its own runs: each run is a process group of its own, and a thread reads
//! the machine's segment table every few milliseconds while it runs,
//! keeping the new segments that a process of the group created or
//! attached last (the broker attaches every worker's page). Once the last
//! process of the group is gone, none of them may remain.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use covcheck_e2e::{Fixture, events, findings};
use covcheck_protocol::messages::FailureKind;
use covcheck_protocol::messages::{Message, parse_message};

const PROPERTIES: &str = r#"
    #[covcheck]
    fn aborts(x: u32) {
        if x >= 1000 && x % 3 == 1 {
            std::process::abort();
        }
    }

    #[covcheck]
    fn aborts_now_and_then(x: u32) {
        if x % 50 == 7 {
            std::process::abort();
        }
    }

    #[covcheck]
    fn runs_until_stopped(x: u64) {
        std::hint::black_box(x);
    }
"#;

/// `SHM_DEST` in a segment's mode: marked for removal, freed by the kernel
/// once no process has it attached.
const SHM_DEST: u32 = 0o1000;

/// A segment, as `/proc/sysvipc/shm` lists it.
#[derive(Clone, Debug)]
struct Segment {
    perms: u32,
    size: u64,
    /// The process that created it, and the last one that attached or
    /// detached it.
    cpid: i32,
    lpid: i32,
}

impl Segment {
    fn marked_for_removal(&self) -> bool {
        self.perms & SHM_DEST != 0
    }
}

/// The machine's segments, by id.
fn segments() -> BTreeMap<i64, Segment> {
    let table = fs::read_to_string("/proc/sysvipc/shm").expect("Linux lists its segments");
    table
        .lines()
        .skip(1)
        .map(|line| {
            // key shmid perms size cpid lpid ...
            let columns: Vec<&str> = line.split_whitespace().collect();
            let segment = Segment {
                perms: u32::from_str_radix(columns[2], 8).unwrap(),
                size: columns[3].parse().unwrap(),
                cpid: columns[4].parse().unwrap(),
                lpid: columns[5].parse().unwrap(),
            };
            (columns[1].parse().unwrap(), segment)
        })
        .collect()
}

/// The process group of `pid`, unless it is gone or a zombie whose
/// threads have all ended (then it has let go of its memory: a zombie
/// leader whose other threads are still exiting has not, and on a busy
/// machine that takes a while).
fn group_of(pid: i32) -> Option<i32> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // pid (comm) state ppid pgrp ...
    let (_, rest) = stat.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let exited = |state: &str| state == "Z" || state == "X";
    let threads_alive = fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .filter_map(|task| fs::read_to_string(task.ok()?.path().join("stat")).ok())
        .any(|stat| {
            let state = stat.rsplit_once(')').map(|(_, rest)| rest.trim_start());
            state.is_some_and(|rest| !exited(&rest[..1]))
        });
    (!exited(fields[0]) || threads_alive).then(|| fields[2].parse().ok())?
}

/// The live processes of process group `group`.
fn members(group: i32) -> BTreeSet<i32> {
    fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| group_of(pid) == Some(group))
        .collect()
}

/// A run of `cargo covcheck` in a process group of its own, and the
/// segments it made, as they appear.
struct Run {
    child: Child,
    group: i32,
    ours: Arc<Mutex<BTreeMap<i64, Segment>>>,
    done: Arc<AtomicBool>,
    /// Until the run ended.
    watcher: Option<JoinHandle<()>>,
}

impl Run {
    fn start(command: &mut Command) -> Run {
        let before: BTreeSet<i64> = segments().into_keys().collect();
        let child = command.process_group(0).spawn().unwrap();
        let group = child.id() as i32;
        let ours = Arc::new(Mutex::new(BTreeMap::new()));
        let done = Arc::new(AtomicBool::new(false));
        let watcher = {
            let (ours, done) = (ours.clone(), done.clone());
            std::thread::spawn(move || {
                while !done.load(Ordering::SeqCst) {
                    let mut ours = ours.lock().unwrap();
                    for (id, segment) in segments() {
                        if !before.contains(&id)
                            && !ours.contains_key(&id)
                            && [segment.cpid, segment.lpid]
                                .iter()
                                .any(|&pid| group_of(pid) == Some(group))
                        {
                            ours.insert(id, segment);
                        }
                    }
                    drop(ours);
                    std::thread::sleep(Duration::from_millis(5));
                }
            })
        };
        Run {
            child,
            group,
            ours,
            done,
            watcher: Some(watcher),
        }
    }

    /// Reads what the supervisor prints until it exits: its exit status,
    /// its messages, and all its output.
    fn wait(&mut self) -> (Option<i32>, Vec<Message>, String) {
        let mut stderr = self.child.stderr.take().expect("piped");
        let errors = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        let mut stdout = String::new();
        let _ = self
            .child
            .stdout
            .take()
            .expect("piped")
            .read_to_string(&mut stdout);
        let status = self.child.wait().unwrap();
        let text = stdout.clone() + &errors.join().unwrap();
        (status.code(), events(stdout.as_bytes()), text)
    }

    /// The run's segments that exist now.
    fn live_segments(&self) -> Vec<Segment> {
        let ours = self.ours.lock().unwrap();
        segments()
            .into_iter()
            .filter(|(id, _)| ours.contains_key(id))
            .map(|(_, segment)| segment)
            .collect()
    }

    /// Waits until the run's last process is gone (workers killed along
    /// with their supervisor are not waited for by anyone), then returns
    /// how many segments it made and those of them that remain.
    fn end(mut self) -> (usize, Vec<String>) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !members(self.group).is_empty() {
            // Only bounds a hang.
            assert!(
                Instant::now() < deadline,
                "the run's processes end: {:?}",
                members(self.group)
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        self.done.store(true, Ordering::SeqCst);
        self.watcher.take().expect("ends once").join().unwrap();
        let ours = self.ours.lock().unwrap();
        let remaining = segments()
            .into_iter()
            .filter(|(id, _)| ours.contains_key(id))
            .map(|(id, segment)| format!("{id}: {segment:?}"))
            .collect();
        (ours.len(), remaining)
    }
}

/// A run that a failed assertion left behind (a campaign of ten minutes)
/// is killed, with all its processes.
impl Drop for Run {
    fn drop(&mut self) {
        if self.watcher.is_some() {
            self.done.store(true, Ordering::SeqCst);
            // SAFETY: kill(2) on the run's own process group.
            unsafe { libc::kill(-self.group, libc::SIGKILL) };
        }
    }
}

/// `cargo covcheck <args> -j 2 --message-format json` on `fixture`.
fn on_two_workers(fixture: &Fixture, args: &[&str]) -> Command {
    let mut command = fixture.covcheck_command(args);
    command
        .args(["-j", "2", "--no-resume", "--message-format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

#[test]
fn a_failure_found_on_two_workers_leaves_no_shared_memory() {
    let fixture = Fixture::new("shm_found", PROPERTIES);
    let mut run = Run::start(&mut on_two_workers(
        &fixture,
        &["tests::aborts", "--exact", "--runs", "20000", "--seed", "1"],
    ));
    let (code, events, text) = run.wait();
    assert_eq!(code, Some(1), "{text}");
    assert!(
        findings(&events)
            .iter()
            .any(|f| f.finding.kind == FailureKind::Abort),
        "{text}"
    );
    let (made, remaining) = run.end();
    assert!(made > 0, "the workers shared pages: {text}");
    assert_eq!(remaining, Vec::<String>::new(), "{text}");
}

#[test]
fn a_signal_to_the_supervisor_leaves_no_shared_memory() {
    let fixture = Fixture::new("shm_interrupted", PROPERTIES);
    for signal in ["INT", "TERM", "KILL"] {
        let mut run = Run::start(&mut on_two_workers(
            &fixture,
            &["tests::runs_until_stopped", "--exact", "--time", "10m"],
        ));
        // Wait for the first status report: a worker runs, and so it has
        // attached to the broker.
        let mut lines = BufReader::new(run.child.stdout.take().unwrap()).lines();
        let status = lines
            .by_ref()
            .map_while(Result::ok)
            .find(|l| matches!(parse_message(l), Some(Ok(Message::Status { .. }))));
        assert!(status.is_some(), "the campaign reports progress");
        // A segment is marked right after it is made (a worker that has
        // just started may be in between): what keeps a run that is
        // killed outright from leaving it.
        let deadline = Instant::now() + Duration::from_secs(10);
        let live = loop {
            let live = run.live_segments();
            if live.iter().all(Segment::marked_for_removal) || Instant::now() > deadline {
                break live;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(!live.is_empty(), "the broker and the workers share pages");
        for segment in &live {
            assert!(
                segment.marked_for_removal(),
                "freed by the kernel with its last user: {segment:?}"
            );
            // LLMP's pages start at 1 MiB and grow only for a message that
            // needs more; these carry `u64` inputs.
            assert!(segment.size <= 1 << 20, "not 256 MiB: {segment:?}");
        }

        // To the supervisor alone, as `kill` or a CI runner's timeout sends
        // it.
        let killed = Command::new("kill")
            .args([&format!("-{signal}"), &run.child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let rest: Vec<String> = lines.map_while(Result::ok).collect();
        let _ = run.child.wait().unwrap();
        assert!(
            signal == "KILL"
                || rest
                    .iter()
                    .any(|l| matches!(parse_message(l), Some(Ok(Message::Interrupted { .. })))),
            "SIG{signal} interrupted it: {rest:?}"
        );
        let (_, remaining) = run.end();
        assert_eq!(remaining, Vec::<String>::new(), "after SIG{signal}");
    }
}

#[test]
fn restarted_workers_leave_no_shared_memory() {
    let fixture = Fixture::new("shm_restarted", PROPERTIES);
    let mut run = Run::start(&mut on_two_workers(
        &fixture,
        &[
            "tests::aborts_now_and_then",
            "--exact",
            "--keep-going",
            "--runs",
            "400",
            "--seed",
            "1",
        ],
    ));
    let (_, events, text) = run.wait();
    let deaths = events
        .iter()
        .filter(|m| matches!(m, Message::WorkerDied { .. }))
        .count();
    // A fiftieth of the inputs abort: 400 executions kill a worker about
    // eight times, each followed by a new one.
    assert!(deaths >= 2, "workers died and were restarted: {text}");
    let (made, remaining) = run.end();
    assert!(made > 0, "the workers shared pages: {text}");
    assert_eq!(remaining, Vec::<String>::new(), "{text}");
}
