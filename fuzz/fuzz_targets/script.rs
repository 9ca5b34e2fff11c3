//! The playground's whole pipeline on arbitrary text, as `tpu run --backend cpu` runs it:
//! parser, interpreter, tracing, the compiler (every op, eager ones included, becomes a
//! program) and the emulator. Every input ends in output or in errors with places, never a
//! panic, a stack overflow, a hang or an allocation the host cannot make.
#![no_main]

use libfuzzer_sys::fuzz_target;
use runtime::{BackendChoice, Engine, Limits, RunOptions};

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else { return };
    // A smaller step budget than the playground's keeps each input fast; the limits' checks
    // are what is under test, not their sizes.
    let opts = RunOptions {
        backend: BackendChoice::Cpu,
        limits: Limits { steps: 20_000, ..Limits::default() },
        ..RunOptions::default()
    };
    if let Err(failure) = pollster::block_on(Engine::new().run_script(source, &opts)) {
        let lines = source.lines().count() + 1;
        for e in &failure.errors {
            // Every error has something to say and a place inside the script (line 0 for
            // errors of the whole run).
            assert!(!e.message.is_empty());
            assert!(e.line as usize <= lines, "{e:?} is past the end of the script");
        }
    }
});
