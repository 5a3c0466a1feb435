//! Each bug is real and reachable: a witness input fails with the bug on
//! and passes with every bug off (so a tool that "finds" a bug found that one).
//!
//! They live in a package of their own because `cargo covcheck` reads the
//! literals of the property's package (its tests included) into the
//! campaign's dictionary: in the suite, these inputs would hand the
//! campaign each bug's answer.

use covcheck_bench_suite::bug;
use covcheck_bench_suite::targets::*;

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

/// The published input of rust-decimal#715; ordinary numbers, malformed
/// ones and over-long ones parse or fail to parse without panicking.
#[test]
fn num_parse_fails_on_its_published_input_only() {
    let failure = num_parse::check("0.1234567890123456789012345678_9").unwrap_err();
    assert!(failure.contains("Scale exceeds maximum"), "{failure}");
    for ok in [
        "",
        "0",
        "-1.5",
        "1_000.25",
        "0.1234567890123456789012345678",
        "0.12345678901234567890123456789",
        "1.234567890123456789012345678_9",
        "79228162514264337593543950336",
        "1e5",
        "abc",
        "0.",
        "..",
    ] {
        assert!(num_parse::check(ok).is_ok(), "{ok:?}");
    }
}

/// An `INTEGER` of two bytes (256) where the record's `u8` version goes
/// (RustCrypto/formats#447); records that decode, and ones that fail to
/// (bad lengths, a version too large in a way 0.5.1 handles), do not panic.
#[test]
fn length_prefixed_fails_on_an_oversized_integer_only() {
    let oversized = [0x30, 0x06, 0x02, 0x02, 0x01, 0x00, 0x04, 0x00];
    let failure = length_prefixed::check(&oversized).unwrap_err();
    assert!(failure.contains("copy_from_slice"), "{failure}");
    let record = [0x30, 0x07, 0x02, 0x01, 0x07, 0x04, 0x02, 0xAB, 0xCD];
    assert_eq!(length_prefixed::parse(&record).ok(), Some((7, 2)));
    for ok in [
        &record[..],
        &[],
        &[0x30],
        &[0x30, 0x00],
        &[0x30, 0x09, 0x02, 0x01, 0x07, 0x04, 0x02, 0xAB, 0xCD],
        &[0x30, 0x03, 0x02, 0x01, 0x07, 0x04, 0x00],
        &[0x30, 0x05, 0x02, 0x01, 0x80, 0x04, 0x00],
        &[0x30, 0x06, 0x02, 0x02, 0x00, 0xFF, 0x04, 0x00],
        &[0x04, 0x02, 0x01, 0x00],
    ] {
        assert!(length_prefixed::check(ok).is_ok(), "{ok:02x?}");
    }
}

/// An index past `usize::MAX` in a path (upon's e2ed68f); templates that
/// render, and ones that fail to compile or render, do not panic.
#[test]
fn format_string_fails_on_an_index_beyond_usize_only() {
    let failure = format_string::check("{{ user.99999999999999999999 }}").unwrap_err();
    assert!(failure.contains("PosOverflow"), "{failure}");
    assert_eq!(
        format_string::render("Hi {{ user.name }} ({{ user.age }})!").ok(),
        Some("Hi covcheck (7)!".to_string())
    );
    for ok in [
        "",
        "plain text",
        "{{ user.name }}",
        "{{ user.0 }}",
        "{{ user.18446744073709551615 }}",
        "{{ missing }}",
        "{% if user.admin %}yes{% else %}no{% endif %}",
        "{{ user.name | upper }}",
        "{{",
        "{{ user. }}",
        "{% for x in user %}{{ x }}{% endfor %}",
    ] {
        assert!(format_string::check(ok).is_ok(), "{ok:?}");
    }
}

#[test]
fn long_run_fails_on_a_run_longer_than_255_only() {
    assert!(long_run::check(&[7; 256]).is_err());
    let mut data = vec![1, 2, 2];
    data.extend([9; 300]);
    assert!(long_run::check(&data).is_err());
    for ok in [
        vec![],
        vec![0],
        vec![5; 255],
        [vec![5; 255], vec![6; 255]].concat(),
    ] {
        assert!(long_run::check(&ok).is_ok(), "{} bytes", ok.len());
    }
    let mixed: Vec<u8> = (0..2000u32).map(|i| (i / 7 % 5) as u8).collect();
    assert!(long_run::check(&mixed).is_ok());
}

#[test]
fn ring32_fails_on_a_push_onto_32_elements_only() {
    use ring32::Op::{Pop, Push};
    let full: Vec<ring32::Op> = (0..33).map(Push).collect();
    assert!(ring32::check(&full).is_err());
    assert!(ring32::check(&full[..32]).is_ok());
    // Wrapping around many times, full (32 elements) now and then.
    let mut busy = vec![Push(0); 31];
    for x in 0..100 {
        busy.extend([Pop, Push(x), Pop, Push(x), Push(x), Pop]);
    }
    busy.extend([Pop, Pop, Pop, Push(1), Push(2), Push(3), Push(4)]);
    assert!(ring32::check(&busy).is_ok());
    busy.push(Push(5));
    assert!(ring32::check(&busy).is_err());
}

#[test]
fn keyword_fails_on_the_8_byte_keyword_only() {
    let failure = keyword::check("while x covcheck y").unwrap_err();
    assert!(failure.contains("index out of bounds"), "{failure}");
    assert!(keyword::check("covcheck").is_err());
    assert!(keyword::check("xcovchecky").is_err());
    for ok in [
        "",
        "fn main() { let x = 1; return x; }",
        "covchec",
        "cov check",
        "COVCHECK",
    ] {
        assert!(keyword::check(ok).is_ok(), "{ok:?}");
    }
    assert_eq!(
        keyword::scan("if x { return } else { while y {} } iffy"),
        [0, 0, 2, 1, 1, 1]
    );
}

#[test]
fn adler_frame_fails_past_the_checksum_and_magic_only() {
    fn frame(body: &[u8]) -> Vec<u8> {
        [body, &adler_frame::adler32(body).to_be_bytes()].concat()
    }
    assert_eq!(adler_frame::adler32(b"Wikipedia"), 0x11E6_0398);
    assert!(adler_frame::check(&frame(&[0xA5, 3, 1, 2])).is_err());
    assert!(adler_frame::check(&frame(&[0xA5, 1])).is_err());
    assert_eq!(
        adler_frame::parse(&frame(&[0xA5, 2, 1, 2, 3])),
        Ok(Some(&[1, 2][..]))
    );
    let mut bad_sum = frame(&[0xA5, 3, 1, 2]);
    bad_sum[5] ^= 1;
    for ok in [
        vec![],
        vec![0, 0, 0, 1],
        frame(&[]),
        frame(&[0xA4, 3, 1, 2]),
        frame(&[0xA5]),
        bad_sum,
    ] {
        assert!(adler_frame::check(&ok).is_ok(), "{ok:02x?}");
    }
}

/// A PNG signature, then chunks framed as PNG frames them: length, type,
/// data, and the CRC-32 of type and data.
fn png(chunks: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    for (kind, data) in chunks {
        let typed = [&kind[..], data].concat();
        out.extend((data.len() as u32).to_be_bytes());
        out.extend(&typed);
        out.extend(crc_chunks::crc32(&typed).to_be_bytes());
    }
    out
}

/// `pHYs`'s data: x and y pixels per unit, then the unit.
fn phys(x: u32, y: u32, unit: u8) -> Vec<u8> {
    [&x.to_be_bytes()[..], &y.to_be_bytes(), &[unit]].concat()
}

#[test]
fn crc_chunks_fails_on_a_zero_x_in_metres_behind_a_matching_crc_only() {
    // CRC-32/ISO-HDLC's check value, and the CRC every PNG ends with.
    assert_eq!(crc_chunks::crc32(b"123456789"), 0xCBF4_3926);
    assert_eq!(crc_chunks::crc32(b"IEND"), 0xAE42_6082);
    let ihdr: &[u8] = &[0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0];
    let zero_x = phys(0, 3780, 1);
    let witness = png(&[(b"pHYs", &zero_x)]);
    let failure = crc_chunks::check(&witness).unwrap_err();
    assert!(failure.contains("divides by zero"), "{failure}");
    assert!(
        crc_chunks::check(&png(&[(b"IHDR", ihdr), (b"pHYs", &zero_x), (b"IEND", &[])])).is_err()
    );
    assert!(crc_chunks::check(&png(&[(b"pHYs", &phys(0, 0, 1))])).is_err());
    assert_eq!(
        crc_chunks::parse(&png(&[
            (b"IHDR", ihdr),
            (b"pHYs", &phys(3, 7, 1)),
            (b"IEND", &[])
        ])),
        Ok(crc_chunks::Stream {
            types: vec![*b"IHDR", *b"pHYs", *b"IEND"],
            aspect: Some(2),
        })
    );

    // The same chunk with its CRC, its length field, its signature or its
    // last byte wrong; behind a chunk whose CRC is wrong; with another type,
    // unit, x or data length.
    let mut bad_crc = witness.clone();
    *bad_crc.last_mut().unwrap() ^= 1;
    let mut bad_data = witness.clone();
    bad_data[8 + 8 + 8] ^= 0x80; // the unit's byte, under the old CRC
    let mut short_length = witness.clone();
    short_length[8 + 3] = 8;
    let mut long_length = witness.clone();
    long_length[8 + 3] = 10;
    let mut bad_signature = witness.clone();
    bad_signature[1] = b'p';
    let mut behind_bad_crc = png(&[(b"IHDR", ihdr)]);
    *behind_bad_crc.last_mut().unwrap() ^= 1;
    behind_bad_crc.extend(&witness[8..]);
    for ok in [
        vec![],
        witness[..8].to_vec(),
        witness[..witness.len() - 1].to_vec(),
        bad_crc,
        bad_data,
        short_length,
        long_length,
        bad_signature,
        behind_bad_crc,
        witness[8..].to_vec(),
        png(&[(b"pHYS", &zero_x)]),
        png(&[(b"pHYt", &zero_x)]),
        png(&[(b"pHYs", &phys(0, 3780, 0))]),
        png(&[(b"pHYs", &phys(0, 3780, 2))]),
        png(&[(b"pHYs", &phys(1, 3780, 1))]),
        png(&[(b"pHYs", &zero_x[..8])]),
        png(&[(b"pHYs", &[&zero_x[..], &[0]].concat())]),
        png(&[(b"IHDR", ihdr), (b"IEND", &[])]),
    ] {
        assert!(crc_chunks::check(&ok).is_ok(), "{ok:02x?}");
    }
}

#[test]
fn mod_gates_fails_when_all_four_gates_open_only() {
    // The residues themselves, then values congruent to them.
    let witness = [40503, 3571, 22222, 777777];
    let failure = mod_gates::check(&witness).unwrap_err();
    assert!(failure.contains("gates opened"), "{failure}");
    assert!(
        mod_gates::check(&[
            40503 + 65521,
            3571 + 3 * 7919,
            22222 + 9 * 65521,
            777777 + 4000 * 1000003
        ])
        .is_err()
    );
    assert!(mod_gates::check(&[40503, 3571, 22222, 777777, 0, 1]).is_err());
    // The largest u32 that passes the first gate.
    let top = u32::MAX - (u32::MAX - 40503) % 65521;
    assert!(mod_gates::check(&[top, 3571, 22222, 777777]).is_err());
    assert!(mod_gates::check(&[top.wrapping_add(1), 3571, 22222, 777777]).is_ok());
    // One element off by one or congruent to another gate's residue, a
    // gate's modulus added to the wrong element, too few elements, the
    // elements out of order.
    for i in 0..4 {
        for delta in [1, u32::MAX] {
            let mut near = witness;
            near[i] = near[i].wrapping_add(delta);
            assert!(mod_gates::check(&near).is_ok(), "{near:?}");
        }
    }
    for ok in [
        vec![],
        witness[..3].to_vec(),
        witness[1..].to_vec(),
        vec![40503, 3571 + 65521, 22222, 777777],
        vec![40503, 3571, 22222, 777777 + 65521],
        vec![3571, 40503, 22222, 777777],
        vec![40503, 3571, 777777, 22222],
        vec![0, 0, 0, 0],
    ] {
        assert!(mod_gates::check(&ok).is_ok(), "{ok:?}");
    }
}

#[test]
fn arith_gates_fails_when_all_four_gates_open_only() {
    // The smallest elements that open each gate, then the largest.
    let witness = [600_000, 777_000, 1_599_984, 38_885];
    let failure = arith_gates::check(&witness).unwrap_err();
    assert!(failure.contains("gates opened"), "{failure}");
    assert!(arith_gates::check(&[600_000, 777_999, 1_599_999, 38_891]).is_err());
    assert!(arith_gates::check(&[600_000, 777_000, 1_599_984, 38_885, 0, 1]).is_err());
    // Each element just outside its gate, on both sides; an odd factor's
    // wrap-around solution does not exist for an even one.
    let outside = [
        [599_999, 600_001],
        [776_999, 778_000],
        [1_599_983, 1_600_000],
        [38_884, 38_892],
    ];
    for (i, values) in outside.iter().enumerate() {
        for &value in values {
            let mut near = witness;
            near[i] = value;
            assert!(arith_gates::check(&near).is_ok(), "{near:?}");
        }
    }
    for ok in [
        vec![],
        witness[..3].to_vec(),
        witness[1..].to_vec(),
        vec![777_000, 600_000, 1_599_984, 38_885],
        vec![0, 0, 0, 0],
    ] {
        assert!(arith_gates::check(&ok).is_ok(), "{ok:?}");
    }
}

/// `IHDR`'s data: width, height, bit depth, colour type, then the
/// compression, filter and interlace methods.
fn ihdr(width: u32, height: u32, depth: u8, colour: u8, interlace: u8) -> Vec<u8> {
    [
        &width.to_be_bytes()[..],
        &height.to_be_bytes(),
        &[depth, colour, 0, 0, interlace],
    ]
    .concat()
}

/// A zlib stream (`78 01`) of one final stored block holding `raw`: its
/// header byte, LEN and NLEN (little-endian), the bytes, then the Adler-32.
fn zlib_stored(raw: &[u8]) -> Vec<u8> {
    let len = raw.len() as u16;
    [
        &[0x78, 0x01, 0x01][..],
        &len.to_le_bytes(),
        &(!len).to_le_bytes(),
        raw,
        &adler_frame::adler32(raw).to_be_bytes(),
    ]
    .concat()
}

/// An image of three chunks: `IHDR` with `header`, `IDAT` with `data`,
/// and `IEND`.
fn image(header: &[u8], data: &[u8]) -> Vec<u8> {
    png(&[(b"IHDR", header), (b"IDAT", data), (b"IEND", &[])])
}

/// image-png#79's first panic: a 1x1 indexed-colour image (bit depth 8)
/// without `PLTE`, whose one row (filter type 0, index 0) is in a stored
/// block. With a palette, or behind a wrong CRC, zlib length or Adler-32, it
/// decodes or fails with an error.
#[test]
fn png_palette_fails_on_an_indexed_image_without_a_palette_only() {
    let row = zlib_stored(&[0, 0]);
    let indexed = ihdr(1, 1, 8, 3, 0);
    let witness = image(&indexed, &row);
    assert_eq!(witness.len(), 70);
    let ihdr_crc = crc_chunks::crc32(&witness[12..29]).to_be_bytes();
    assert_eq!(witness[29..33], ihdr_crc);
    let failure = png_palette::check(&witness).unwrap_err();
    let unwrap = "`Option::unwrap()` on a `None`";
    assert!(failure.contains(unwrap), "{failure}");
    // The row is decoded before the IDAT's CRC is read (at 54..58), so a
    // wrong one, or none, still fails, as long as a byte follows the data.
    let mut bad_idat_crc = witness.clone();
    bad_idat_crc[57] ^= 1;
    assert!(png_palette::check(&bad_idat_crc).is_err());
    assert!(png_palette::check(&witness[..55]).is_err());
    assert!(png_palette::check(&witness[..54]).is_ok());

    // Another of #79's panics counts as the bug too: the Avg filter (3) on
    // a row of width 0, of any colour type. It also shows the size guard:
    // 65536 rows are decoded, 65537 are not.
    let avg = |height| image(&ihdr(0, height, 8, 0, 0), &zlib_stored(&[3]));
    let failure = png_palette::check(&avg(1 << 16)).unwrap_err();
    assert!(failure.contains("index out of bounds"), "{failure}");
    assert!(png_palette::check(&avg((1 << 16) + 1)).is_ok());

    let palette: &[u8] = &[0x12, 0x34, 0x56];
    let with_palette = png(&[
        (b"IHDR", &indexed),
        (b"PLTE", palette),
        (b"IDAT", &row),
        (b"IEND", &[]),
    ]);
    let mut bad_ihdr_crc = witness.clone();
    bad_ihdr_crc[31] ^= 0x40;
    let mut bad_nlen = row.clone();
    bad_nlen[6] ^= 1;
    let mut bad_adler = row.clone();
    *bad_adler.last_mut().unwrap() ^= 1;
    for ok in [
        vec![],
        witness[..33].to_vec(),
        with_palette,
        bad_ihdr_crc,
        image(&indexed, &bad_nlen),
        image(&indexed, &bad_adler),
        image(&ihdr(1, 1, 8, 2, 0), &zlib_stored(&[0; 4])),
        image(&ihdr(2, 1, 8, 3, 0), &row),
        // Interlaced images are left out of the target.
        image(&ihdr(1, 1, 8, 3, 1), &row),
        png(&[(b"IDAT", &row), (b"IHDR", &indexed), (b"IEND", &[])]),
    ] {
        assert!(png_palette::check(&ok).is_ok(), "{ok:02x?}");
    }
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

/// Three puts, the third growing the table from 4 to 8 slots, then a
/// delete next to a probe chain: with the stale mask the shift leaves the
/// chain's last key behind a hole. The keys are below ten, so these tests
/// add no key to the campaigns' literal dictionary.
#[test]
fn kv_store_loses_a_key_on_a_delete_after_a_resize_only() {
    use kv_store::Op::{Delete, Get, Put};
    let witness = [
        Put { key: 0, value: 1 },
        Put { key: 1, value: 2 },
        Put { key: 6, value: 3 },
        Delete { key: 1 },
    ];
    reachable(kv_store::BUG, || kv_store::check(&witness));
    // Before the first resize the cached mask is the table's.
    let small = [
        Put { key: 0, value: 1 },
        Put { key: 1, value: 2 },
        Delete { key: 0 },
        Get { key: 1 },
        Put { key: 6, value: 3 },
        Delete { key: 1 },
    ];
    assert!(bug::with(kv_store::BUG, || kv_store::check(&small)).is_ok());
    // A delete of a key the store does not hold removes nothing.
    assert!(bug::with(kv_store::BUG, || kv_store::check(&[Delete { key: 1 }])).is_ok());
}

/// With the bug off the store is a map: every sequence of three puts and a
/// delete over keys 0-9, and every key of 0-15 put, read, deleted and put
/// back in several orders while the table grows to 32 slots.
#[test]
fn kv_store_is_correct_with_the_bug_off() {
    use kv_store::Op::{Delete, Get, Put};
    let mut failing = 0;
    for a in 0..=9 {
        for b in 0..=9 {
            for c in 0..=9 {
                for d in [a, b, c] {
                    let ops = [
                        Put { key: a, value: 1 },
                        Put { key: b, value: 2 },
                        Put { key: c, value: 3 },
                        Delete { key: d },
                    ];
                    assert_eq!(kv_store::check(&ops), Ok(()), "{ops:?}");
                    failing +=
                        usize::from(bug::with(kv_store::BUG, || kv_store::check(&ops)).is_err());
                }
            }
        }
    }
    assert!(failing > 0, "some of them fail with the bug on");
    let keys: u16 = 1 << 4;
    let mut failing = 0;
    for step in [1, 3, 5, 7] {
        for start in 0..keys {
            let order: Vec<u16> = (0..keys).map(|i| (start + i * step) % keys).collect();
            let mut ops = Vec::new();
            for (i, &key) in order.iter().enumerate() {
                ops.push(Put {
                    key,
                    value: i as u32,
                });
                ops.push(Get { key: order[i / 2] });
            }
            for &key in order.iter().step_by(2) {
                ops.extend([Delete { key }, Get { key }]);
            }
            for &key in order.iter().step_by(2) {
                ops.push(Put { key, value: 0 });
            }
            for &key in order.iter().rev() {
                ops.extend([Delete { key }, Get { key: key ^ 1 }]);
            }
            assert_eq!(kv_store::check(&ops), Ok(()), "step {step}, start {start}");
            failing += usize::from(bug::with(kv_store::BUG, || kv_store::check(&ops)).is_err());
        }
    }
    assert!(failing > 0, "some of them fail with the bug on");
}
