//! Each bug is real and reachable: a witness input fails with the bug on
//! and passes with every bug off (so a tool that "finds" a bug found that one).

use crate::bug;
use crate::targets::*;

fn reachable(name: &'static str, check: impl Fn() -> Result<(), String>) {
    assert!(
        bug::with(name, &check).is_err(),
        "{name}: the witness should fail with the bug on"
    );
    assert!(
        bug::with("", &check).is_ok(),
        "{name}: the witness should pass with no bug on"
    );
}

#[test]
fn bst_bugs_are_reachable_and_absent_when_off() {
    reachable("bst_insert_keeps_old_value", || {
        bst::check(&[(0, 5, 1), (0, 5, 2)])
    });
    reachable("bst_delete_two_children_loses_right", || {
        bst::check(&[(0, 5, 0), (0, 3, 0), (0, 8, 0), (1, 5, 0)])
    });
    reachable("bst_insert_wrong_side_when_deep", || {
        bst::check(&[(0, 10, 0), (0, 5, 0), (0, 3, 0), (0, 1, 0)])
    });
    reachable("bst_union_loses_right_subtree", || {
        bst::check(&[(2, 100, 1)])
    });
    reachable("bst_delete_root_ignored", || {
        bst::check(&[(0, 1, 0), (1, 1, 0)])
    });
}

#[test]
fn rbt_bugs_are_reachable_and_absent_when_off() {
    let ascending: Vec<(u8, u8)> = (1..=10).map(|k| (k, 0)).collect();
    reachable("rbt_root_left_red", || rbt::check(&[(1, 0)]));
    reachable("rbt_new_node_black", || rbt::check(&[(1, 0), (2, 0)]));
    reachable("rbt_balance_misses_left_left", || {
        rbt::check(&[(3, 0), (2, 0), (1, 0)])
    });
    reachable("rbt_balance_swaps_subtrees", || rbt::check(&ascending));
    reachable("rbt_insert_keeps_old_value", || {
        rbt::check(&[(1, 0), (1, 5)])
    });
}

#[test]
fn single_bug_targets_fail_on_their_witness_only() {
    assert!(dut::check_dut(&[-1; 4]).is_err());
    assert!(dut::check_dut(&[-1, -1, -1, 0x7FFE]).is_ok());
    assert!(dut::check_dut_magic(&[0xBEEF; 4]).is_err());
    assert!(dut::check_dut_magic(&[0xBEEF, 0xBEEF, 0xBEEF]).is_ok());
    let wanted = [
        (1, 10),
        (3, 27),
        (0, 255),
        (7, 4),
        (2, 100),
        (5, 1),
        (6, 77),
    ];
    assert!(puzzle::check(&wanted).is_err());
    assert!(puzzle::check(&wanted[1..]).is_ok());
    assert!(checksum::check(&[0xC5, 3, 0x42, 0, 0, 0x42 ^ 0x5A]).is_err());
    assert!(
        checksum::check(&[0xC5, 3, 0x42, 0, 0, 0x42]).is_ok(),
        "bad checksum"
    );
    assert!(rle::check(&[(7, 300)]).is_err());
    assert!(rle::check(&[(7, 255), (8, 255)]).is_ok());
    let wrap = [
        (true, 1),
        (false, 0),
        (true, 2),
        (true, 3),
        (true, 4),
        (true, 5),
        (false, 0),
    ];
    assert!(ring::check(&wrap).is_err());
    assert!(ring::check(&wrap[2..]).is_ok());
    assert!(bsearch::check(u64::MAX, u64::MAX - 1).is_err());
    assert!(bsearch::check(1 << 40, 12345).is_ok());
    assert!(float_window::check(1.5, 10.5).is_err());
    assert!(float_window::check(1.5, 11.5).is_ok());
}

#[test]
fn shrinking_challenges_fail_on_their_known_minima() {
    let five = [vec![-32768i16], vec![-1], vec![], vec![], vec![]];
    assert!(shrinking::check_bound5(&five).is_err(), "{five:?}");
    assert!(shrinking::check_reverse(&[0, 1]).is_err());
    assert!(shrinking::check_reverse(&[3]).is_ok());
    assert!(shrinking::check_large_union_list(&[vec![0, 1, -1, 2, -2]]).is_err());
    assert!(shrinking::check_large_union_list(&[vec![0, 1], vec![1, 2]]).is_ok());
    assert!(shrinking::check_difference(10, 10).is_err());
    assert!(shrinking::check_difference(9, 9).is_ok());
    // 0 / (0 + 0)
    assert!(shrinking::check_calculator(&[(0, 0), (0, 0), (0, 0), (1, 0), (2, 0)]).is_err());
    assert!(
        shrinking::check_calculator(&[(0, 1), (0, 0), (2, 0)]).is_ok(),
        "literal zero divisor"
    );
}
