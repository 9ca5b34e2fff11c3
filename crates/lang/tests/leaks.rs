//! Runs leave nothing behind: a worker (or a fuzzer) runs thousands of scripts in one process,
//! and a script's functions sit in reference cycles with the scopes they close over. The fuzzer
//! found this: 400,000 runs grew the process to 4 GiB. Counted here with the test binary's own
//! allocator.

use jaxlite::eval::ReferenceExecutor;
use jaxlite::Context;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicIsize, Ordering};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

thread_local! {
    /// Only the measuring thread counts: the test harness allocates on other threads at any
    /// time (starting the next test's thread, ~10 KB), which once made these tests flaky.
    static MEASURING: Cell<bool> = const { Cell::new(false) };
}

fn counted(bytes: isize) {
    if MEASURING.try_with(Cell::get).unwrap_or(false) {
        LIVE.fetch_add(bytes, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        counted(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        counted(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The allocator's count is global: one measuring test at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn run(source: &str) {
    let mut ctx = Context::new(Box::new(ReferenceExecutor::default()));
    pollster::block_on(lang::run_script(source, &mut ctx)).expect("the script runs");
}

/// Bytes still allocated after 50 runs of `script` that were not after the first (one
/// measuring test at a time).
fn bytes_left_by_50_runs(script: &str) -> isize {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    run(script);
    MEASURING.with(|m| m.set(true));
    let before = LIVE.load(Ordering::Relaxed);
    for _ in 0..50 {
        run(script);
    }
    let after = LIVE.load(Ordering::Relaxed);
    MEASURING.with(|m| m.set(false));
    after - before
}

#[test]
fn functions_and_closures_are_freed_when_a_run_ends() {
    // A top-level function, a recursive one, a closure returned from a function (its scope
    // holds a function of its own), a lambda, and a decorated (jitted) function.
    let script = r#"
import jax
import jax.numpy as jnp

def add(a, b=1):
    return a + b

def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)

def make_counter(step):
    def inner(x):
        def deeper(y):
            return y + step
        return deeper(x)
    return inner

square = lambda v: v * v

@jax.jit
def f(x):
    return jnp.sum(x * 2.0)

print(add(1), fact(5), make_counter(3)(4), square(3), f(jnp.ones(4)))
"#;
    let grown = bytes_left_by_50_runs(script);
    // Before the fix each run kept about 13 KB; allow a little for lazily grown caches.
    assert!(grown < 8 * 1024, "50 runs left {grown} bytes allocated");
}

#[test]
fn lists_and_dicts_that_contain_themselves_are_freed_when_a_run_ends() {
    let script = "x = [1, 2]\nx.append(x)\nd = {'self': None}\nd['self'] = d\nd['x'] = x\nprint(len(x), len(d))\n";
    let grown = bytes_left_by_50_runs(script);
    assert!(grown < 8 * 1024, "50 runs left {grown} bytes allocated");
}
