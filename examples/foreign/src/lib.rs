//! Generators from other tools, the code of the book's chapter "Migrating
//! from cargo-fuzz, proptest and quickcheck".
//!
//! - A toy disk whose commands derive `arbitrary::Arbitrary`, as the input of
//!   a cargo-fuzz target would: the property takes them with
//!   `covcheck_rt::generators::arbitrary()`. A write of an executable into
//!   the user area trusts a field of the executable's header.
//! - The same disk loaded from an image, raw bytes, as the most common
//!   cargo-fuzz target (`fuzz_target!(|data: &[u8]| ..)`) takes them: the
//!   property takes a `&[u8]`. The loader trusts the image's sector count.
//! - A bank account driven by a proptest strategy of transactions, taken
//!   with `covcheck_rt::generators::strategy(..)`. Withdrawing exactly the
//!   whole balance (what was deposited less a fee) skips the freeze check.
//! - Grid points, whose quickcheck properties are rewritten with
//!   `#[derive(Generate)]`; they hold.
//!
//! The bugs need two conditions at once, one of them an exact value (a
//! four-byte magic number; an amount equal to the balance, which no earlier
//! amount equals), so that the random cases of plain `cargo test` do not
//! find them and `cargo covcheck` does, through the comparisons the code
//! makes.

// ANCHOR: disk_types
/// Bytes in a sector.
pub const SECTOR: usize = 32;

/// One command to the disk: the input of its fuzz target.
#[derive(Clone, Debug, arbitrary::Arbitrary)]
pub enum Command {
    Read { sector: u16 },
    Write { sector: u16, data: [u8; SECTOR] },
    Trim { sector: u16 },
}
// ANCHOR_END: disk_types

/// Sectors on the disk.
pub const SECTORS: usize = 512;
/// Sectors from here on hold user data, where executables are quarantined.
pub const USER_AREA: u16 = 200;
/// The first bytes of an ELF executable.
pub const ELF_MAGIC: &[u8] = b"\x7fELF";
/// Where an ELF header says whether the executable is 32-bit (1) or 64-bit
/// (2), and where its entry point address starts.
const ELF_CLASS: usize = 4;
const ELF_ENTRY: usize = 24;

/// Why the disk refused a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiskError {
    NoSuchSector,
    /// An executable written to the user area; its entry point is recorded.
    Quarantined,
}

/// A disk of [`SECTORS`] sectors of [`SECTOR`] bytes.
pub struct Disk {
    sectors: Vec<[u8; SECTOR]>,
    quarantined: Vec<Vec<u8>>,
}

impl Default for Disk {
    fn default() -> Self {
        Disk {
            sectors: vec![[0; SECTOR]; SECTORS],
            quarantined: Vec::new(),
        }
    }
}

impl Disk {
    /// Runs one command; a read returns the sector's bytes.
    pub fn apply(&mut self, command: &Command) -> Result<[u8; SECTOR], DiskError> {
        let (Command::Read { sector } | Command::Write { sector, .. } | Command::Trim { sector }) =
            *command;
        let Some(stored) = self.sectors.get_mut(usize::from(sector)) else {
            return Err(DiskError::NoSuchSector);
        };
        match command {
            Command::Read { .. } => Ok(*stored),
            Command::Trim { .. } => {
                *stored = [0; SECTOR];
                Ok(*stored)
            }
            Command::Write { data, .. } => {
                if sector >= USER_AREA && data.starts_with(ELF_MAGIC) {
                    // Record the entry point, 4 bytes for a 32-bit
                    // executable, 8 for a 64-bit one. The bug: the class
                    // byte is trusted, and a class above 2 reads past the
                    // sector.
                    let width = 4 * usize::from(data[ELF_CLASS]);
                    let entry = &data[ELF_ENTRY..ELF_ENTRY + width];
                    self.quarantined.push(entry.to_vec());
                    return Err(DiskError::Quarantined);
                }
                *stored = *data;
                Ok(*stored)
            }
        }
    }
}

// ANCHOR: disk_image
/// The first bytes of a disk image.
pub const IMAGE_MAGIC: &[u8] = b"DISK";

impl Disk {
    /// Loads a disk image: [`IMAGE_MAGIC`], a count of sectors (one byte),
    /// then the first `count` sectors' bytes. `None` for bytes that are not
    /// an image.
    pub fn load(image: &[u8]) -> Option<Disk> {
        let (&count, data) = image.strip_prefix(IMAGE_MAGIC)?.split_first()?;
        let mut disk = Disk::default();
        for (n, sector) in disk.sectors.iter_mut().take(usize::from(count)).enumerate() {
            // The bug: the count is trusted, and an image shorter than it
            // says is read past its end.
            sector.copy_from_slice(&data[n * SECTOR..(n + 1) * SECTOR]);
        }
        Some(disk)
    }
}
// ANCHOR_END: disk_image

/// A transaction on an account; amounts are in cents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tx {
    Deposit(u32),
    Withdraw(u32),
    Freeze,
    Unfreeze,
}

/// Why a transaction was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    Frozen,
    Insufficient,
}

/// What a deposit costs, in cents: the account is credited the rest.
pub const DEPOSIT_FEE: u64 = 39;

/// A bank account: a frozen account takes deposits and pays out nothing.
#[derive(Debug, Default)]
pub struct Account {
    balance: u64,
    frozen: bool,
}

impl Account {
    pub fn balance(&self) -> u64 {
        self.balance
    }

    pub fn is_frozen(&self) -> bool {
        self.frozen
    }

    pub fn apply(&mut self, tx: Tx) -> Result<(), Refused> {
        match tx {
            Tx::Deposit(amount) => {
                self.balance += u64::from(amount).saturating_sub(DEPOSIT_FEE);
            }
            Tx::Freeze => self.frozen = true,
            Tx::Unfreeze => self.frozen = false,
            Tx::Withdraw(amount) => {
                let amount = u64::from(amount);
                if amount == self.balance {
                    // Closing out the account. The bug: this fast path
                    // comes before the freeze check.
                    self.balance = 0;
                    return Ok(());
                }
                if self.frozen {
                    return Err(Refused::Frozen);
                }
                if amount > self.balance {
                    return Err(Refused::Insufficient);
                }
                self.balance -= amount;
            }
        }
        Ok(())
    }
}

// ANCHOR: point
/// A point on a grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(test, derive(covcheck_rt::Generate))]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

/// How far apart two points are, walking along the grid.
pub fn manhattan(a: Point, b: Point) -> u64 {
    u64::from(a.x.abs_diff(b.x)) + u64::from(a.y.abs_diff(b.y))
}
// ANCHOR_END: point

// ANCHOR: fuzz_target
#[cfg(test)]
mod disk_fuzzing {
    use super::{Command, Disk};
    use covcheck_rt::covcheck;

    #[covcheck]
    fn takes_any_command(#[generate(covcheck_rt::generators::arbitrary())] command: Command) {
        let _ = Disk::default().apply(&command);
    }
}
// ANCHOR_END: fuzz_target

// ANCHOR: fuzz_bytes
#[cfg(test)]
mod image_fuzzing {
    use super::Disk;
    use covcheck_rt::covcheck;

    #[covcheck]
    fn loads_any_image(image: &[u8]) {
        let _ = Disk::load(image);
    }
}
// ANCHOR_END: fuzz_bytes

// ANCHOR: strategy
#[cfg(test)]
mod account_properties {
    use super::{Account, Tx};
    use covcheck_rt::{covcheck, generators};
    use proptest::collection::vec;
    use proptest::prelude::*;

    fn tx() -> impl Strategy<Value = Tx> {
        prop_oneof![
            any::<u32>().prop_map(Tx::Deposit),
            any::<u32>().prop_map(Tx::Withdraw),
            Just(Tx::Freeze),
            Just(Tx::Unfreeze),
        ]
    }

    #[covcheck]
    fn a_frozen_account_pays_out_nothing(
        #[generate(generators::strategy(vec(tx(), 1..20)))] txs: Vec<Tx>,
    ) {
        let mut account = Account::default();
        for tx in txs {
            let (before, frozen) = (account.balance(), account.is_frozen());
            let _ = account.apply(tx);
            if frozen {
                assert!(
                    account.balance() >= before,
                    "{tx:?} took money out of a frozen account"
                );
            }
        }
    }
}
// ANCHOR_END: strategy

// ANCHOR: quickcheck
#[cfg(test)]
mod point_properties {
    use super::{Point, manhattan};
    use covcheck_rt::{assume, covcheck};

    #[covcheck]
    fn distance_is_symmetric(a: Point, b: Point) {
        assert_eq!(manhattan(a, b), manhattan(b, a));
    }

    #[covcheck]
    fn a_step_towards_the_target_is_one_closer(from: Point, to: Point) {
        assume(from != to);
        let toward = |a: i32, b: i32| a + b.cmp(&a) as i32;
        let step = if from.x != to.x {
            Point {
                x: toward(from.x, to.x),
                ..from
            }
        } else {
            Point {
                y: toward(from.y, to.y),
                ..from
            }
        };
        assert_eq!(manhattan(step, to) + 1, manhattan(from, to));
    }
}
// ANCHOR_END: quickcheck
