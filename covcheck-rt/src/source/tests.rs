//! Replay and the limits of [`Source`].

use super::*;

#[test]
fn replaying_recorded_choices_reproduces_the_value() {
    for seed in 0..50 {
        let mut random = Source::random(seed, Limits::default());
        let generated = (
            random.draw_int(i64::MIN, i64::MAX),
            random.draw_string(20),
            random.draw_f64(),
        );
        let indices = random.choices().iter().map(|c| c.index).collect();
        let mut replay = Source::replay(indices, Limits::default());
        let replayed = (
            replay.draw_int(i64::MIN, i64::MAX),
            replay.draw_string(20),
            replay.draw_f64(),
        );
        assert_eq!(format!("{generated:?}"), format!("{replayed:?}"));
    }
}

#[test]
fn empty_replay_gives_simplest_values() {
    let mut src = Source::replay(Vec::new(), Limits::default());
    assert_eq!(src.draw_int(-5i32, 5), 0);
    assert_eq!(src.draw_int(3u8, 9), 3);
    assert_eq!(src.draw_int(u128::MIN, u128::MAX), 0);
    assert!(!src.draw_bool());
    assert_eq!(src.draw_string(10), "");
    assert_eq!(src.draw_f64(), 0.0);
    assert_eq!(src.draw_char(), 'a');
}

#[test]
fn wide_integers_round_trip_through_two_choices() {
    let mut src = Source::replay(vec![u64::MAX, u64::MAX], Limits::default());
    assert_eq!(src.draw_int(i128::MIN, i128::MAX), i128::MIN);
    assert_eq!(src.choices().len(), 2);
}

#[test]
fn choice_cap_ends_generation() {
    let limits = Limits {
        max_choices: 5,
        ..Limits::default()
    };
    let mut src = Source::random(1, limits);
    let s = src.draw_string(1000);
    assert!(s.chars().count() <= 3);
    assert!(src.choices().len() <= 5);
}

/// The whole-range draws of the unsigned types replay through a shortcut;
/// it must give the values and record the choices the general path does,
/// out-of-range indices, the choice cap and the implied zeros included.
#[test]
fn whole_range_unsigned_replays_as_the_general_path_does() {
    let indices = vec![0, 1, 255, 256, 70_000, u64::MAX, 1 << 40, 3];
    let limits = Limits {
        max_choices: 7,
        ..Limits::default()
    };
    macro_rules! same {
        ($draw:ident: $t:ty) => {{
            let mut short = Source::replay(indices.clone(), limits);
            let mut general = Source::replay(indices.clone(), limits);
            for _ in 0..indices.len() + 2 {
                assert_eq!(short.$draw(), general.draw_int(<$t>::MIN, <$t>::MAX));
            }
            assert_eq!(short.choices(), general.choices(), stringify!($t));
        }};
    }
    same!(draw_u8: u8);
    same!(draw_u16: u16);
    same!(draw_u32: u32);
    same!(draw_u64: u64);
    same!(draw_usize: usize);
}

/// The whole-range draws have the value heuristics inlined: from the same
/// seed they must draw what the general path draws.
#[test]
fn whole_range_draws_are_random_as_the_general_path_is() {
    macro_rules! same {
        ($($draw:ident: $t:ty),*) => {$(
            for seed in 0..20 {
                let mut inlined = Source::random(seed, Limits::default());
                let mut general = Source::random(seed, Limits::default());
                for _ in 0..200 {
                    assert_eq!(inlined.$draw(), general.draw_int(<$t>::MIN, <$t>::MAX));
                }
                assert_eq!(inlined.choices(), general.choices(), stringify!($t));
            }
        )*};
    }
    same!(
        draw_u8: u8, draw_u16: u16, draw_u32: u32, draw_u64: u64, draw_u128: u128,
        draw_usize: usize, draw_i8: i8, draw_i16: i16, draw_i32: i32, draw_i64: i64,
        draw_i128: i128, draw_isize: isize
    );
}

/// A run of byte draws records what as many single draws would, replayed
/// (out-of-range indices, the choice cap and implied zeros included) and
/// random.
#[test]
fn a_run_of_bytes_is_drawn_as_single_bytes_are() {
    let indices = vec![7, 255, 256, u64::MAX, 9, 1 << 33];
    for max_choices in [2, 4, 7, 100] {
        let limits = Limits {
            max_choices,
            ..Limits::default()
        };
        let sources = [
            (
                Source::replay(indices.clone(), limits),
                Source::replay(indices.clone(), limits),
            ),
            (Source::random(3, limits), Source::random(3, limits)),
        ];
        for (mut run, mut single) in sources {
            // A draw before the run, so that it does not start at zero.
            assert_eq!(run.draw_u8(), single.draw_u8());
            let mut bytes = [1; 9];
            run.draw_u8s(&mut bytes);
            let singles: [u8; 9] = std::array::from_fn(|_| single.draw_u8());
            assert_eq!(bytes, singles, "max_choices {max_choices}");
            assert_eq!(run.choices(), single.choices(), "max_choices {max_choices}");
        }
    }
}
