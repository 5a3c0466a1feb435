//! The executor of `async` properties: `#[covcheck] async fn p(x: T)`
//! runs each case's future to completion on the thread that runs the case,
//! so that everything a synchronous property has (the panic caught with
//! its call path, the per-case watchdog, coverage, shrinking, replay) holds
//! unchanged.
//!
//! Without features it is the smallest executor that is correct: poll,
//! and park the thread until the waker unparks it. A future that awaits
//! timers or I/O of a runtime needs that runtime's reactor: with the
//! `tokio` feature each case runs on a tokio current-thread runtime of its
//! own, with every driver the user's tokio features build. One per case,
//! not one per thread: a task a case spawned and left running must not
//! reach into the next case (a failure would then depend on the cases
//! before it, and neither shrink nor replay).

#[cfg(feature = "tokio")]
use std::future::Future;

/// Runs `future` to completion on this thread, on a tokio current-thread
/// runtime made for it.
#[cfg(feature = "tokio")]
pub fn block_on<F: Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("covcheck cannot start a tokio runtime for the case: {e}"))
        .block_on(future)
}

#[cfg(not(feature = "tokio"))]
pub use parking::block_on;

/// covcheck's own executor.
#[cfg(not(feature = "tokio"))]
mod parking {
    use std::future::Future;
    use std::pin::pin;
    use std::sync::Arc;
    use std::task::{Context, Poll, Wake, Waker};
    use std::thread::{self, Thread};

    /// Wakes the thread that polls the future.
    struct Unpark(Thread);

    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }

        fn wake_by_ref(self: &Arc<Self>) {
            self.0.unpark();
        }
    }

    /// Runs `future` to completion on this thread.
    pub fn block_on<F: Future>(future: F) -> F::Output {
        let mut future = pin!(future);
        let waker = Waker::from(Arc::new(Unpark(thread::current())));
        let mut context = Context::from_waker(&waker);
        loop {
            match future.as_mut().poll(&mut context) {
                Poll::Ready(output) => return output,
                // A spurious wake-up only polls once more.
                Poll::Pending => thread::park(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;
    use std::sync::mpsc;
    use std::task::{Context, Poll, Waker};
    use std::thread;

    /// Pending until another thread sends, as a channel of a runtime would.
    struct Received(mpsc::Receiver<u32>, Option<mpsc::Sender<Waker>>);

    impl Future for Received {
        type Output = u32;

        fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
            if let Ok(value) = self.0.try_recv() {
                return Poll::Ready(value);
            }
            if let Some(wakers) = self.1.take() {
                wakers.send(cx.waker().clone()).unwrap();
            }
            Poll::Pending
        }
    }

    #[test]
    fn a_future_woken_from_another_thread_completes() {
        let (values, received) = mpsc::channel();
        let (wakers, waker) = mpsc::channel::<Waker>();
        let sender = thread::spawn(move || {
            let waker = waker.recv().unwrap();
            values.send(42).unwrap();
            waker.wake();
        });
        assert_eq!(block_on(Received(received, Some(wakers))), 42);
        sender.join().unwrap();
        assert_eq!(block_on(async { 7 }), 7);
    }
}
