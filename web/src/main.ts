// Wires the page: editor, Run, machine/precision/backend choices, output, counters, backend line,
// status, the compiled programs' stages and, for the chosen program, its timeline, cycle
// breakdown and roofline; and the exports. The engine lives in a worker (engine.ts); everything
// the script produces is written with textContent only.
import './style.css';
import { BreakdownView } from './breakdown';
import { clearCounters, renderCounters } from './counters';
import { ScriptEditor } from './editor';
import { Engine } from './engine';
import { countersCsv, countersJson, download, traceJson } from './exports';
import { ListingView } from './listing';
import { ProgramView } from './programs';
import type { BackendChoice, RunOk, RunResult } from './protocol';
import { RooflineView } from './roofline';
import { fromHash, type Machine, type Precision, toHash } from './share';
import { SKELETON_SCRIPT } from './skeleton';
import { TimelineView } from './timeline';

function byTestId<T extends HTMLElement>(id: string): T {
  const el = document.querySelector<T>(`[data-testid="${id}"]`);
  if (!el) throw new Error(`page is missing [data-testid=${id}]`);
  return el;
}

const runButton = byTestId<HTMLButtonElement>('run');
const backendSelect = byTestId<HTMLSelectElement>('backend-select');
const machineSelect = byTestId<HTMLSelectElement>('machine');
const precisionSelect = byTestId<HTMLSelectElement>('precision');
const output = byTestId<HTMLPreElement>('output');
const counters = byTestId<HTMLTableElement>('counters');
const backendLine = byTestId<HTMLElement>('backend');
const status = byTestId<HTMLElement>('status');
const elapsed = byTestId<HTMLElement>('elapsed');

const exportTrace = byTestId<HTMLButtonElement>('export-trace');
const exportJson = byTestId<HTMLButtonElement>('export-counters-json');
const exportCsv = byTestId<HTMLButtonElement>('export-counters-csv');

const editor = new ScriptEditor(byTestId('editor'), () => void run());
const breakdown = new BreakdownView(byTestId('breakdown'));
const roofline = new RooflineView(byTestId('roofline'));
const timeline = new TimelineView(byTestId('timeline'), {
  zoomIn: byTestId('timeline-zoom-in'),
  zoomOut: byTestId('timeline-zoom-out'),
  fit: byTestId('timeline-fit'),
  note: byTestId('timeline-note'),
});
const listing = new ListingView();
/** The last successful run: what the views show and the exports write. */
let lastRun: RunOk | null = null;
const programs = new ProgramView(
  byTestId<HTMLSelectElement>('program-select'),
  byTestId<HTMLInputElement>('show-eager'),
  document.querySelector<HTMLElement>('.stages[role="tablist"]')!,
  byTestId('stage-text'),
  listing,
  (program) => {
    const machine = lastRun?.machine_info;
    timeline.show(program, machine);
    breakdown.show(program, machine);
    roofline.show(program, machine);
  },
);
// The listing and the timeline point at each other: an instruction's line and its spans.
listing.onHover = (i) => timeline.highlight(i);
timeline.onHover = (i) => listing.highlight(i);
timeline.onPick = (i) => programs.reveal(i);

const engine = new Engine();

type Status = 'ready' | 'running' | 'done' | 'error';

function setStatus(s: Status): void {
  status.textContent = s; // tests read this exact word
  status.dataset.state = s;
}

function loadFromHash(): void {
  const shared = fromHash(location.hash);
  editor.code = shared.source ?? SKELETON_SCRIPT;
  // Absent or unknown values fall back to the defaults.
  machineSelect.value = shared.machine ?? 'v5e';
  precisionSelect.value = shared.precision ?? 'default';
}

async function run(): Promise<void> {
  if (runButton.disabled) return;
  const source = editor.code;
  const machine = machineSelect.value as Machine;
  const precision = precisionSelect.value as Precision;
  // Keep the URL a shareable link to what was run.
  history.replaceState(null, '', toHash({ source, machine, precision }));
  runButton.disabled = true;
  setStatus('running');
  elapsed.textContent = '';
  editor.showErrors([]);
  const started = performance.now();
  const result = await engine.run(source, { backend: backendSelect.value as BackendChoice, precision, machine });
  elapsed.textContent = `${Math.round(performance.now() - started)} ms`;
  try {
    show(result);
    setStatus(result.ok ? 'done' : 'error');
  } catch (err) {
    // A page bug (say, a report field of a new shape) must not leave the page stuck in `running`.
    output.append(`\npage error while showing the result: ${err instanceof Error ? err.message : String(err)}`);
    setStatus('error');
  } finally {
    runButton.disabled = false;
  }
}

function show(result: RunResult): void {
  output.replaceChildren(document.createTextNode(result.stdout));
  lastRun = result.ok ? result : null;
  exportCsv.disabled = exportJson.disabled = !result.ok;
  exportTrace.disabled = !result.ok || !result.machine_info;
  if (result.ok) {
    renderCounters(counters, result.programs);
    programs.show(result.programs);
    const where = result.backend === 'gpu' ? `WebGPU: ${result.adapter?.trim() || 'unknown adapter'}` : 'CPU (wasm)';
    const reason = result.backend_reason ? ` — ${result.backend_reason}` : '';
    backendLine.textContent = `${where}${reason} · emulating TPU ${result.machine}`;
    if (result.stdout === '') output.append(quiet('(the script printed nothing)'));
  } else {
    clearCounters(counters);
    programs.clear();
    backendLine.textContent = '';
    editor.showErrors(result.errors);
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

/** `tpu-counters-v5e.csv`: named after the machine, which is what tells two exports apart. */
function exportName(kind: string, extension: string): string {
  return `tpu-${kind}-${(lastRun?.machine ?? 'run').replace(/[^\w.+-]/g, '_')}.${extension}`;
}

runButton.addEventListener('click', () => void run());
exportTrace.addEventListener('click', () => {
  const trace = lastRun && traceJson(lastRun);
  if (trace) download(exportName('trace', 'json'), trace, 'application/json');
});
exportJson.addEventListener('click', () => {
  if (lastRun) download(exportName('counters', 'json'), countersJson(lastRun), 'application/json');
});
exportCsv.addEventListener('click', () => {
  if (lastRun) download(exportName('counters', 'csv'), countersCsv(lastRun), 'text/csv');
});
window.addEventListener('hashchange', loadFromHash);

loadFromHash();
setStatus('ready');
