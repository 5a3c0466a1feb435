//! Okasaki's red-black tree map with five injected bugs, checked after a
//! sequence of inserts for the red-black invariants and against `BTreeMap`.

use std::collections::BTreeMap;

use crate::bug;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Color {
    Red,
    Black,
}

use Color::{Black, Red};

enum Tree {
    Empty,
    Node(Color, Box<Tree>, u8, u8, Box<Tree>),
}

use Tree::{Empty, Node};

fn node(c: Color, l: Tree, k: u8, v: u8, r: Tree) -> Tree {
    Node(c, Box::new(l), k, v, Box::new(r))
}

fn is_red(t: &Tree) -> bool {
    matches!(t, Node(Red, ..))
}

fn balance(c: Color, l: Tree, k: u8, v: u8, r: Tree) -> Tree {
    if c == Black {
        let l = match l {
            Node(Red, ll, y, vy, c1) if is_red(&ll) && !bug::on("rbt_balance_misses_left_left") => {
                let Node(_, a, x, vx, b) = *ll else {
                    unreachable!()
                };
                return node(
                    Red,
                    node(Black, *a, x, vx, *b),
                    y,
                    vy,
                    node(Black, *c1, k, v, r),
                );
            }
            Node(Red, a, x, vx, lr) if is_red(&lr) => {
                let Node(_, b, y, vy, c1) = *lr else {
                    unreachable!()
                };
                return node(
                    Red,
                    node(Black, *a, x, vx, *b),
                    y,
                    vy,
                    node(Black, *c1, k, v, r),
                );
            }
            other => other,
        };
        let r = match r {
            Node(Red, rl, z, vz, d) if is_red(&rl) => {
                let Node(_, b, y, vy, c1) = *rl else {
                    unreachable!()
                };
                return node(
                    Red,
                    node(Black, l, k, v, *b),
                    y,
                    vy,
                    node(Black, *c1, z, vz, *d),
                );
            }
            Node(Red, b, y, vy, rr) if is_red(&rr) => {
                let Node(_, c1, z, vz, d) = *rr else {
                    unreachable!()
                };
                let (b, c1) = if bug::on("rbt_balance_swaps_subtrees") {
                    (c1, b)
                } else {
                    (b, c1)
                };
                return node(
                    Red,
                    node(Black, l, k, v, *b),
                    y,
                    vy,
                    node(Black, *c1, z, vz, *d),
                );
            }
            other => other,
        };
        return node(c, l, k, v, r);
    }
    node(c, l, k, v, r)
}

fn ins(t: Tree, key: u8, value: u8) -> Tree {
    match t {
        Empty => {
            let color = if bug::on("rbt_new_node_black") {
                Black
            } else {
                Red
            };
            node(color, Empty, key, value, Empty)
        }
        Node(c, a, y, vy, b) => {
            if key < y {
                balance(c, ins(*a, key, value), y, vy, *b)
            } else if key > y {
                balance(c, *a, y, vy, ins(*b, key, value))
            } else {
                let kept = if bug::on("rbt_insert_keeps_old_value") {
                    vy
                } else {
                    value
                };
                Node(c, a, key, kept, b)
            }
        }
    }
}

fn insert(t: Tree, key: u8, value: u8) -> Tree {
    match ins(t, key, value) {
        Node(_, a, y, vy, b) if !bug::on("rbt_root_left_red") => Node(Black, a, y, vy, b),
        other => other,
    }
}

/// Checks the invariants below `t`; returns its black height.
fn black_height(t: &Tree) -> Result<usize, String> {
    match t {
        Empty => Ok(1),
        Node(c, l, k, _, r) => {
            if *c == Red && (is_red(l) || is_red(r)) {
                return Err(format!("red node {k} has a red child"));
            }
            let (hl, hr) = (black_height(l)?, black_height(r)?);
            if hl != hr {
                return Err(format!("black heights {hl} and {hr} differ below {k}"));
            }
            Ok(hl + usize::from(*c == Black))
        }
    }
}

fn entries(t: &Tree, out: &mut Vec<(u8, u8)>) {
    if let Node(_, l, k, v, r) = t {
        entries(l, out);
        out.push((*k, *v));
        entries(r, out);
    }
}

pub fn check(inserts: &[(u8, u8)]) -> Result<(), String> {
    let mut tree = Empty;
    let mut model = BTreeMap::new();
    for &(key, value) in inserts {
        tree = insert(tree, key, value);
        model.insert(key, value);
    }
    if is_red(&tree) {
        return Err("the root is red".into());
    }
    black_height(&tree)?;
    let mut got = Vec::new();
    entries(&tree, &mut got);
    let want: Vec<(u8, u8)> = model.into_iter().collect();
    if got == want {
        Ok(())
    } else {
        Err(format!("tree {got:?} != model {want:?}"))
    }
}

pub fn size(inserts: &[(u8, u8)]) -> usize {
    inserts.len()
}
