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
