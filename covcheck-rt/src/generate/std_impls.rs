//! [`Generate`] for the standard library's types.
//!
//! Simplest values (index zero everywhere): `0`, `false`, `'a'`, `0.0`, `""`,
//! empty collections, `None`, `Ok(simplest)`. Collections and strings are
//! bounded by [`crate::source::Limits::max_len`].

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::hash::{BuildHasher, Hash};
use std::num::Wrapping;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use super::Generate;
use crate::source::{Source, label_of, nested};

macro_rules! int_generate {
    ($($t:ty => $draw:ident),*) => {$(
        impl Generate for $t {
            fn generate(src: &mut Source) -> Self {
                src.$draw()
            }
        }
    )*};
}

int_generate!(
    u16 => draw_u16, u32 => draw_u32, u64 => draw_u64, u128 => draw_u128,
    usize => draw_usize, i8 => draw_i8, i16 => draw_i16, i32 => draw_i32, i64 => draw_i64,
    i128 => draw_i128, isize => draw_isize
);

impl Generate for u8 {
    fn generate(src: &mut Source) -> Self {
        src.draw_u8()
    }

    fn generate_array<const N: usize>(src: &mut Source) -> [Self; N] {
        let mut bytes = [0; N];
        src.draw_u8s(&mut bytes);
        bytes
    }
}

impl Generate for bool {
    fn generate(src: &mut Source) -> Self {
        src.draw_bool()
    }
}

impl Generate for char {
    fn generate(src: &mut Source) -> Self {
        src.draw_char()
    }
}

impl Generate for f64 {
    fn generate(src: &mut Source) -> Self {
        src.draw_f64()
    }
}

impl Generate for f32 {
    fn generate(src: &mut Source) -> Self {
        src.draw_f32()
    }
}

impl Generate for String {
    fn generate(src: &mut Source) -> Self {
        src.draw_string(usize::MAX)
    }
}

impl Generate for () {
    fn generate(_: &mut Source) -> Self {}
}

impl Generate for Duration {
    fn generate(src: &mut Source) -> Self {
        let secs = src.draw_int(0, u64::MAX);
        Duration::new(secs, src.draw_int(0, 999_999_999))
    }
}

impl<T: Generate> Generate for Wrapping<T> {
    fn generate(src: &mut Source) -> Self {
        Wrapping(T::generate(src))
    }
}

/// Generates every element of a collection with `T::generate`.
fn elements<T: Generate>(src: &mut Source, mut push: impl FnMut(T)) {
    src.collection(0, usize::MAX, None, label_of::<T>(), |src, _| {
        push(T::generate(src))
    });
}

impl<T: Generate> Generate for Vec<T> {
    fn generate(src: &mut Source) -> Self {
        let mut out = Vec::new();
        elements(src, |x| out.push(x));
        out
    }
}

impl<T: Generate> Generate for VecDeque<T> {
    fn generate(src: &mut Source) -> Self {
        Vec::generate(src).into()
    }
}

impl<T: Generate> Generate for LinkedList<T> {
    fn generate(src: &mut Source) -> Self {
        Vec::generate(src).into_iter().collect()
    }
}

impl<T: Generate + Ord> Generate for BinaryHeap<T> {
    fn generate(src: &mut Source) -> Self {
        Vec::generate(src).into()
    }
}

impl<T: Generate + Ord> Generate for BTreeSet<T> {
    fn generate(src: &mut Source) -> Self {
        let mut out = BTreeSet::new();
        elements(src, |x| {
            out.insert(x);
        });
        out
    }
}

impl<T: Generate + Hash + Eq, S: BuildHasher + Default> Generate for HashSet<T, S> {
    fn generate(src: &mut Source) -> Self {
        let mut out = HashSet::default();
        elements(src, |x| {
            out.insert(x);
        });
        out
    }
}

impl<K: Generate + Ord, V: Generate> Generate for BTreeMap<K, V> {
    fn generate(src: &mut Source) -> Self {
        let mut out = BTreeMap::new();
        elements(src, |(k, v)| {
            out.insert(k, v);
        });
        out
    }
}

impl<K: Generate + Hash + Eq, V: Generate, S: BuildHasher + Default> Generate for HashMap<K, V, S> {
    fn generate(src: &mut Source) -> Self {
        let mut out = HashMap::default();
        elements(src, |(k, v)| {
            out.insert(k, v);
        });
        out
    }
}

impl<T: Generate> Generate for Option<T> {
    fn generate(src: &mut Source) -> Self {
        nested(src, label_of::<Self>(), |src| {
            match src.draw_variant(2, 1) {
                0 => None,
                _ => Some(T::generate(src)),
            }
        })
    }
}

impl<T: Generate, E: Generate> Generate for Result<T, E> {
    fn generate(src: &mut Source) -> Self {
        nested(src, label_of::<Self>(), |src| {
            match src.draw_variant(2, 2) {
                0 => Ok(T::generate(src)),
                _ => Err(E::generate(src)),
            }
        })
    }
}

macro_rules! wrapper_generate {
    ($($w:ident),*) => {$(
        impl<T: Generate> Generate for $w<T> {
            fn generate(src: &mut Source) -> Self {
                $w::new(T::generate(src))
            }
        }
    )*};
}

wrapper_generate!(Box, Rc, Arc, Cell, RefCell);

impl<T: Generate, const N: usize> Generate for [T; N] {
    fn generate(src: &mut Source) -> Self {
        T::generate_array(src)
    }
}

macro_rules! tuple_generate {
    ($($t:ident),+) => {
        impl<$($t: Generate),+> Generate for ($($t,)+) {
            fn generate(src: &mut Source) -> Self {
                ($($t::generate(src),)+)
            }
        }
    };
}

tuple_generate!(A);
tuple_generate!(A, B);
tuple_generate!(A, B, C);
tuple_generate!(A, B, C, D);
tuple_generate!(A, B, C, D, E);
tuple_generate!(A, B, C, D, E, F);
tuple_generate!(A, B, C, D, E, F, G);
tuple_generate!(A, B, C, D, E, F, G, H);
tuple_generate!(A, B, C, D, E, F, G, H, I);
tuple_generate!(A, B, C, D, E, F, G, H, I, J);
tuple_generate!(A, B, C, D, E, F, G, H, I, J, K);
tuple_generate!(A, B, C, D, E, F, G, H, I, J, K, L);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Limits;

    fn simplest<T: Generate>() -> T {
        T::generate(&mut Source::replay(Vec::new(), Limits::default()))
    }

    #[test]
    fn zero_choices_give_the_simplest_values() {
        assert_eq!(simplest::<(u8, i128, bool, char)>(), (0, 0, false, 'a'));
        assert_eq!(simplest::<Vec<u32>>(), Vec::<u32>::new());
        assert_eq!(simplest::<Option<String>>(), None);
        assert_eq!(simplest::<Result<u8, String>>(), Ok(0));
        assert_eq!(simplest::<[u16; 3]>(), [0, 0, 0]);
        assert_eq!(simplest::<HashMap<u8, u8>>(), HashMap::new());
        assert_eq!(simplest::<Box<f32>>(), Box::new(0.0));
    }

    #[test]
    fn random_collections_respect_the_size_bound() {
        let limits = Limits {
            max_len: 5,
            ..Limits::default()
        };
        for seed in 0..200 {
            let v = Vec::<Vec<u8>>::generate(&mut Source::random(seed, limits));
            assert!(v.len() <= 5 && v.iter().all(|inner| inner.len() <= 5));
        }
    }
}
