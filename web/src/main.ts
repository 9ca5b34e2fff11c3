// Wires the page: the examples menu, editor and its problems list, Run and Stop,
// machine/precision/backend choices, output, counters and the comparison of runs, backend line,
// status and elapsed time, the compiled programs' stages and, for the chosen program, its
// timeline, cycle breakdown and roofline; the exports; and the systolic-array view. The engine
// lives in a worker (engine.ts); everything the script produces is written with textContent only.
import './style.css';
import { BreakdownView } from './breakdown';
import { CompareView } from './compare';
import { clearCounters, renderCounters, transfersText } from './counters';
import { ScriptEditor } from './editor';
import { Engine, STOPPED } from './engine';
import { EXAMPLES, type Example, exampleWithSource } from './examples';
import { countersCsv, countersJson, download, traceJson } from './exports';
import { ListingView } from './listing';
import { backendText, formatElapsed, quiet, showOutput } from './output';
import { ProblemsView } from './problems';
import { ProgramView } from './programs';
import type { BackendChoice, RunOk, RunProgress, RunResult } from './protocol';
import { RooflineView } from './roofline';
import { fromHash, type Machine, type MxuSize, type Precision, toHash } from './share';
import { SKELETON_SCRIPT } from './skeleton';
import { SliceView } from './slice';
import { SystolicView } from './systolic';
import { TimelineView } from './timeline';

function byTestId<T extends HTMLElement>(id: string): T {
  const el = document.querySelector<T>(`[data-testid="${id}"]`);
  if (!el) throw new Error(`page is missing [data-testid=${id}]`);
  return el;
}

const runButton = byTestId<HTMLButtonElement>('run');
const stopButton = byTestId<HTMLButtonElement>('stop');
const examplesSelect = byTestId<HTMLSelectElement>('examples');
const explanation = byTestId<HTMLElement>('example-explanation');
const backendSelect = byTestId<HTMLSelectElement>('backend-select');
const machineSelect = byTestId<HTMLSelectElement>('machine');
const mxuSelect = byTestId<HTMLSelectElement>('mxu');
const precisionSelect = byTestId<HTMLSelectElement>('precision');
const output = byTestId<HTMLPreElement>('output');
const counters = byTestId<HTMLTableElement>('counters');
const backendLine = byTestId<HTMLElement>('backend');
const transfersLine = byTestId<HTMLElement>('transfers');
const status = byTestId<HTMLElement>('status');
const elapsed = byTestId<HTMLElement>('elapsed');
const progress = byTestId<HTMLElement>('progress');
const progressText = byTestId<HTMLElement>('progress-text');
const progressBar = byTestId<HTMLProgressElement>('progress-bar');

const exportTrace = byTestId<HTMLButtonElement>('export-trace');
const exportJson = byTestId<HTMLButtonElement>('export-counters-json');
const exportCsv = byTestId<HTMLButtonElement>('export-counters-csv');

const editor = new ScriptEditor(byTestId('editor'), () => void run());
const problems = new ProblemsView(byTestId('problems'), (line, col) => editor.goTo(line, col));
const compare = new CompareView(byTestId('compare'));
const systolic = new SystolicView(byTestId('systolic'));
const breakdown = new BreakdownView(byTestId('breakdown'));
const roofline = new RooflineView(byTestId('roofline'));
const timeline = new TimelineView(byTestId('timeline'), {
  zoomIn: byTestId('timeline-zoom-in'),
  zoomOut: byTestId('timeline-zoom-out'),
  fit: byTestId('timeline-fit'),
  note: byTestId('timeline-note'),
});
const listing = new ListingView();
const slice = new SliceView(byTestId('slice'));
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

type Status = 'ready' | 'running' | 'done' | 'error' | 'stopped';

function setStatus(s: Status): void {
  status.textContent = s; // tests read this exact word
  status.dataset.state = s;
}

function loadFromHash(): void {
  const shared = fromHash(location.hash);
  editor.code = shared.source ?? SKELETON_SCRIPT;
  problems.show([]);
  // A link to an unedited example shows its explanation too.
  showExample(exampleWithSource(editor.code));
  // Absent or unknown values fall back to the defaults.
  machineSelect.value = shared.machine ?? 'v5e';
  mxuSelect.value = shared.mxu ?? '';
  precisionSelect.value = shared.precision ?? 'default';
}

/** The menu's choice and the explanation above the editor; none: the placeholder, no text. */
function showExample(example: Example | undefined): void {
  examplesSelect.value = example?.name ?? '';
  explanation.textContent = example?.explanation ?? '';
  explanation.hidden = !example;
}

function loadExample(name: string): void {
  const example = EXAMPLES.find((e) => e.name === name);
  if (!example) return;
  editor.code = example.source;
  problems.show([]);
  showExample(example);
  shareLink();
}

/** Keeps the URL a shareable link to the script, machine (MXU size too) and precision the page shows. */
function shareLink(): void {
  const run = {
    source: editor.code,
    machine: machineSelect.value as Machine,
    precision: precisionSelect.value as Precision,
    mxu: mxuSelect.value as MxuSize,
  };
  history.replaceState(null, '', toHash(run));
}

/** While a run is in progress Stop takes Run's place (and focus, if Run had it), and back. */
function setRunning(running: boolean): void {
  const hadFocus = document.activeElement === (running ? runButton : stopButton);
  runButton.disabled = running;
  runButton.hidden = running;
  stopButton.hidden = !running;
  if (hadFocus) (running ? stopButton : runButton).focus();
}

let runsStarted = 0;

/** The choices the results on display were computed with (null when none are on display). */
let shownSettings: string | null = null;

function settings(): string {
  return `${backendSelect.value} ${machineSelect.value} ${mxuSelect.value} ${precisionSelect.value}`;
}

/**
 * Changing the machine, precision or backend while results are on display runs the script again
 * with the new choice, so the counters always describe what the selectors say (and the run
 * comparison gets the pair to compare). With nothing on display, or a run in progress, the
 * choice waits for the next Run.
 */
function rerunOnChange(): void {
  shareLink();
  if (shownSettings !== null && shownSettings !== settings() && !runButton.disabled) void run();
}

async function run(): Promise<void> {
  if (runButton.disabled) return;
  const source = editor.code;
  const machine = machineSelect.value as Machine;
  const precision = precisionSelect.value as Precision;
  const chosen = settings();
  // Keep the URL a shareable link to what was run.
  shareLink();
  setRunning(true);
  setStatus('running');
  // How many runs this page has started: tests tell a re-run that already ended from none.
  status.dataset.runs = String(++runsStarted);
  editor.showErrors([]);
  problems.show([]);
  // The elapsed time ticks while the engine works (it runs in a worker, so the page can).
  const started = performance.now();
  const tick = () => (elapsed.textContent = formatElapsed(performance.now() - started));
  tick();
  const ticker = setInterval(tick, 100);
  const mxu = mxuSelect.value ? Number(mxuSelect.value) : undefined;
  const options = { backend: backendSelect.value as BackendChoice, precision, machine, ...(mxu && { mxu }) };
  const result = await engine.run(source, options, showProgress);
  clearInterval(ticker);
  tick();
  progress.hidden = true;
  try {
    if (result === STOPPED) {
      showStopped();
      setStatus('stopped');
    } else {
      show(result);
      shownSettings = result.ok ? chosen : null;
      if (result.ok) compare.add(result, source, precision);
      setStatus(result.ok ? 'done' : 'error');
    }
  } catch (err) {
    // A page bug (say, a report field of a new shape) must not leave the page stuck in `running`.
    output.append(`\npage error while showing the result: ${err instanceof Error ? err.message : String(err)}`);
    setStatus('error');
  } finally {
    setRunning(false);
  }
}

/** Where a long run's outermost loop is: "line 14: 312 / 1000" and a bar (none for a while loop). */
function showProgress(p: RunProgress): void {
  progress.hidden = false;
  progressText.textContent =
    p.total === undefined ? `line ${p.line}: iteration ${p.iteration}` : `line ${p.line}: ${p.iteration} / ${p.total}`;
  if (p.total === undefined) {
    progressBar.hidden = true;
  } else {
    progressBar.hidden = false;
    progressBar.max = p.total;
    progressBar.value = p.iteration;
  }
}

/** A stopped run leaves no results: what it printed went with its worker. */
function showStopped(): void {
  shownSettings = null;
  output.replaceChildren(quiet(`(stopped after ${elapsed.textContent}; the engine was restarted)`));
  lastRun = null;
  exportCsv.disabled = exportJson.disabled = exportTrace.disabled = true;
  clearCounters(counters);
  programs.clear();
  slice.show([], undefined);
  backendLine.textContent = transfersLine.textContent = '';
}

function show(result: RunResult): void {
  showOutput(output, result);
  lastRun = result.ok ? result : null;
  exportCsv.disabled = exportJson.disabled = !result.ok;
  exportTrace.disabled = !result.ok || !result.machine_info;
  if (result.ok) {
    renderCounters(counters, result.programs);
    programs.show(result.programs);
    slice.show(result.mapped ?? [], result.machine_info);
    systolic.setMachine(result.machine_info);
    backendLine.textContent = backendText(result);
    transfersLine.textContent = transfersText(result.transfers);
  } else {
    clearCounters(counters);
    programs.clear();
    slice.show([], undefined);
    backendLine.textContent = transfersLine.textContent = '';
    editor.showErrors(result.errors);
    problems.show(result.errors);
  }
}

/** `tpu-counters-v5e.csv`: named after the machine, which is what tells two exports apart. */
function exportName(kind: string, extension: string): string {
  return `tpu-${kind}-${(lastRun?.machine ?? 'run').replace(/[^\w.+-]/g, '_')}.${extension}`;
}

runButton.addEventListener('click', () => void run());
stopButton.addEventListener('click', () => engine.stop());
for (const example of EXAMPLES) {
  const option = document.createElement('option');
  option.value = example.name;
  option.textContent = example.title;
  examplesSelect.append(option);
}
examplesSelect.addEventListener('change', () => loadExample(examplesSelect.value));
for (const select of [machineSelect, mxuSelect, precisionSelect, backendSelect]) {
  select.addEventListener('change', rerunOnChange);
}
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
