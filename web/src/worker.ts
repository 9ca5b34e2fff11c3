// The engine runs here, off the main thread, so the page stays responsive during long runs.
import init, { run_script } from '../pkg/tpu_wasm.js';
import type { RunReply, RunRequest } from './protocol';

// Fetch and compile the wasm as soon as the worker starts, not on the first Run.
const ready = init();
ready.catch(() => {}); // reported to the page by the first run that awaits it

// The project type-checks against the DOM lib only; `self.postMessage(msg)` matches its
// `postMessage(message, options?)` overload, which is all a dedicated worker needs.
function reply(msg: RunReply): void {
  self.postMessage(msg);
}

/** Progress is posted at most this often, whatever the loop's pace. */
const PROGRESS_INTERVAL_MS = 100;

self.onmessage = async (event: MessageEvent<RunRequest>) => {
  const { id, source, options } = event.data;
  // The engine calls this at every iteration of the outermost loop, synchronously, in the
  // middle of the run; a posted message reaches the page while the run goes on.
  let posted = -Infinity;
  const onProgress = (line: number, iteration: number, total: number | undefined, steps: number) => {
    const now = performance.now();
    if (now - posted < PROGRESS_INTERVAL_MS) return;
    posted = now;
    reply({ id, progress: { line, iteration, total, steps } });
  };
  try {
    await ready;
    reply({ id, json: await run_script(source, JSON.stringify(options), onProgress) });
  } catch (err) {
    // run_script never rejects for script errors, so this is an engine bug (or a failed load).
    reply({ id, engineError: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
  }
};
