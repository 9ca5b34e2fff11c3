// Wires the page: editor, Run, output, counters, backend line and status. The engine lives in
// a worker (engine.ts); everything the script produces is written with textContent only.
import './style.css';
import { clearCounters, renderCounters } from './counters';
import { Engine } from './engine';
import type { BackendChoice, RunResult } from './protocol';
import { encodeSource, sourceFromHash } from './share';
import { SKELETON_SCRIPT } from './skeleton';

function byTestId<T extends HTMLElement>(id: string): T {
  const el = document.querySelector<T>(`[data-testid="${id}"]`);
  if (!el) throw new Error(`page is missing [data-testid=${id}]`);
  return el;
}

const editor = byTestId<HTMLTextAreaElement>('editor');
const runButton = byTestId<HTMLButtonElement>('run');
const backendSelect = byTestId<HTMLSelectElement>('backend-select');
const output = byTestId<HTMLPreElement>('output');
const counters = byTestId<HTMLTableElement>('counters');
const backendLine = byTestId<HTMLElement>('backend');
const status = byTestId<HTMLElement>('status');
const elapsed = byTestId<HTMLElement>('elapsed');

const engine = new Engine();

type Status = 'ready' | 'running' | 'done' | 'error';

function setStatus(s: Status): void {
  status.textContent = s; // tests read this exact word
  status.dataset.state = s;
}

function loadFromHash(): void {
  editor.value = sourceFromHash(location.hash) ?? SKELETON_SCRIPT;
}

async function run(): Promise<void> {
  if (runButton.disabled) return;
  const source = editor.value;
  // Keep the URL a shareable link to what was run.
  history.replaceState(null, '', `#code=${encodeSource(source)}`);
  runButton.disabled = true;
  setStatus('running');
  elapsed.textContent = '';
  const started = performance.now();
  const result = await engine.run(source, {
    backend: backendSelect.value as BackendChoice,
    precision: 'default',
    machine: 'v5e',
  });
  elapsed.textContent = `${Math.round(performance.now() - started)} ms`;
  show(result);
  runButton.disabled = false;
  setStatus(result.ok ? 'done' : 'error');
}

function show(result: RunResult): void {
  output.replaceChildren(document.createTextNode(result.stdout));
  if (result.ok) {
    renderCounters(counters, result.programs);
    const where = result.backend === 'gpu' ? `WebGPU: ${result.adapter?.trim() || 'unknown adapter'}` : 'CPU (wasm)';
    const reason = result.backend_reason ? ` — ${result.backend_reason}` : '';
    backendLine.textContent = `${where}${reason} · emulating TPU ${result.machine}`;
    if (result.stdout === '') output.append(quiet('(the script printed nothing)'));
  } else {
    clearCounters(counters);
    backendLine.textContent = '';
    for (const e of result.errors) {
      const line = document.createElement('span');
      line.className = 'error';
      line.textContent = (e.line > 0 ? `${e.line}:${e.col}: ${e.message}` : e.message) + '\n';
      output.append(line);
    }
  }
}

function quiet(text: string): HTMLSpanElement {
  const span = document.createElement('span');
  span.className = 'quiet';
  span.textContent = text;
  return span;
}

// Python wants indentation: Tab indents by four spaces; Escape leaves the editor so keyboard
// users are not trapped; Ctrl/Cmd+Enter runs.
editor.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    void run();
  } else if (event.key === 'Tab' && !event.shiftKey && !event.ctrlKey && !event.altKey && !event.metaKey) {
    event.preventDefault();
    editor.setRangeText('    ', editor.selectionStart, editor.selectionEnd, 'end');
  } else if (event.key === 'Escape') {
    editor.blur();
  }
});
runButton.addEventListener('click', () => void run());
window.addEventListener('hashchange', loadFromHash);

loadFromHash();
setStatus('ready');
