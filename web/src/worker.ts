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

self.onmessage = async (event: MessageEvent<RunRequest>) => {
  const { id, source, options } = event.data;
  try {
    await ready;
    reply({ id, json: await run_script(source, JSON.stringify(options)) });
  } catch (err) {
    // run_script never rejects for script errors, so this is an engine bug (or a failed load).
    reply({ id, engineError: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
  }
};
