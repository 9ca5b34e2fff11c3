// A run's output as the page and the embedded element show it: what the script printed, then
// what it wrote to standard error (set apart), or its errors as `line:col: message`, and the line
// that says which backend ran. Text only (textContent), never markup.
import type { RunOk, RunResult } from './protocol';

export function showOutput(output: HTMLElement, result: RunResult): void {
  output.replaceChildren(document.createTextNode(result.stdout));
  if (result.stderr) {
    const stderr = document.createElement('span');
    stderr.className = 'stderr';
    stderr.dataset.testid = 'stderr';
    stderr.textContent = result.stderr;
    output.append(stderr);
  }
  if (result.ok) {
    if (result.stdout === '' && !result.stderr) output.append(quiet('(the script printed nothing)'));
    return;
  }
  for (const e of result.errors) {
    const line = document.createElement('span');
    line.className = 'error';
    line.textContent = (e.line > 0 ? `${e.line}:${e.col}: ${e.message}` : e.message) + '\n';
    output.append(line);
  }
}

/** `WebGPU: <adapter> — <why> · emulating TPU v5e`, or `CPU (wasm) ...`. */
export function backendText(result: RunOk): string {
  const where = result.backend === 'gpu' ? `WebGPU: ${result.adapter?.trim() || 'unknown adapter'}` : 'CPU (wasm)';
  const reason = result.backend_reason ? ` — ${result.backend_reason}` : '';
  return `${where}${reason} · emulating TPU ${result.machine}`;
}

export function formatElapsed(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export function quiet(text: string): HTMLSpanElement {
  const span = document.createElement('span');
  span.className = 'quiet';
  span.textContent = text;
  return span;
}
