// The counters table: one row per compiled program, one column per counter. Counter names
// come from the engine, so new counters appear without a change here.
import type { ProgramReport, Transfers } from './protocol';

const NUMBER = new Intl.NumberFormat('en-US');

/**
 * The unit line under a counter's name: empty when the name already says it (`mxu_busy_cycles`,
 * `hbm_bytes_read`, `flops`, `seconds`), so only counters with a bare name get one.
 */
export function unitOf(counter: string): string {
  return /cycles$|bytes|flops$|seconds$|instructions$/.test(counter) ? '' : 'count';
}

/** A counter's value for reading: `1,896`; model time in seconds as `1.264 µs`. */
export function formatValue(counter: string, value: number): string {
  if (/seconds$/.test(counter)) return formatSeconds(value);
  if (Number.isInteger(value)) return NUMBER.format(value);
  return value.toPrecision(4);
}

function formatSeconds(s: number): string {
  const scales: [number, string][] = [[1, 's'], [1e-3, 'ms'], [1e-6, 'µs'], [1e-9, 'ns']];
  const [scale, unit] = scales.find(([scale]) => Math.abs(s) >= scale) ?? [1e-9, 'ns'];
  return s === 0 ? '0 s' : `${+(s / scale).toPrecision(4)} ${unit}`;
}

/** `hbm_bytes_read` → `HBM bytes read`: the hardware's acronyms stay recognisable. */
export function labelOf(counter: string): string {
  return counter
    .replace('.', ': ')
    .split('_')
    .map((word) => (word === 'flops' ? 'FLOPs' : /^(hbm|vmem|mxu|dma|vpu|xlu)$/.test(word) ? word.toUpperCase() : word))
    .join(' ');
}

/** Counters as `name → number`; a group such as `breakdown` becomes `breakdown.matmul`, .... */
export function flatten(counters: Record<string, unknown>, prefix = ''): Record<string, number> {
  const flat: Record<string, number> = {};
  for (const [name, value] of Object.entries(counters)) {
    if (typeof value === 'number') flat[prefix + name] = value;
    else if (value && typeof value === 'object') Object.assign(flat, flatten(value as Record<string, unknown>, `${prefix}${name}.`));
  }
  return flat;
}

/**
 * `only`: the counters to show, in that order (names as `flatten` gives them); by default every
 * counter any program reports, in the order the engine lists them.
 */
export function renderCounters(table: HTMLTableElement, programs: ProgramReport[], only?: readonly string[]): void {
  const flat = programs.map((p) => flatten(p.counters as Record<string, unknown>));
  const names: string[] = [];
  for (const counters of flat) for (const name of Object.keys(counters)) if (!names.includes(name)) names.push(name);
  if (only) names.splice(0, names.length, ...only.filter((name) => names.includes(name)));

  const head = document.createElement('thead');
  const headRow = head.insertRow();
  headCell(headRow, 'program', '');
  headCell(headRow, 'calls', '');
  // What the host sent for a program's calls: shown unless `only` leaves it out.
  const uploads = !only || only.includes('host_to_device_bytes');
  if (uploads) headCell(headRow, 'host→device bytes', 'all calls').dataset.counter = 'host_to_device_bytes';
  // A loop's body runs once per iteration and a branch only when it is taken: the cycles of
  // all of a program's calls are what it cost the run (the counters are one call's).
  const totals = !only || only.includes('cycles_all_calls');
  if (totals) headCell(headRow, 'cycles', 'all calls').dataset.counter = 'cycles_all_calls';
  for (const name of names) headCell(headRow, labelOf(name), unitOf(name)).dataset.counter = name;

  const body = document.createElement('tbody');
  for (const [i, p] of programs.entries()) {
    const row = body.insertRow();
    row.dataset.program = p.name;
    const name = textCell(row, p.name);
    name.className = 'name';
    const calls = numberCell(row, p.calls, NUMBER.format(p.calls));
    // `jax.jit(f).lower(...).compile()`: timed without values, never called.
    if (p.calls === 0) calls.title = 'compiled ahead of time and never called: the counters are one call’s, timed without values';
    if (p.untimed) {
      row.dataset.untimed = 'true';
      name.title = p.untimed;
    }
    const uploaded = p.host_to_device_bytes ?? 0;
    if (uploads) numberCell(row, uploaded, NUMBER.format(uploaded)).dataset.counter = 'host_to_device_bytes';
    if (totals) {
      const cycles = p.untimed ? undefined : flat[i].cycles;
      const cell = typeof cycles !== 'number' ? textCell(row, '–') : numberCell(row, cycles * p.calls, NUMBER.format(cycles * p.calls));
      cell.dataset.counter = 'cycles_all_calls';
    }
    for (const name of names) {
      // A program not timed yet has no counters, not zero ones.
      const value = p.untimed ? undefined : flat[i][name];
      const cell = typeof value !== 'number' ? textCell(row, '–') : numberCell(row, value, formatValue(name, value));
      cell.dataset.counter = name;
    }
  }
  if (programs.length === 0) {
    const cell = textCell(body.insertRow(), 'No programs ran.');
    cell.colSpan = 2;
    cell.className = 'empty';
  }
  table.replaceChildren(head, body);
}

/** The run's copies between host and device, in a sentence. */
export function transfersText(t: Transfers | undefined): string {
  if (!t) return '';
  const copies = (n: number) => `${NUMBER.format(n)} cop${n === 1 ? 'y' : 'ies'}`;
  const pcie = (seconds: number | undefined) =>
    seconds ? ` (${+(seconds * 1e6).toPrecision(3)} µs over PCIe)` : '';
  return `Host → device: ${NUMBER.format(t.host_to_device_bytes)} bytes in ${copies(t.host_to_device_copies)}` +
    `${pcie(t.host_to_device_seconds)}; ` +
    `device → host: ${NUMBER.format(t.device_to_host_bytes)} bytes in ${copies(t.device_to_host_copies)}` +
    `${pcie(t.device_to_host_seconds)}.`;
}

export function clearCounters(table: HTMLTableElement): void {
  table.replaceChildren();
}

function headCell(row: HTMLTableRowElement, label: string, unit: string): HTMLTableCellElement {
  const th = document.createElement('th');
  th.textContent = label;
  if (unit) {
    const small = document.createElement('span');
    small.className = 'unit';
    small.textContent = unit;
    th.append(small);
  }
  row.append(th);
  return th;
}

function textCell(row: HTMLTableRowElement, text: string): HTMLTableCellElement {
  const cell = row.insertCell();
  cell.textContent = text;
  return cell;
}

function numberCell(row: HTMLTableRowElement, value: number, text: string): HTMLTableCellElement {
  const cell = textCell(row, text);
  cell.className = 'num';
  cell.dataset.value = String(value);
  return cell;
}
