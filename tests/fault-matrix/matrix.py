#!/usr/bin/env python3
"""The fault matrix of issue 25: cargo covcheck on `crate/` (every failure
kind behind an easy and a magic gate, plus properties for the events), under
the ordinary events a user meets, one row per case.

Usage, from the repository root, as root on Linux (the full-disk and
read-only rows mount a tmpfs over the crate's seed directory):

    cargo build -p cargo-covcheck
    python3 tests/fault-matrix/matrix.py [kinds] [supervisor] [worker] [disk]

Each row says the exit status, the findings (kind, value), the seeds on disk,
the worker processes left and the System V shared memory segments leaked
(new, attached by no one, their creator gone). Every run has an execution
budget and --seed 1; a signal is sent once the event it follows was seen.
The end-to-end tests in tests/tests/ (trust, reliability, shared_memory,
caches) assert the same behaviours; this script is for looking at all of
them at once. Nothing here runs in CI.
"""
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CRATE = os.path.join(HERE, 'crate')
SEEDS = os.path.join(CRATE, 'covcheck-seeds')
TARGET = os.environ.get('CARGO_TARGET_DIR', os.path.join(ROOT, 'target'))
COVCHECK = os.path.join(TARGET, 'debug', 'cargo-covcheck')
BASE = [COVCHECK, 'covcheck', '--manifest-path', os.path.join(CRATE, 'Cargo.toml'),
        '--target-dir', os.path.join(TARGET, 'e2e'), '--seed', '1',
        '--message-format', 'json']  # the end-to-end tests' build: LibAFL is built once
KINDS = ['panic', 'abort', 'stack_overflow', 'segfault', 'oom', 'hang', 'exit0']


def segments():
    with open('/proc/sysvipc/shm') as table:
        return {row.split()[1]: row.split() for row in table.read().splitlines()[1:]}


def leaked(before):
    return [shmid for shmid, row in segments().items()
            if shmid not in before and int(row[6]) == 0
            and not os.path.exists(f'/proc/{row[4]}') and not os.path.exists(f'/proc/{row[5]}')]


def processes(needle):
    found = []
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            with open(f'/proc/{pid}/cmdline', 'rb') as cmdline:
                text = cmdline.read().replace(b'\0', b' ').decode(errors='replace')
        except OSError:
            continue
        if needle in text:
            found.append(int(pid))
    return found


def workers(prop):
    """The worker processes of `prop` (not the supervisor, whose arguments
    name the property too)."""
    return processes(f'tests::{prop} --exact')


def seeds(prop):
    return sorted(glob.glob(f'{SEEDS}/fault_matrix/tests/{prop}/*.toml'))


def messages(text):
    out = []
    for line in text.splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


def summary(msgs):
    found = [m['finding'] for m in msgs if m.get('event') == 'finding']
    notes = [m['message'][:80] for m in msgs if m.get('event') in ('warning', 'error')]
    return [(f['kind'], f['args'][0][1] if f['args'] else None) for f in found], notes


def kinds():
    for kind in KINDS:
        for gate in ('easy', 'magic'):
            prop = f'{kind}_{gate}'
            shutil.rmtree(SEEDS, ignore_errors=True)
            before = segments()
            run = subprocess.run(BASE + ['--exact', f'tests::{prop}', '--runs', '300000', '-j', '2',
                                         '--timeout', '300ms', '--rss-limit-mb', '512'],
                                 capture_output=True, text=True)
            found, notes = summary(messages(run.stdout))
            replay = subprocess.run(['cargo', 'test', '-q', '--manifest-path', os.path.join(CRATE, 'Cargo.toml'),
                                     '--', f'tests::{prop}', '--exact'], capture_output=True, text=True,
                                    env=dict(os.environ, COVCHECK_HANG_SECS='3',
                                             CARGO_TARGET_DIR=os.path.join(TARGET, 'fault-matrix-plain')))
            print(f'{prop}: exit {run.returncode}, findings {found}, seeds {len(seeds(prop))}, '
                  f'cargo test on them exits {replay.returncode}, shm leaked {len(leaked(before))}, notes {notes}')


def supervisor():
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
        shutil.rmtree(SEEDS, ignore_errors=True)
        before = segments()
        run = subprocess.Popen(BASE + ['--exact', 'tests::slow_to_shrink', '--runs', '100000'],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # The seed appears when the failure is caught; shrinking it never ends.
        while not seeds('slow_to_shrink') and run.poll() is None:
            time.sleep(0.02)
        run.send_signal(sig)
        out, _ = run.communicate()
        time.sleep(0.5)
        kept = seeds('slow_to_shrink')
        unshrunk = bool(kept) and 'unshrunk = true' in open(kept[0]).read()
        found, _ = summary(messages(out))
        print(f'{signal.Signals(sig).name} to the supervisor while shrinking: exit {run.returncode}, '
              f'reported {found}, seeds {len(kept)} (unshrunk: {unshrunk}), '
              f'workers left {len(workers("slow_to_shrink"))}, shm leaked {len(leaked(before))}')


def worker():
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
        shutil.rmtree(SEEDS, ignore_errors=True)
        before = segments()
        run = subprocess.Popen(BASE + ['--exact', 'tests::passes', '--runs', '3000000', '-j', '2', '--no-resume'],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines, sent = [], False
        for line in run.stdout:
            lines.append(line)
            if not sent and '"event":"status"' in line:
                for pid in workers('passes'):
                    try:
                        os.kill(pid, sig)
                    except ProcessLookupError:
                        pass
                sent = True
        run.wait()
        time.sleep(0.5)
        msgs = messages(''.join(lines))
        found, notes = summary(msgs)
        execs = [m['execs'] for m in msgs if m.get('event') == 'finished']
        print(f'{signal.Signals(sig).name} to both workers: exit {run.returncode}, findings {found}, '
              f'executions {execs}, seeds {len(seeds("passes"))}, workers left {len(workers("passes"))}, '
              f'shm leaked {len(leaked(before))}, notes {notes}')


def disk():
    for name, options, fill in (('full disk', 'size=64k', True), ('read-only seeds', 'size=1m,ro', False)):
        shutil.rmtree(SEEDS, ignore_errors=True)
        os.makedirs(SEEDS)
        subprocess.run(['mount', '-t', 'tmpfs', '-o', options, 'tmpfs', SEEDS], check=True)
        try:
            if fill:
                subprocess.run(['dd', 'if=/dev/zero', f'of={SEEDS}/fill', 'bs=4k', 'count=64'],
                               stderr=subprocess.DEVNULL)
            run = subprocess.run(BASE + ['--exact', 'tests::panic_magic', '--runs', '100000'],
                                 capture_output=True, text=True)
            msgs = messages(run.stdout)
            reported = [(m['finding']['kind'], m.get('seed'), m.get('seed_error'))
                        for m in msgs if m.get('event') == 'finding']
            print(f'{name}: exit {run.returncode}, reported {reported}')
        finally:
            subprocess.run(['umount', SEEDS])
            shutil.rmtree(SEEDS, ignore_errors=True)


if __name__ == '__main__':
    shutil.copy(os.path.join(ROOT, 'Cargo.lock'), os.path.join(CRATE, 'Cargo.lock'))
    chosen = sys.argv[1:] or ['kinds', 'supervisor', 'worker', 'disk']
    for part in chosen:
        globals()[part]()
