//! The shrinking results users rely on (issue: "Core ... shrinking"): each
//! test finds a failure from a fixed RNG seed and asserts the exact minimal
//! value the shrinker reaches.

use crate::config::Config;
use crate::runner::Runner;
use crate::source::render_arg;
use crate::{Generate, Source};

/// Runs `property` from RNG seed `seed` and returns the minimal failing
/// input's renderings, `name = value`.
fn minimal(seed: u64, property: &dyn Fn(&mut Source) -> Result<(), String>) -> Vec<String> {
    let runner = Runner::new(property, Config::default());
    let shrunk = runner
        .find_minimal_failure(seed)
        .expect("the burst finds a failure");
    assert!(
        shrunk.stopped_early.is_none(),
        "shrinking converged: {:?}",
        shrunk.stopped_early
    );
    shrunk
        .case
        .args
        .unwrap()
        .into_iter()
        .map(|(name, value)| format!("{name} = {value}"))
        .collect()
}

#[test]
fn integer_threshold_shrinks_to_the_boundary() {
    for seed in 0..5 {
        let args = minimal(seed, &|src| {
            let x = u64::generate(src);
            render_arg(src, "x", &x);
            assert!(x < 12345);
            Ok(())
        });
        assert_eq!(args, ["x = 12345"]);
    }
}

#[test]
fn vector_length_shrinks_to_three_zeros() {
    for seed in 0..5 {
        let args = minimal(seed, &|src| {
            let v = Vec::<u32>::generate(src);
            render_arg(src, "v", &v);
            assert!(v.len() < 3);
            Ok(())
        });
        assert_eq!(args, ["v = [0, 0, 0]"]);
    }
}

#[test]
fn vector_sum_shrinks_to_a_single_element() {
    for seed in 0..5 {
        let args = minimal(seed, &|src| {
            let v = Vec::<i32>::generate(src);
            render_arg(src, "v", &v);
            assert!(v.iter().map(|&x| x as i64).sum::<i64>() < 1000);
            Ok(())
        });
        assert_eq!(args, ["v = [1000]"]);
    }
}

#[derive(Debug, Generate)]
enum Tree {
    Node(Box<Tree>, Box<Tree>),
    Leaf(u8),
}

impl Tree {
    fn depth(&self) -> usize {
        match self {
            Tree::Leaf(_) => 0,
            Tree::Node(l, r) => 1 + l.depth().max(r.depth()),
        }
    }

    fn nodes(&self) -> usize {
        match self {
            Tree::Leaf(_) => 0,
            Tree::Node(l, r) => 1 + l.nodes() + r.nodes(),
        }
    }

    fn leaves_are_zero(&self) -> bool {
        match self {
            Tree::Leaf(v) => *v == 0,
            Tree::Node(l, r) => l.leaves_are_zero() && r.leaves_are_zero(),
        }
    }
}

#[test]
fn recursive_tree_shrinks_to_a_single_path_with_zero_leaves() {
    for seed in 0..5 {
        let property = |src: &mut Source| {
            let t = Tree::generate(src);
            render_arg(src, "t", &t);
            assert!(t.depth() < 3);
            Ok(())
        };
        let runner = Runner::new(&property, Config::default());
        let shrunk = runner
            .find_minimal_failure(seed)
            .expect("finds a deep tree");
        let tree = Tree::generate(&mut Source::replay(
            shrunk.case.indices(),
            Config::default().limits,
        ));
        assert_eq!(tree.depth(), 3, "{tree:?}");
        assert_eq!(tree.nodes(), 3, "a single path: {tree:?}");
        assert!(tree.leaves_are_zero(), "{tree:?}");
    }
}

#[test]
fn shrinking_keeps_the_failure_location() {
    // Two bugs: small values fail at the first assertion, large ones at the
    // second. Shrinking a large failure must not jump to the first bug.
    let property = |src: &mut Source| {
        let x = u32::generate(src);
        render_arg(src, "x", &x);
        if x >= 1_000_000 {
            panic!("second bug");
        }
        assert!(x != 7, "first bug");
        Ok(())
    };
    let runner = Runner::new(
        &property,
        Config {
            cases: 10_000,
            ..Config::default()
        },
    );
    let shrunk = runner.find_minimal_failure(1).unwrap();
    let failure = shrunk.case.failure().unwrap();
    assert_eq!(failure.message, "second bug");
    assert_eq!(shrunk.case.args.unwrap()[0].1, "1000000");
}

/// A 32-bit hash of `body`: no shrinking pass guesses it.
fn hash(body: &[u8]) -> u32 {
    body.iter().fold(0x811c_9dc5u32, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// A failure behind a checksum: the last four bytes must be the hash of
/// the others (big-endian), and the first must be 7. Any deletion from the
/// body breaks the sum.
fn summed(src: &mut Source) -> Result<(), String> {
    let v = Vec::<u8>::generate(src);
    render_arg(src, "v", &v);
    if let Some(split) = v.len().checked_sub(4) {
        let (body, sum) = v.split_at(split);
        let sum = u32::from_be_bytes(sum.try_into().unwrap());
        assert!(!(sum == hash(body) && body.first() == Some(&7)), "summed");
    }
    Ok(())
}

fn framed(body: &[u8]) -> Vec<u8> {
    [body, &hash(body).to_be_bytes()].concat()
}

fn byte_choices(bytes: &[u8]) -> Vec<u64> {
    bytes.iter().flat_map(|&b| [1, u64::from(b)]).collect()
}

#[test]
fn a_repair_lets_a_failure_behind_a_checksum_shrink_past_it() {
    use crate::property::{Case, Status, execute};
    use crate::shrink::{Repair, ShrinkBudget, shrink_repairing};
    use crate::source::Limits;
    let limits = Limits::default();
    let start = || {
        let choices = byte_choices(&framed(&[7, 50, 60, 70]));
        execute(&summed, Source::replay(choices, limits), false)
    };
    assert!(matches!(start().status, Status::Failed(_)));
    let shrink = |repair: Option<Repair<'_>>| {
        let mut keep = |case: &Case| matches!(case.status, Status::Failed(_));
        let shrunk = shrink_repairing(
            &summed,
            limits,
            start(),
            ShrinkBudget::default(),
            &mut keep,
            repair,
        );
        shrunk.case.args.unwrap()[0].1.clone()
    };
    let minimal = format!("{:?}", framed(&[7]));
    assert_ne!(shrink(None), minimal, "no repair, no way past the sum");
    // What a campaign's repair does with the traced comparison: set the
    // stored sum to the one the code computed.
    let mut repair = |candidate: &[u64]| {
        let v = Vec::<u8>::generate(&mut Source::replay(candidate.to_vec(), limits));
        let body = &v[..v.len().checked_sub(4)?];
        Some(byte_choices(&framed(body)))
    };
    assert_eq!(shrink(Some(&mut repair)), minimal);
}
