//! End-to-end: a campaign gets past a checksum. The bug sits behind a
//! body that must start with a magic byte *and* carry the right Adler-32:
//! input-to-state makes the stored sum right, but any change of the body
//! breaks it again, so only a mutant whose sum is repaired after the
//! mutation (traced, then the stored value set to what the code computed)
//! reaches the magic byte's branch. Both the sum in the bytes themselves
//! and a sum in a typed field are repaired, and shrinking repairs the sums
//! its deletions break, so both shrink to the smallest failing frame.

use covcheck_e2e::Fixture;

const FRAMES: &str = r#"
    fn adler32(data: &[u8]) -> u32 {
        let (mut a, mut b) = (1u32, 0u32);
        for &byte in data {
            a = (a + u32::from(byte)) % 65_521;
            b = (b + a) % 65_521;
        }
        (b << 16) | a
    }

    /// The items a body promises: its second byte, after the magic.
    fn promised(body: &[u8]) -> Option<usize> {
        match body {
            [0xA5, count, ..] => Some(usize::from(*count)),
            _ => None,
        }
    }

    #[covcheck]
    fn a_framed_body_keeps_its_promise(frame: Vec<u8>) {
        let Some(split) = frame.len().checked_sub(4) else { return };
        let (body, sum) = frame.split_at(split);
        if u32::from_be_bytes(sum.try_into().unwrap()) != adler32(body) {
            return;
        }
        if let Some(count) = promised(body) {
            assert!(count <= body.len() - 2, "framed body: {count} items promised");
        }
    }

    /// CRC-32/ISO-HDLC, one bit at a time. Its final NOT is folded into
    /// the comparison below: the code compares `stored ^ crc` with
    /// `0xFFFFFFFF`, a value no input stores.
    fn crc32(data: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &byte in data {
            crc ^= u32::from(byte);
            for _ in 0..8 {
                crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
            }
        }
        !crc
    }

    #[covcheck]
    fn a_crc_framed_body_keeps_its_promise(frame: Vec<u8>) {
        let Some(split) = frame.len().checked_sub(4) else { return };
        let (body, sum) = frame.split_at(split);
        if u32::from_be_bytes(sum.try_into().unwrap()) != crc32(body) {
            return;
        }
        if let Some(count) = promised(body) {
            assert!(count <= body.len() - 2, "crc-framed body: {count} items promised");
        }
    }

    #[covcheck]
    fn a_summed_body_keeps_its_promise(packet: (Vec<u8>, u32)) {
        let (body, sum) = packet;
        if sum != adler32(&body) {
            return;
        }
        if let Some(count) = promised(&body) {
            assert!(count <= body.len() - 2, "summed body: {count} items promised");
        }
    }
"#;

#[test]
fn a_campaign_finds_and_shrinks_a_bug_behind_a_checksum_in_bytes_and_in_a_typed_field() {
    let fixture = Fixture::new("checksums", FRAMES);
    // Seeds 2-6 find the framed bug within 37k executions; seed 1 is stuck
    // for 200k on a 256-byte body whose count byte would have to be 255.
    let output = fixture.covcheck(&[
        "--runs",
        "200000",
        "--seed",
        "2",
        "--no-save",
        "--no-resume",
    ]);
    let text = covcheck_e2e::text_of(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    // The body [0xA5, 1] promises one item and has none; its Adler-32 is
    // 0x014D00A7 (a = 1 + 0xA5 + 1 = 167, b = 166 + 167 = 333).
    assert!(text.contains("framed body: 1 items promised"), "{text}");
    assert!(text.contains("frame = [165, 1, 1, 77, 0, 167]"), "{text}");
    assert!(text.contains("summed body: 1 items promised"), "{text}");
    assert!(text.contains("packet = ([165, 1], 21823655)"), "{text}");
    // The CRC is compared in XOR form: found by sweeping the windows of the
    // first frames for the one that makes the comparison hold, then by
    // repairing it in the mutants that change the body. Shrinking does not
    // repair a CRC, so only the finding is asserted.
    assert!(text.contains("crc-framed body:"), "{text}");
}
