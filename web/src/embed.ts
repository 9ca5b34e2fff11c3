// <tpu-playground>: a live, runnable example for any page (docs/embedding.md). One module script
// defines the element; each element is an editor, a Run button and the panels its `panels`
// attribute names, built from the page's own views (editor, counters, programs, listing,
// timeline, roofline, systolic) inside a shadow root, so the page's styles and the element's
// stay apart. Every element of a page shares one engine: one worker, one wasm instance, one GPU
// device, runs queued one at a time (engine.ts). An element asks for the engine only when it
// scrolls into view or runs. Everything from the script, its attributes or its `src` file reaches
// the DOM as text (textContent) only.
import { BreakdownView } from './breakdown';
import { clearCounters, renderCounters } from './counters';
import { ScriptEditor } from './editor';
import embedCss from './embed.css?inline';
import { Engine, type RunTicket, STOPPED } from './engine';
import { ListingView } from './listing';
import { backendText, formatElapsed, quiet, showOutput } from './output';
import { ProgramView, type Stage } from './programs';
import type { BackendChoice, RunOk, RunOptions, RunProgress, RunResult } from './protocol';
import { RooflineView } from './roofline';
import { MACHINES, type Machine, PRECISIONS, type Precision } from './share';
import pageCss from './style.css?inline';
import { SystolicView } from './systolic';
import { TimelineView } from './timeline';
import type { TpuPlaygroundElement as Declared } from '../types/tpu-playground';

export const PANELS = ['editor', 'output', 'jaxpr', 'fused', 'asm', 'counters', 'timeline', 'roofline', 'systolic'] as const;
export type Panel = (typeof PANELS)[number];
export const DEFAULT_PANELS: readonly Panel[] = ['editor', 'output', 'counters'];
const BACKENDS = ['auto', 'cpu', 'gpu'] as const;
const STAGE_PANELS: readonly Stage[] = ['jaxpr', 'fused', 'asm'];
const STAGE_LABELS: Record<string, string> = { jaxpr: 'Jaxpr', fused: 'Fused', asm: 'Assembly' };

/** `idle` (never ran), `loading` (fetching `src`), `queued`, `running`, then how the last run ended. */
export type EmbedState = 'idle' | 'loading' | 'queued' | 'running' | 'done' | 'error' | 'stopped';

/** `event.detail` of each event the element fires (they bubble and cross shadow roots). */
export interface RunStartDetail {
  code: string;
  options: RunOptions;
}
export interface RunProgressDetail {
  /** Milliseconds since run() (waiting in the queue included). */
  elapsedMs: number;
  /** True while another element's run holds the engine. */
  queued: boolean;
  /** The outermost loop running, once one has reported: its line, iteration (from 1) and length. */
  loop?: RunProgress;
}
export interface RunCompleteDetail {
  result: RunOk;
  elapsedMs: number;
}
export interface RunErrorDetail {
  /** `script`: the script failed (errors with line:col); `engine`: the engine failed; `stopped`: stop() ended it; `load`: `src` could not be fetched. */
  reason: 'script' | 'engine' | 'stopped' | 'load';
  errors: { message: string; line: number; col: number }[];
  /** The failed run's report (what it printed, its errors), null when stopped or not loaded. */
  result: RunResult | null;
  elapsedMs: number;
}

// ---- What every element of the page shares ------------------------------------------------

let engine: Engine | null = null;

/** The page's one engine, created on first use and started only when an element asks. */
function sharedEngine(): Engine {
  return (engine ??= new Engine({ lazy: true }));
}

let sheets: CSSStyleSheet[] | null = null;

/**
 * The page's stylesheet, with `:root` (where it keeps its palette) read as the element's host,
 * then the element's own rules. Parsed once, adopted by every element's shadow root.
 */
function styleSheets(): CSSStyleSheet[] {
  if (!sheets) {
    const page = new CSSStyleSheet();
    page.replaceSync(pageCss.replace(/:root\b/g, ':host'));
    const own = new CSSStyleSheet();
    own.replaceSync(embedCss);
    sheets = [page, own];
  }
  return sheets;
}

/** Code written inside an indented HTML element: blank first and last lines and the common indent go. */
export function dedent(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  while (lines.length && lines[0].trim() === '') lines.shift();
  while (lines.length && lines[lines.length - 1].trim() === '') lines.pop();
  const indents = lines.filter((l) => l.trim() !== '').map((l) => /^[ \t]*/.exec(l)![0].length);
  const cut = indents.length ? Math.min(...indents) : 0;
  return lines.length ? lines.map((l) => l.slice(cut)).join('\n') + '\n' : '';
}

function oneOf<T extends string>(allowed: readonly T[], value: string | null, fallback: T): T {
  const v = value?.trim().toLowerCase() ?? '';
  return (allowed as readonly string[]).includes(v) ? (v as T) : fallback;
}

/** `panels="output, counters"` → the known names, in the element's own order; unknown names are ignored. */
export function parsePanels(value: string | null): Panel[] {
  if (value === null) return [...DEFAULT_PANELS];
  const asked = value.split(/[\s,]+/).map((p) => p.trim().toLowerCase());
  return PANELS.filter((p) => asked.includes(p));
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className = '', text?: string): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (className) element.className = className;
  if (text !== undefined) element.textContent = text;
  return element;
}

function section(label: string, ...children: Node[]): HTMLElement {
  const s = el('section', 'panel');
  s.setAttribute('aria-label', label);
  s.append(el('h2', '', label), ...children);
  return s;
}

// ---- The element ----------------------------------------------------------------------------

/** What one element shows; rebuilt when `panels` changes. */
interface Views {
  panels: Panel[];
  run: HTMLButtonElement;
  stop: HTMLButtonElement;
  setup: HTMLElement;
  status: HTMLElement;
  elapsed: HTMLElement;
  editor?: ScriptEditor;
  editorBox?: HTMLElement;
  output?: HTMLElement;
  counters?: HTMLTableElement;
  backend: HTMLElement;
  programs?: ProgramView;
  systolic?: SystolicView;
}

export class TpuPlaygroundElement extends HTMLElement {
  static readonly observedAttributes = ['machine', 'precision', 'backend', 'panels', 'readonly', 'height', 'src', 'counters', 'program'];

  readonly #root: ShadowRoot;
  #views: Views | null = null;
  #code = '';
  /** Set once the code is known: from the text content, `src`, or the `code` property. */
  #codeKnown = false;
  #loading: Promise<void> | null = null;
  #loadError: string | null = null;
  #state: EmbedState = 'idle';
  #result: RunResult | null = null;
  #ticket: RunTicket | null = null;
  #running: Promise<RunResult | null> | null = null;
  #observer: IntersectionObserver | null = null;
  #visibleOnce = false;
  #engineStarted = false;
  #ranOnce = false;

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
    this.#root.adoptedStyleSheets = styleSheets();
  }

  // ---- The API ----

  /** The script: what the editor holds (typing changes it unless `readonly`). */
  get code(): string {
    return this.#views?.editor?.code ?? this.#code;
  }

  set code(text: string) {
    this.#code = String(text);
    this.#codeKnown = true;
    if (this.#views?.editor) this.#views.editor.code = this.#code;
  }

  /** The last finished run's report (values printed, `prints`, every program's counters), or null. */
  get result(): RunResult | null {
    return this.#result;
  }

  get state(): EmbedState {
    return this.#state;
  }

  /** Whether this element has asked for the engine (scrolled into view, or run). */
  get engineStarted(): boolean {
    return this.#engineStarted;
  }

  /**
   * Runs the code; resolves to the report (also in `result`), or null when stopped or when
   * `src` could not be loaded. While a run is in progress, returns that run's promise.
   */
  run(): Promise<RunResult | null> {
    this.#running ??= this.#run().finally(() => (this.#running = null));
    return this.#running;
  }

  /** Ends this element's run (queued or running); other elements' runs go on. */
  stop(): boolean {
    return this.#ticket?.cancel() ?? false;
  }

  // ---- Lifecycle ----

  connectedCallback(): void {
    if (!this.#views) this.#build();
    if (!this.#codeKnown && !this.#loading) this.#loading = this.#loadCode();
    this.#observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) this.#onVisible();
    }, { rootMargin: '200px 0px' });
    this.#observer.observe(this);
  }

  disconnectedCallback(): void {
    this.#observer?.disconnect();
    this.#observer = null;
    this.stop();
  }

  attributeChangedCallback(name: string, old: string | null, value: string | null): void {
    if (old === value || !this.#views) return;
    if (name === 'panels' || name === 'counters' || name === 'program') {
      this.#code = this.code;
      this.#build();
    } else if (name === 'readonly') {
      if (this.#views.editor) this.#views.editor.readOnly = this.readOnly;
    } else if (name === 'height') {
      this.#applyHeight();
    } else if (name === 'src') {
      if (value !== null) this.#loading = this.#loadCode();
    } else {
      this.#showSetup();
    }
  }

  get readOnly(): boolean {
    return this.hasAttribute('readonly');
  }

  #options(): RunOptions {
    return {
      machine: oneOf<Machine>(MACHINES, this.getAttribute('machine'), 'v5e'),
      precision: oneOf<Precision>(PRECISIONS, this.getAttribute('precision'), 'default'),
      backend: oneOf<BackendChoice>(BACKENDS, this.getAttribute('backend'), 'auto'),
    };
  }

  #onVisible(): void {
    if (this.#visibleOnce) return;
    this.#visibleOnce = true;
    this.#observer?.disconnect();
    this.#startEngine();
    if (this.hasAttribute('autorun') && !this.#ranOnce) void this.run();
  }

  #startEngine(): void {
    this.#engineStarted = true;
    this.dataset.engine = 'started';
    sharedEngine().start();
  }

  /** The code from `src` (same origin only) or else the element's text (a `<script>` child's, if any). */
  async #loadCode(): Promise<void> {
    if (document.readyState === 'loading') {
      await new Promise((resolve) => document.addEventListener('DOMContentLoaded', resolve, { once: true }));
    }
    const src = this.getAttribute('src');
    if (src === null) {
      if (this.#codeKnown) return;
      const script = this.querySelector('script');
      this.code = dedent((script ?? this).textContent ?? '');
      return;
    }
    this.#setState('loading');
    this.#loadError = null;
    try {
      const url = new URL(src, document.baseURI);
      if (url.origin !== location.origin) throw new Error(`src must be on this page's origin (${location.origin}), not ${url.origin}`);
      const response = await fetch(url, { credentials: 'same-origin' });
      if (!response.ok) throw new Error(`${response.status} ${response.statusText}`.trim());
      this.code = await response.text();
      this.#setState('idle');
    } catch (err) {
      this.#loadError = `could not load ${src}: ${err instanceof Error ? err.message : String(err)}`;
      if (this.#views?.output) this.#views.output.replaceChildren(errorLine(this.#loadError));
      this.#setState('error');
    }
  }

  async #run(): Promise<RunResult | null> {
    this.#ranOnce = true;
    const started = performance.now();
    const since = () => performance.now() - started;
    if (this.#loading) await this.#loading;
    if (this.#loadError !== null) {
      const errors = [{ message: this.#loadError, line: 0, col: 0 }];
      this.#emit<RunErrorDetail>('run-error', { reason: 'load', errors, result: null, elapsedMs: since() });
      return null;
    }
    const views = this.#views!;
    const code = this.code;
    const options = this.#options();
    this.#startEngine();
    this.#setRunning(true);
    views.editor?.showErrors([]);
    this.#setState('queued');
    this.#emit<RunStartDetail>('run-start', { code, options });

    let queued = true;
    let loop: RunProgress | undefined;
    const tick = () => {
      views.elapsed.textContent = formatElapsed(since());
      this.#emit<RunProgressDetail>('run-progress', { elapsedMs: since(), queued, ...(loop && { loop }) });
    };
    const onStart = () => {
      queued = false;
      this.#setState('running');
      tick();
    };
    const ticket = sharedEngine().submit(code, options, onStart, (p) => (loop = p));
    this.#ticket = ticket;
    tick();
    const ticker = setInterval(tick, 100);
    const outcome = await ticket.promise;
    clearInterval(ticker);
    this.#ticket = null;
    const elapsedMs = since();
    const shown = this.#views!; // `panels` may have changed while the run went on
    shown.elapsed.textContent = formatElapsed(elapsedMs);
    this.#setRunning(false);

    if (outcome === STOPPED) {
      this.#setState('stopped');
      shown.output?.replaceChildren(quiet(`(stopped after ${formatElapsed(elapsedMs)})`));
      const errors = [{ message: 'stopped', line: 0, col: 0 }];
      this.#emit<RunErrorDetail>('run-error', { reason: 'stopped', errors, result: null, elapsedMs });
      return null;
    }
    this.#result = outcome;
    try {
      this.#show(outcome);
    } catch (err) {
      // A bug in a view must not leave the element stuck, nor hide the result from its events.
      shown.output?.append(errorLine(`error while showing the result: ${err instanceof Error ? err.message : String(err)}`));
    }
    if (outcome.ok) {
      this.#setState('done');
      this.#emit<RunCompleteDetail>('run-complete', { result: outcome, elapsedMs });
    } else {
      this.#setState('error');
      const engineFailed = outcome.errors.some((e) => e.line === 0 && e.message.startsWith('engine error:'));
      this.#emit<RunErrorDetail>('run-error', {
        reason: engineFailed ? 'engine' : 'script',
        errors: outcome.errors,
        result: outcome,
        elapsedMs,
      });
    }
    return outcome;
  }

  #emit<T>(type: string, detail: T): void {
    this.dispatchEvent(new CustomEvent<T>(type, { detail, bubbles: true, composed: true }));
  }

  #setState(state: EmbedState): void {
    this.#state = state;
    if (!this.#views) return;
    this.#views.status.textContent = state === 'idle' ? 'ready' : state;
    this.#views.status.dataset.state = state;
  }

  #setRunning(running: boolean): void {
    const { run, stop } = this.#views!;
    const hadFocus = this.#root.activeElement === (running ? run : stop);
    run.disabled = running;
    run.hidden = running;
    stop.hidden = !running;
    if (hadFocus) (running ? stop : run).focus();
  }

  #showSetup(): void {
    const o = this.#options();
    const backend = o.backend === 'auto' ? '' : ` · ${o.backend === 'gpu' ? 'WebGPU' : 'CPU'}`;
    this.#views!.setup.textContent = `TPU ${o.machine} · precision ${o.precision}${backend}`;
  }

  #applyHeight(): void {
    const box = this.#views?.editorBox;
    if (!box) return;
    const h = this.getAttribute('height')?.trim() ?? '';
    // A bare number is pixels; anything else must be a CSS length the browser accepts.
    const value = /^\d+(\.\d+)?$/.test(h) ? `${h}px` : h;
    box.style.height = '';
    if (value && CSS.supports('height', value)) box.style.height = value;
    box.classList.toggle('fixed', box.style.height !== '');
  }

  /** The shadow root's content, for the panels the `panels` attribute names. */
  #build(): void {
    const panels = parsePanels(this.getAttribute('panels'));
    const frame = el('div', 'frame');
    frame.setAttribute('part', 'frame');
    // In the shadow root before the views are built, so each finds its root (CodeMirror mounts
    // its styles there, not in the page).
    this.#root.replaceChildren(frame);

    const toolbar = el('div', 'toolbar');
    toolbar.setAttribute('part', 'toolbar');
    const run = el('button', 'run', '▶ Run');
    run.type = 'button';
    run.title = 'Run (Ctrl+Enter in the editor)';
    run.setAttribute('part', 'run-button');
    const stop = el('button', 'stop', '■ Stop');
    stop.type = 'button';
    stop.hidden = true;
    const setup = el('span', 'setup');
    const state = el('span', 'run-state');
    const status = el('span', 'status', 'ready');
    status.setAttribute('role', 'status');
    const elapsed = el('span', 'elapsed');
    state.append(status, elapsed);
    toolbar.append(run, stop, setup, state);
    run.addEventListener('click', () => void this.run());
    stop.addEventListener('click', () => this.stop());
    frame.append(toolbar);

    const views: Views = { panels, run, stop, setup, status, elapsed, backend: el('p', 'backend') };

    if (panels.includes('editor')) {
      const box = el('div', 'editor');
      box.setAttribute('part', 'editor');
      frame.append(box);
      views.editorBox = box;
      // Built into the shadow root, so CodeMirror mounts its styles there.
      views.editor = new ScriptEditor(box, () => void this.run(), { readOnly: this.readOnly, root: this.#root });
      views.editor.code = this.#code;
    }
    if (panels.includes('output')) {
      views.output = el('pre', 'output');
      views.output.setAttribute('part', 'output');
      views.output.setAttribute('aria-live', 'polite');
      views.output.append(quiet(this.hasAttribute('autorun') ? '(runs when scrolled into view)' : '(press Run)'));
      frame.append(section('Output', views.output));
    }

    // The compiled programs: a program menu for the stage texts, the timeline and the roofline.
    const stages = STAGE_PANELS.filter((s) => panels.includes(s as Panel));
    const charts = panels.filter((p) => p === 'timeline' || p === 'roofline');
    let timeline: TimelineView | undefined;
    let roofline: RooflineView | undefined;
    let breakdown: BreakdownView | undefined;
    let programsPanel: HTMLElement | undefined;
    const chartPanels: HTMLElement[] = [];
    if (stages.length > 0 || charts.length > 0) {
      const head = el('div', 'programs-head');
      const choice = el('label', 'choice', 'Program ');
      const select = el('select');
      choice.append(select);
      const check = el('label', 'check');
      const eager = el('input');
      eager.type = 'checkbox';
      check.append(eager, ' show op-by-op programs');
      const tablist = el('div', 'stages');
      tablist.setAttribute('role', 'tablist');
      tablist.setAttribute('aria-label', 'Compiler stage');
      for (const [i, stage] of stages.entries()) {
        if (i > 0) {
          const arrow = el('span', 'arrow', '→');
          arrow.setAttribute('aria-hidden', 'true');
          tablist.append(arrow);
        }
        const tab = el('button', 'stage', STAGE_LABELS[stage]);
        tab.type = 'button';
        tab.setAttribute('role', 'tab');
        tab.dataset.stage = stage;
        tab.setAttribute('aria-selected', String(i === 0));
        tab.tabIndex = i === 0 ? 0 : -1;
        tablist.append(tab);
      }
      tablist.hidden = stages.length === 0;
      const text = el('div', 'stage-text');
      text.setAttribute('role', 'tabpanel');
      text.hidden = stages.length === 0;
      head.append(el('h2', '', 'Compiled programs'), choice, check, tablist);
      programsPanel = el('section', 'panel programs-panel');
      programsPanel.setAttribute('aria-label', 'Compiled programs');
      programsPanel.append(head, text);

      if (panels.includes('timeline')) {
        const tool = (label: string, title: string) => {
          const b = el('button', 'tool', label);
          b.type = 'button';
          b.title = title;
          return b;
        };
        const controls = {
          zoomOut: tool('−', 'Zoom out'),
          zoomIn: tool('+', 'Zoom in'),
          fit: tool('Fit', 'Show the whole call'),
          note: el('p', 'note'),
        };
        controls.note.hidden = true;
        const tools = el('div', 'tools');
        tools.append(controls.zoomOut, controls.zoomIn, controls.fit);
        const sectionHead = el('div', 'section-head');
        sectionHead.append(el('h2', '', 'Timeline'), tools);
        const box = el('div', 'timeline');
        const panel = el('section', 'panel timeline-panel');
        panel.setAttribute('aria-label', 'Timeline');
        panel.append(sectionHead, controls.note, box);
        timeline = new TimelineView(box, controls);
        chartPanels.push(panel);
      }
      if (panels.includes('roofline')) {
        const bd = el('div', 'breakdown');
        const rf = el('div', 'roofline');
        breakdown = new BreakdownView(bd);
        roofline = new RooflineView(rf);
        const charts = el('div', 'charts');
        charts.append(section('Cycle breakdown', bd), section('Roofline', rf));
        chartPanels.push(charts);
      }
      const listing = new ListingView();
      views.programs = new ProgramView(select, eager, tablist, text, listing, (program) => {
        const machine = this.#result?.ok ? this.#result.machine_info : undefined;
        timeline?.show(program, machine);
        breakdown?.show(program, machine);
        roofline?.show(program, machine);
      });
      const drawn = timeline;
      if (drawn) {
        listing.onHover = (i) => drawn.highlight(i);
        drawn.onHover = (i) => listing.highlight(i);
        drawn.onPick = (i) => views.programs?.reveal(i);
      }
    }
    if (programsPanel && stages.length > 0) frame.append(programsPanel);
    if (panels.includes('counters')) {
      views.counters = el('table', 'counters');
      views.counters.setAttribute('part', 'counters');
      const scroll = el('div', 'table-scroll');
      scroll.append(views.counters);
      frame.append(section('Counters', scroll));
    }
    // Without stage tabs the program menu sits above the charts it chooses for.
    if (programsPanel && stages.length === 0) frame.append(programsPanel);
    frame.append(...chartPanels);
    if (panels.includes('systolic')) {
      const box = el('div', 'systolic');
      views.systolic = new SystolicView(box);
      frame.append(section('Systolic array', box));
    }
    frame.append(views.backend);

    this.#views = views;
    this.#applyHeight();
    this.#showSetup();
    this.#setState(this.#state);
    if (this.#running) this.#setRunning(true);
    if (this.#result) this.#show(this.#result);
  }

  #show(result: RunResult): void {
    const v = this.#views!;
    if (v.output) showOutput(v.output, result);
    v.editor?.showErrors(result.ok ? [] : result.errors);
    if (result.ok) {
      const only = this.getAttribute('counters')?.split(/[\s,]+/).filter((c) => c !== '');
      if (v.counters) renderCounters(v.counters, result.programs, only?.length ? only : undefined);
      v.programs?.show(result.programs, this.getAttribute('program')?.trim() || undefined);
      v.systolic?.setMachine(result.machine_info);
      v.backend.textContent = backendText(result);
    } else {
      if (v.counters) clearCounters(v.counters);
      v.programs?.clear();
      v.backend.textContent = '';
    }
  }
}

function errorLine(text: string): HTMLSpanElement {
  const span = el('span', 'error', text + '\n');
  return span;
}

/** The engine every element shares (for tests and tools): how many workers it has started. */
export function engineWorkersStarted(): number {
  return engine?.workersStarted ?? 0;
}

if (!customElements.get('tpu-playground')) customElements.define('tpu-playground', TpuPlaygroundElement);

// The package's published types (web/types, which also name the tag in HTMLElementTagNameMap)
// must describe this element: a change here that breaks them fails `tsc`.
type Describes<T extends Declared> = T;
export type PublishedTypesMatch = Describes<TpuPlaygroundElement>;
