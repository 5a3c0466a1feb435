//! An unbalanced binary search tree map with five injected bugs in the
//! style of the ETNA benchmark, checked model-based against `BTreeMap` over
//! an operation sequence. An operation `(kind, key, value)` is, by
//! `kind % 3`: insert, delete, or union with a three-node tree.

use std::collections::BTreeMap;

use crate::bug;

enum Tree {
    Leaf,
    Node(Box<Tree>, u8, u8, Box<Tree>),
}

use Tree::{Leaf, Node};

fn insert(tree: Tree, key: u8, value: u8, depth: u32) -> Tree {
    match tree {
        Leaf => Node(Box::new(Leaf), key, value, Box::new(Leaf)),
        Node(left, k, v, right) => {
            let mut go_left = key < k;
            if depth >= 2 && key != k && bug::on("bst_insert_wrong_side_when_deep") {
                go_left = !go_left;
            }
            if key == k {
                let kept = if bug::on("bst_insert_keeps_old_value") {
                    v
                } else {
                    value
                };
                Node(left, k, kept, right)
            } else if go_left {
                Node(Box::new(insert(*left, key, value, depth + 1)), k, v, right)
            } else {
                Node(left, k, v, Box::new(insert(*right, key, value, depth + 1)))
            }
        }
    }
}

/// Removes and returns the smallest entry.
fn take_min(tree: Tree) -> (Tree, Option<(u8, u8)>) {
    match tree {
        Leaf => (Leaf, None),
        Node(left, k, v, right) => match *left {
            Leaf => (*right, Some((k, v))),
            left => {
                let (left, min) = take_min(left);
                (Node(Box::new(left), k, v, right), min)
            }
        },
    }
}

fn delete(tree: Tree, key: u8, depth: u32) -> Tree {
    match tree {
        Leaf => Leaf,
        Node(left, k, v, right) if key < k => {
            Node(Box::new(delete(*left, key, depth + 1)), k, v, right)
        }
        Node(left, k, v, right) if key > k => {
            Node(left, k, v, Box::new(delete(*right, key, depth + 1)))
        }
        Node(left, k, v, right) => {
            if depth == 0 && bug::on("bst_delete_root_ignored") {
                return Node(left, k, v, right);
            }
            match (*left, *right) {
                (Leaf, right) => right,
                (left, Leaf) => left,
                (left, _) if bug::on("bst_delete_two_children_loses_right") => left,
                (left, right) => {
                    let (right, min) = take_min(right);
                    let (mk, mv) = min.expect("a non-empty right subtree has a minimum");
                    Node(Box::new(left), mk, mv, Box::new(right))
                }
            }
        }
    }
}

fn contains(tree: &Tree, key: u8) -> bool {
    match tree {
        Leaf => false,
        Node(left, k, _, right) => key == *k || contains(if key < *k { left } else { right }, key),
    }
}

/// Left-biased union: entries of `other` are added where `tree` has none.
fn union(tree: Tree, other: Tree) -> Tree {
    match other {
        Leaf => tree,
        Node(left, k, v, right) => {
            let tree = if contains(&tree, k) {
                tree
            } else {
                insert(tree, k, v, 0)
            };
            let tree = union(tree, *left);
            if bug::on("bst_union_loses_right_subtree") {
                tree
            } else {
                union(tree, *right)
            }
        }
    }
}

fn entries(tree: &Tree, out: &mut Vec<(u8, u8)>) {
    if let Node(left, k, v, right) = tree {
        entries(left, out);
        out.push((*k, *v));
        entries(right, out);
    }
}

pub fn check(ops: &[(u8, u8, u8)]) -> Result<(), String> {
    let mut tree = Leaf;
    let mut model = BTreeMap::new();
    for &(kind, key, value) in ops {
        match kind % 3 {
            0 => {
                tree = insert(tree, key, value, 0);
                model.insert(key, value);
            }
            1 => {
                tree = delete(tree, key, 0);
                model.remove(&key);
            }
            _ => {
                let others = [key, key.wrapping_add(37), key.wrapping_sub(37)];
                let mut other = Leaf;
                for k in others {
                    other = insert(other, k, value, 0);
                }
                for k in others {
                    model.entry(k).or_insert(value);
                }
                tree = union(tree, other);
            }
        }
    }
    let mut got = Vec::new();
    entries(&tree, &mut got);
    let want: Vec<(u8, u8)> = model.into_iter().collect();
    if got == want {
        Ok(())
    } else {
        Err(format!("tree {got:?} != model {want:?}"))
    }
}

pub fn size(ops: &[(u8, u8, u8)]) -> usize {
    ops.len()
}
