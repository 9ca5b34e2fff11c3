// Run comparison: every finished run is kept (the last few), and the panel sets the latest one
// beside an earlier one (the previous, unless the user picks another): for each program the two
// runs share by name, every counter side by side with the change and the ratio, rows that
// changed highlighted. Changing the machine or the precision and running again is the use.
import { flatten, formatValue, labelOf } from './counters';
import type { ProgramReport, RunOk } from './protocol';

/** How many finished runs the page keeps. */
const KEEP = 8;
const NUMBER = new Intl.NumberFormat('en-US');

export interface KeptRun {
  /** 1, 2, ... in the order the runs finished. */
  id: number;
  machine: string;
  precision: string;
  backend: string;
  source: string;
  programs: ProgramReport[];
}

/** Counters where less is better, and where more is; others change without a verdict. */
const LOWER_IS_BETTER = /^(cycles|seconds|hbm_bytes_read|hbm_bytes_written|mxu_unused_macs)$|stall$|^breakdown\.(weight_shift|non_matrix)$/;
const HIGHER_IS_BETTER = /utilization$|roofline_fraction$|^breakdown\.array_active$/;

/** `×3.67`: the latest run's value over the earlier one's. */
export function formatRatio(ratio: number): string {
  if (!Number.isFinite(ratio)) return '–';
  return `×${ratio >= 1000 ? NUMBER.format(Math.round(ratio)) : ratio.toPrecision(3)}`;
}

/** `+3,724`, `−0.1234`, `0`. */
function formatChange(counter: string, delta: number): string {
  if (delta === 0) return '0';
  const sign = delta > 0 ? '+' : '−';
  return sign + formatValue(counter, Math.abs(delta));
}

/** Each program's key in a run: its name, `name#2` for the second of that name, .... */
function keyed(programs: ProgramReport[]): Map<string, ProgramReport> {
  const seen = new Map<string, number>();
  const keys = new Map<string, ProgramReport>();
  for (const p of programs) {
    const n = (seen.get(p.name) ?? 0) + 1;
    seen.set(p.name, n);
    keys.set(n === 1 ? p.name : `${p.name}#${n}`, p);
  }
  return keys;
}

export class CompareView {
  private runs: KeptRun[] = [];
  private nextId = 1;
  private readonly baseline: HTMLSelectElement;
  private readonly onlyChanged: HTMLInputElement;
  private readonly eager: HTMLInputElement;
  private readonly setup: HTMLElement;
  private readonly note: HTMLElement;
  private readonly table: HTMLTableElement;
  private readonly scroll: HTMLElement;
  private readonly tools: HTMLElement;

  constructor(private readonly root: HTMLElement) {
    const tools = document.createElement('div');
    tools.className = 'compare-tools';
    this.baseline = document.createElement('select');
    this.baseline.dataset.testid = 'compare-baseline';
    this.baseline.addEventListener('change', () => this.render());
    this.onlyChanged = checkbox('compare-only-changed');
    this.eager = checkbox('compare-eager');
    for (const box of [this.onlyChanged, this.eager]) box.addEventListener('change', () => this.render());
    tools.append(
      labelled('choice', 'Compare with', this.baseline),
      labelled('check', 'only what changed', this.onlyChanged),
      labelled('check', 'op-by-op programs', this.eager),
    );
    this.setup = document.createElement('p');
    this.setup.className = 'compare-setup';
    this.setup.dataset.testid = 'compare-setup';
    this.note = document.createElement('p');
    this.note.className = 'compare-note';
    this.table = document.createElement('table');
    this.table.className = 'counters compare-table';
    this.scroll = document.createElement('div');
    this.scroll.className = 'table-scroll';
    this.scroll.append(this.table);
    this.tools = tools;
    root.replaceChildren(tools, this.setup, this.note, this.scroll);
    this.render();
  }

  /** Keeps a finished run; the panel compares it with the one before. */
  add(run: RunOk, source: string, precision: string): void {
    this.runs.push({
      id: this.nextId++,
      machine: run.machine,
      precision,
      backend: run.backend === 'gpu' ? 'WebGPU' : 'CPU',
      source,
      programs: run.programs,
    });
    if (this.runs.length > KEEP) this.runs.shift();
    const options = this.runs.slice(0, -1).map((r) => {
      const option = document.createElement('option');
      option.value = String(r.id);
      option.textContent = runLabel(r);
      return option;
    });
    options.reverse();
    this.baseline.replaceChildren(...options);
    this.baseline.disabled = options.length === 0;
    if (options.length > 0) this.baseline.value = options[0].value;
    this.render();
  }

  private render(): void {
    const latest = this.runs.at(-1);
    const earlier = this.runs.find((r) => String(r.id) === this.baseline.value);
    this.root.dataset.runs = String(this.runs.length);
    this.tools.hidden = !latest || !earlier;
    if (!latest || !earlier) {
      this.setup.textContent = '';
      this.setup.hidden = true;
      this.note.textContent = latest
        ? 'Choose another machine or precision (the script runs again), or edit and Run, to compare the counters with this run.'
        : 'Each finished run is kept: run twice to compare the counters side by side.';
      this.note.hidden = false;
      this.table.replaceChildren();
      this.scroll.hidden = true;
      delete this.root.dataset.a;
      delete this.root.dataset.b;
      return;
    }
    this.root.dataset.a = String(earlier.id);
    this.root.dataset.b = String(latest.id);
    this.renderSetup(earlier, latest);

    const before = keyed(earlier.programs);
    const after = keyed(latest.programs);
    const shared = [...after.keys()].filter((k) => before.has(k));
    const jitted = shared.filter((k) => !after.get(k)!.eager);
    const eager = shared.filter((k) => after.get(k)!.eager);
    const shown = this.eager.checked ? [...jitted, ...eager] : jitted;
    const only = (run: Map<string, ProgramReport>, other: Map<string, ProgramReport>) =>
      [...run.entries()].filter(([k, p]) => !other.has(k) && (this.eager.checked || !p.eager)).map(([k]) => k);
    const notes: string[] = [];
    if (shown.length === 0) {
      notes.push(
        shared.length > 0
          ? `The runs share only op-by-op programs (${eager.length}); tick “op-by-op programs” to see them.`
          : 'The two runs have no program of the same name.',
      );
    }
    const onlyBefore = only(before, after);
    const onlyAfter = only(after, before);
    if (onlyBefore.length) notes.push(`Only in run ${earlier.id}: ${onlyBefore.join(', ')}.`);
    if (onlyAfter.length) notes.push(`Only in run ${latest.id}: ${onlyAfter.join(', ')}.`);
    this.note.textContent = notes.join(' ');
    this.note.hidden = notes.length === 0;

    const head = this.table.createTHead();
    head.replaceChildren();
    const headRow = head.insertRow();
    for (const [text, cls] of [
      ['counter', ''],
      [runLabel(earlier), 'num'],
      [runLabel(latest), 'num'],
      ['change', 'num'],
      ['ratio', 'num'],
    ]) {
      const th = document.createElement('th');
      th.textContent = text;
      if (cls) th.className = cls;
      headRow.append(th);
    }
    const bodies: HTMLTableSectionElement[] = [];
    for (const key of shown) {
      const a = before.get(key)!;
      const b = after.get(key)!;
      bodies.push(this.programBody(key, a, b));
    }
    this.table.replaceChildren(head, ...bodies);
    this.table.classList.toggle('only-changed', this.onlyChanged.checked);
    this.scroll.hidden = shown.length === 0;
  }

  private renderSetup(earlier: KeptRun, latest: KeptRun): void {
    const parts: (string | HTMLElement)[] = [`Run ${earlier.id} → run ${latest.id}: `];
    const item = (name: string, a: string, b: string) => {
      const span = document.createElement('span');
      span.className = a === b ? 'same' : 'changed';
      span.textContent = a === b ? `${name} ${a}` : `${name} ${a} → ${b}`;
      return span;
    };
    parts.push(
      item('machine', earlier.machine, latest.machine),
      ' · ',
      item('precision', earlier.precision, latest.precision),
      ' · ',
      item('backend', earlier.backend, latest.backend),
      ' · ',
    );
    const script = document.createElement('span');
    const same = earlier.source === latest.source;
    script.className = same ? 'same' : 'changed';
    script.textContent = same ? 'same script' : 'script edited';
    parts.push(script);
    this.setup.replaceChildren(...parts);
    this.setup.hidden = false;
  }

  private programBody(key: string, a: ProgramReport, b: ProgramReport): HTMLTableSectionElement {
    const body = document.createElement('tbody');
    body.dataset.program = key;
    const before = flatten(a.counters as Record<string, unknown>);
    const after = flatten(b.counters as Record<string, unknown>);
    const names = Object.keys(after);
    for (const name of Object.keys(before)) if (!names.includes(name)) names.push(name);
    names.unshift('calls');
    before.calls = a.calls;
    after.calls = b.calls;

    const title = body.insertRow();
    title.className = 'program-title';
    const th = document.createElement('th');
    th.colSpan = 5;
    th.scope = 'rowgroup';
    th.textContent = b.eager ? `${key} (op-by-op)` : key;
    const x = before.cycles;
    const y = after.cycles;
    if (typeof x === 'number' && typeof y === 'number') {
      const summary = document.createElement('span');
      summary.className = 'summary';
      summary.textContent = `${NUMBER.format(x)} → ${NUMBER.format(y)} cycles, ${formatRatio(y / x)}` +
        (x === y ? ' (same)' : y < x ? ' (faster)' : ' (slower)');
      th.append(summary);
    }
    title.append(th);

    let changed = 0;
    for (const name of names) {
      const va = before[name];
      const vb = after[name];
      const row = body.insertRow();
      row.dataset.program = key;
      row.dataset.counter = name;
      const label = row.insertCell();
      label.textContent = labelOf(name);
      label.className = 'label';
      valueCell(row, 'a', name, va);
      valueCell(row, 'b', name, vb);
      const change = row.insertCell();
      const ratio = row.insertCell();
      change.className = ratio.className = 'num';
      change.dataset.cell = 'change';
      ratio.dataset.cell = 'ratio';
      if (typeof va !== 'number' || typeof vb !== 'number') {
        change.textContent = ratio.textContent = '–';
        row.className = 'changed';
        changed++;
        continue;
      }
      const delta = vb - va;
      change.textContent = formatChange(name, delta);
      change.dataset.value = String(delta);
      if (va !== 0) {
        ratio.textContent = formatRatio(vb / va);
        ratio.dataset.value = String(vb / va);
      } else {
        ratio.textContent = '–';
      }
      if (va === vb) {
        row.className = 'same';
        continue;
      }
      changed++;
      row.className = 'changed';
      const better = LOWER_IS_BETTER.test(name) ? vb < va : HIGHER_IS_BETTER.test(name) ? vb > va : null;
      if (better !== null) row.dataset.trend = better ? 'better' : 'worse';
    }
    if (changed === 0) {
      const row = body.insertRow();
      row.className = 'nothing';
      const cell = row.insertCell();
      cell.colSpan = 5;
      cell.textContent = 'No counter changed.';
    }
    return body;
  }
}

function runLabel(r: KeptRun): string {
  return `run ${r.id} · ${r.machine} · ${r.precision}`;
}

function valueCell(row: HTMLTableRowElement, which: 'a' | 'b', name: string, value: number | undefined): void {
  const cell = row.insertCell();
  cell.className = 'num';
  cell.dataset.run = which;
  if (typeof value === 'number') {
    cell.textContent = formatValue(name, value);
    cell.dataset.value = String(value);
  } else {
    cell.textContent = '–';
  }
}

function checkbox(testid: string): HTMLInputElement {
  const box = document.createElement('input');
  box.type = 'checkbox';
  box.dataset.testid = testid;
  return box;
}

function labelled(className: string, text: string, control: HTMLElement): HTMLLabelElement {
  const label = document.createElement('label');
  label.className = className;
  if (control instanceof HTMLInputElement) label.append(control, text);
  else label.append(text, control);
  return label;
}
