//! The shared memory that LLMP's pages live in, for the broker and the
//! workers alike: System V segments that the kernel frees when the last
//! process using one detaches it or dies, however it ends.
//!
//! Why: LibAFL's `StdShMemProvider` (on Linux, `shmget` segments) removes a
//! segment (`IPC_RMID`) only when the process that created it drops it. A
//! worker that aborts, is killed (by the supervisor on Ctrl-C, by its
//! watchdog, by the kernel) or calls `exit` never does, and each of its
//! pages stayed in `ipcs -m` until the machine rebooted.
//!
//! How: [`KernelFreed`] marks each segment for removal as soon as its
//! creator has attached it. The kernel then frees it when no process has it
//! attached, and process exit detaches. Linux (unlike other Unixes) still
//! lets another process attach a marked segment by its id while someone has
//! it attached, which is how LLMP's broker and clients map each other's
//! pages: each page is announced by its creator, which keeps it attached
//! until the reader has mapped it (LLMP's sender unmaps a page only once
//! its receiver joined it; the broker keeps its own pages to the end).
//! covcheck runs on Linux only (its supervisor relies on `PR_SET_PDEATHSIG`
//! too); elsewhere, marking a segment would destroy it at once.
//!
//! The one page that can vanish before its reader attaches it is one whose
//! creator died first: a worker that crashed right after it started a page
//! and announced it. Left as it was, the reader's attach would fail and the
//! broker end with an error, stopping the sharing for every other worker of
//! the property. [`KernelFreed`] hands the reader a page that says its
//! sender exited instead, which is the truth, and LLMP drops that sender as
//! it drops one that left cleanly.
//!
//! Not LibAFL's other providers: a memfd's id is a file descriptor, which
//! means nothing to an unrelated process (LibAFL passes those through a
//! Unix-socket service that would have to outlive every worker), and a
//! named `shm_open` object stays behind a crash as a System V segment did.
//!
//! Pages are also sized for what they carry: the engine enables LibAFL's
//! `llmp_small_maps` (LibAFL's default; see `Cargo.toml`), so LLMP's pages
//! start at 1 MiB and grow only for a message that needs more, instead of
//! 256 MiB each.

use libafl_bolts::llmp::{LlmpSender, LlmpSharedMap};
use libafl_bolts::shmem::unix_shmem::{UnixShMem, UnixShMemProvider};
use libafl_bolts::shmem::{ShMem, ShMemId, ShMemProvider};
use libafl_bolts::{ClientId, Error};

/// LibAFL's System V segments, each marked for removal once created (see
/// the module).
#[derive(Clone, Debug, Default)]
pub struct KernelFreed {
    segments: UnixShMemProvider,
}

impl ShMemProvider for KernelFreed {
    type ShMem = UnixShMem;

    fn new() -> Result<Self, Error> {
        Ok(KernelFreed {
            segments: UnixShMemProvider::new()?,
        })
    }

    fn new_shmem(&mut self, map_size: usize) -> Result<UnixShMem, Error> {
        // Created and attached by LibAFL; marked here, as early as can be:
        // marked before the first attach, it would be freed at once. A
        // process killed between the two calls still leaves its segment.
        let segment = self.segments.new_shmem(map_size)?;
        let id: i32 = segment.id().into();
        // SAFETY: IPC_RMID takes no buffer; `id` is the segment just made.
        if unsafe { libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut()) } != 0 {
            return Err(Error::last_os_error(format!(
                "cannot mark shared memory segment {id} for removal"
            )));
        }
        Ok(segment)
    }

    fn shmem_from_id_and_size(&mut self, id: ShMemId, size: usize) -> Result<UnixShMem, Error> {
        match self.segments.shmem_from_id_and_size(id, size) {
            Err(error) if vanished(&error) => self.exited_page(size),
            attached => attached,
        }
    }
}

impl KernelFreed {
    /// A new LLMP page of `size` bytes whose only message is LLMP's "this
    /// sender is exiting": what a reader gets for a page whose creator died
    /// before the reader could attach it.
    fn exited_page(&mut self, size: usize) -> Result<UnixShMem, Error> {
        let created = self.new_shmem(size)?;
        // LLMP's types own the mappings they are given, so it writes
        // through mappings of its own and this one is handed out.
        let page = self.segments.clone_ref(&created)?;
        drop(LlmpSharedMap::new(ClientId(0), created));
        let writer = self.segments.clone_ref(&page)?;
        LlmpSender::on_existing_shmem(self.clone(), writer, None)?.send_exiting()?;
        Ok(page)
    }
}

/// Whether attaching failed because the segment no longer exists: it was
/// marked for removal and its last user detached.
fn vanished(error: &Error) -> bool {
    matches!(
        error,
        Error::OsError(os, ..) if matches!(os.raw_os_error(), Some(libc::EINVAL | libc::EIDRM))
    )
}

#[cfg(test)]
mod tests {
    use libafl_bolts::llmp::{LlmpReceiver, Tag};

    use super::*;

    /// `SHM_DEST` in `shm_perm.mode` (Linux; not in the libc crate): the
    /// segment is marked for removal.
    const SHM_DEST: u16 = 0o1000;

    fn marked_for_removal(segment: &UnixShMem) -> bool {
        // SAFETY: IPC_STAT fills the zeroed `shmid_ds` it is given.
        unsafe {
            let mut stat: libc::shmid_ds = std::mem::zeroed();
            assert_eq!(
                libc::shmctl(segment.id().into(), libc::IPC_STAT, &mut stat),
                0
            );
            stat.shm_perm.mode & SHM_DEST != 0
        }
    }

    #[test]
    fn a_new_segment_is_marked_for_removal_and_still_attaches_by_id() {
        let mut provider = KernelFreed::new().unwrap();
        let mut created = provider.new_shmem(4096).unwrap();
        assert!(marked_for_removal(&created));
        let attached = provider
            .shmem_from_id_and_size(created.id(), created.len())
            .unwrap();
        created[7] = 42;
        assert_eq!(attached[7], 42, "one segment, mapped twice");
    }

    /// The race the fallback is for: a sender starts a new page, announces
    /// it at the end of the one its receiver reads, and dies before the
    /// receiver attached the new one, which the kernel has then freed.
    #[test]
    fn a_page_whose_sender_died_before_it_was_read_reads_as_the_senders_exit() {
        let mut sender = LlmpSender::new(KernelFreed::new().unwrap(), ClientId(1), false).unwrap();
        let mut receiver = LlmpReceiver::on_existing_from_description(
            KernelFreed::new().unwrap(),
            &sender.describe().unwrap(),
        )
        .unwrap();
        sender.send_buf(Tag(1), b"first").unwrap();
        // Larger than what is left of the first page: goes on a new one.
        sender.send_buf(Tag(1), &vec![0; 1 << 20]).unwrap();
        drop(sender);
        let (_, _, first) = receiver.recv_buf().unwrap().unwrap();
        assert_eq!(first, b"first");
        assert!(
            matches!(receiver.recv_buf(), Err(Error::ShuttingDown)),
            "the sender is gone, as if it had exited"
        );
    }
}
