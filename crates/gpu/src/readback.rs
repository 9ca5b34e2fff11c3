//! Awaiting `Buffer::map_async` without blocking: its callback completes a one-shot future.
//!
//! Natively the caller polls the device (which runs the callback) before awaiting; in the
//! browser the callback fires from the event loop while the future is pending. Nothing here
//! blocks, so the same code runs in wasm.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

#[derive(Default)]
struct Slot {
    result: Option<Result<(), wgpu::BufferAsyncError>>,
    waker: Option<Waker>,
}

/// Resolves when the mapping started by [`map_read`] has completed (or failed).
pub struct Mapped(Arc<Mutex<Slot>>);

/// Starts mapping `slice` for reading.
pub fn map_read(slice: wgpu::BufferSlice<'_>) -> Mapped {
    let slot = Arc::new(Mutex::new(Slot::default()));
    let callback_slot = slot.clone();
    slice.map_async(wgpu::MapMode::Read, move |result| {
        let mut s = callback_slot.lock().unwrap_or_else(|e| e.into_inner());
        s.result = Some(result);
        if let Some(w) = s.waker.take() {
            w.wake();
        }
    });
    Mapped(slot)
}

impl Future for Mapped {
    type Output = Result<(), wgpu::BufferAsyncError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut s = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match s.result.take() {
            Some(r) => Poll::Ready(r),
            None => {
                s.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}
