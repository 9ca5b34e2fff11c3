// The systolic-array view: a toy weight-stationary array, `rows × cols` processing elements (PEs),
// computing C = A·W for small integer matrices A (M×K) and W (K×N) with K = rows and N = cols
// (one fold), animated a cycle at a time. It follows `emu::systolic::trace` (docs/systolic.md):
//
// - load: W shifts down one row per cycle, its last row first, so after `rows` cycles array row i
//   holds W[i];
// - stream: A[t][i] is in PE (i, j) at stream step t + i + j (row i of the array lags i cycles,
//   column j lags j). The PE adds a·w to the partial sum PE (i−1, j) made the cycle before, and
//   the bottom row's sum leaves the array as C[t][j].
//
// So one fold takes `rows` cycles to shift the weights in, then `M + rows + cols − 2` from the
// first activation row entering to the last result leaving: `2·rows + cols + M − 2`, SCALE-Sim's
// weight-stationary fold, the MXU's cost in the timing model (docs/timing.md). The simulation
// below runs until every result has left, and the page checks that against the formula and the
// result against A·W computed directly. Numbers only reach the DOM through textContent.
import type { MachineInfo } from './protocol';

export type Matrix = number[][];

/** A value on its way through the array, with where it came from: A[t][k], or C[t][n]'s sum. */
export interface Activation {
  t: number;
  k: number;
  value: number;
}

export interface PartialSum {
  t: number;
  n: number;
  value: number;
}

export interface PeState {
  /** The row of W whose weight this PE holds (its column is the PE's), or null before loading. */
  k: number | null;
  weight: number | null;
  activation: Activation | null;
  psum: PartialSum | null;
  /** Did a multiply-accumulate this cycle. */
  mac: boolean;
}

export interface CycleState {
  /** 0-based. */
  cycle: number;
  phase: 'load' | 'stream';
  /** Load: the row of W shifting into the array's top row this cycle. */
  entering: number | null;
  /** Stream: the step since the first activation row entered. */
  step: number | null;
  /** Row-major, `rows` arrays of `cols`. */
  pes: PeState[][];
  /** The results leaving the bottom row this cycle, one per column (null where none). */
  out: (PartialSum | null)[];
}

/** One weight-stationary fold on a `rows × cols` array: `2·rows + cols + M − 2` cycles. */
export function foldCycles(rows: number, cols: number, m: number): number {
  return 2 * rows + cols + m - 2;
}

export function matmul(a: Matrix, w: Matrix): Matrix {
  return a.map((row) => w[0].map((_, n) => row.reduce((sum, x, k) => sum + x * w[k][n], 0)));
}

/**
 * Runs the array cycle by cycle until the last result has left the bottom row. `a` is M×K and
 * `w` K×N, with K the array's rows and N its columns. Returns every cycle's state and C.
 */
export function simulate(a: Matrix, w: Matrix): { cycles: CycleState[]; c: (number | null)[][] } {
  const rows = w.length;
  const cols = w[0].length;
  const m = a.length;
  const c: (number | null)[][] = a.map(() => new Array<number | null>(cols).fill(null));
  const cycles: CycleState[] = [];
  let held: (number | null)[][] = Array.from({ length: rows }, () => new Array<number | null>(cols).fill(null));

  // Load: shift down one row; W's rows enter last-first.
  for (let s = 0; s < rows; s++) {
    const entering = rows - 1 - s;
    held = [new Array<number | null>(cols).fill(entering), ...held.slice(0, rows - 1)];
    const pes = held.map((line) =>
      line.map((k, j): PeState => ({ k, weight: k === null ? null : w[k][j], activation: null, psum: null, mac: false })),
    );
    cycles.push({ cycle: cycles.length, phase: 'load', entering, step: null, pes, out: new Array(cols).fill(null) });
  }

  // Stream until all M·N results have left (bounded, in case of a bug: never more than 4× the formula).
  let left = m * cols;
  let previous: PeState[][] | null = null;
  for (let step = 0; left > 0 && step < 4 * foldCycles(rows, cols, m); step++) {
    const pes: PeState[][] = [];
    const out: (PartialSum | null)[] = new Array(cols).fill(null);
    for (let i = 0; i < rows; i++) {
      const line: PeState[] = [];
      for (let j = 0; j < cols; j++) {
        const k = held[i][j];
        const pe: PeState = { k, weight: k === null ? null : w[k][j], activation: null, psum: null, mac: false };
        const t = step - i - j;
        if (t >= 0 && t < m && k !== null) {
          pe.activation = { t, k: i, value: a[t][i] };
          // The sum from above, made last cycle for the same row of A; +0 at the top row.
          const above = i === 0 ? 0 : (previous?.[i - 1][j].psum?.value ?? 0);
          pe.psum = { t, n: j, value: above + a[t][i] * (pe.weight ?? 0) };
          pe.mac = true;
        }
        line.push(pe);
      }
      pes.push(line);
    }
    for (const [j, pe] of pes[rows - 1].entries()) {
      if (!pe.psum) continue;
      out[j] = pe.psum;
      c[pe.psum.t][j] = pe.psum.value;
      left--;
    }
    cycles.push({ cycle: cycles.length, phase: 'stream', entering: null, step, pes, out });
    previous = pes;
  }
  return { cycles, c };
}

/** Small integers, the same for the same seed (a linear congruential generator). */
export function exampleMatrix(rowsOf: number, colsOf: number, seed: number): Matrix {
  const values = [1, 2, 3, -1, 2, 1, -2, 3, 1, 0];
  let x = (seed * 2654435761) >>> 0;
  return Array.from({ length: rowsOf }, () =>
    Array.from({ length: colsOf }, () => {
      x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
      return values[(x >>> 16) % values.length];
    }),
  );
}

const SIZES = [2, 3, 4, 5, 6, 7, 8];
const MS = [1, 2, 3, 4, 5, 6, 8, 10, 12, 16];
const SPEEDS: [string, number][] = [
  ['slow', 1200],
  ['normal', 600],
  ['fast', 200],
];
const NUMBER = new Intl.NumberFormat('en-US');

export class SystolicView {
  private rows = 4;
  private cols = 4;
  private m = 4;
  private seed = 1;
  private a: Matrix = [];
  private w: Matrix = [];
  private expected: Matrix = [];
  private cycles: CycleState[] = [];
  /** Cycles done: 0 (nothing has happened) to `cycles.length`. */
  private done = 0;
  private timer: number | undefined;
  private machine: MachineInfo | undefined;

  private readonly playButton: HTMLButtonElement;
  private readonly stepButton: HTMLButtonElement;
  private readonly resetButton: HTMLButtonElement;
  private readonly speedSelect: HTMLSelectElement;
  private readonly counter: HTMLElement;
  private readonly phase: HTMLElement;
  private readonly formula: HTMLElement;
  private readonly mxu: HTMLElement;
  private readonly grid: HTMLElement;
  private readonly matrices: HTMLElement;
  private readonly check: HTMLElement;
  /** Cells updated each cycle. */
  private peCells: HTMLElement[][] = [];
  private queueCells: HTMLElement[][] = [];
  private waitCells: HTMLElement[][] = [];
  private outCells: HTMLElement[] = [];
  private aCells: HTMLElement[][] = [];
  private cCells: HTMLElement[][] = [];
  private cMarks: HTMLElement[] = [];

  constructor(private readonly root: HTMLElement) {
    const controls = el('div', 'systolic-controls');
    const rowsSelect = numberSelect('systolic-rows', SIZES, this.rows);
    const colsSelect = numberSelect('systolic-cols', SIZES, this.cols);
    const mSelect = numberSelect('systolic-m', MS, this.m);
    const onShape = () => {
      this.rows = Number(rowsSelect.value);
      this.cols = Number(colsSelect.value);
      this.m = Number(mSelect.value);
      this.rebuild();
    };
    for (const select of [rowsSelect, colsSelect, mSelect]) select.addEventListener('change', onShape);
    const shuffle = button('systolic-shuffle', 'New numbers', 'tool');
    shuffle.title = 'Other small integers for A and W';
    shuffle.addEventListener('click', () => {
      this.seed++;
      this.rebuild();
    });
    this.speedSelect = document.createElement('select');
    this.speedSelect.dataset.testid = 'systolic-speed';
    for (const [label, ms] of SPEEDS) {
      const option = document.createElement('option');
      option.value = String(ms);
      option.textContent = label;
      this.speedSelect.append(option);
    }
    this.speedSelect.value = '600';
    this.speedSelect.addEventListener('change', () => {
      if (this.timer !== undefined) this.play();
    });
    controls.append(
      labelled('Array rows (K)', rowsSelect),
      labelled('cols (N)', colsSelect),
      labelled('A rows (M)', mSelect),
      shuffle,
    );

    const player = el('div', 'systolic-player');
    this.playButton = button('systolic-play', '▶ Play', 'tool play');
    this.stepButton = button('systolic-step', 'Step', 'tool');
    this.stepButton.title = 'One cycle forward';
    this.resetButton = button('systolic-reset', 'Reset', 'tool');
    this.resetButton.title = 'Back to cycle 0';
    this.playButton.addEventListener('click', () => (this.timer === undefined ? this.play() : this.pause()));
    this.stepButton.addEventListener('click', () => {
      this.pause();
      this.step();
    });
    this.resetButton.addEventListener('click', () => {
      this.pause();
      this.done = 0;
      this.update();
    });
    this.counter = el('span', 'systolic-cycle');
    this.counter.dataset.testid = 'systolic-cycle';
    this.counter.setAttribute('aria-live', 'polite');
    player.append(this.playButton, this.stepButton, this.resetButton, labelled('Speed', this.speedSelect), this.counter);

    this.phase = el('p', 'systolic-phase');
    this.phase.dataset.testid = 'systolic-phase';
    this.formula = el('p', 'systolic-formula');
    this.formula.dataset.testid = 'systolic-formula';
    this.mxu = el('p', 'systolic-mxu');
    this.mxu.dataset.testid = 'systolic-mxu';

    const stage = el('div', 'systolic-stage');
    this.grid = el('div', 'systolic-grid');
    this.grid.setAttribute('role', 'img');
    this.matrices = el('div', 'systolic-matrices');
    stage.append(this.grid, this.matrices);
    this.check = el('p', 'systolic-check');
    this.check.dataset.testid = 'systolic-check';

    const legend = el('ul', 'systolic-legend');
    for (const [cls, label] of [
      ['w', 'weight held (W[k][n])'],
      ['a', 'activation passing right (A[m][k])'],
      ['p', 'partial sum passing down'],
      ['mac', 'did a multiply-accumulate this cycle'],
    ]) {
      const item = el('li', '');
      const swatch = el('span', `systolic-swatch ${cls}`);
      item.append(swatch, label);
      legend.append(item);
    }

    root.replaceChildren(controls, player, this.formula, this.phase, stage, legend, this.check, this.mxu);
    this.rebuild();
  }

  /** The machine of the latest run (its MXU size), or none: a 128×128 MXU. */
  setMachine(machine: MachineInfo | undefined): void {
    this.machine = machine;
    this.renderMxu();
  }

  private rebuild(): void {
    this.pause();
    this.a = exampleMatrix(this.m, this.rows, this.seed);
    this.w = exampleMatrix(this.rows, this.cols, this.seed * 7919 + 13);
    this.expected = matmul(this.a, this.w);
    const { cycles } = simulate(this.a, this.w);
    this.cycles = cycles;
    this.done = 0;
    Object.assign(this.root.dataset, { rows: this.rows, cols: this.cols, m: this.m, total: cycles.length });
    this.root.dataset.formula = String(foldCycles(this.rows, this.cols, this.m));
    this.buildGrid();
    this.buildMatrices();
    this.renderFormula();
    this.renderMxu();
    this.update();
  }

  private play(): void {
    clearInterval(this.timer);
    if (this.done >= this.cycles.length) this.done = 0;
    this.timer = window.setInterval(() => {
      this.step();
      if (this.done >= this.cycles.length) this.pause();
    }, Number(this.speedSelect.value));
    this.playButton.textContent = '❚❚ Pause';
    this.playButton.setAttribute('aria-pressed', 'true');
    this.update();
  }

  private pause(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.playButton.textContent = '▶ Play';
    this.playButton.setAttribute('aria-pressed', 'false');
  }

  private step(): void {
    if (this.done < this.cycles.length) this.done++;
    this.update();
  }

  // The array's picture, a CSS grid: the activation queue on the left (one row per array row,
  // skewed), W waiting above the PEs, the PEs, and the results leaving below them.
  private buildGrid(): void {
    const { rows, cols, m } = this;
    const queue = m + rows - 1;
    this.grid.style.setProperty('--queue', String(queue));
    this.grid.style.setProperty('--cols', String(cols));
    this.grid.style.setProperty('--rows', String(rows));
    const children: HTMLElement[] = [];
    const place = (cell: HTMLElement, row: number, col: number) => {
      cell.style.gridRow = String(row + 1);
      cell.style.gridColumn = String(col + 1);
      children.push(cell);
      return cell;
    };
    // Column layout: queue slots, then a spacer, then the PE columns.
    const peCol = (j: number) => queue + 1 + j;
    // Row layout: a caption, W waiting (rows), the PEs (rows), the results leaving.
    const waitRow = (r: number) => 1 + r;
    const peRow = (i: number) => 1 + rows + i;
    const outRow = 1 + 2 * rows;

    const wCaption = place(el('div', 'systolic-caption'), 0, queue + 1);
    wCaption.style.gridColumn = `${queue + 2} / span ${cols}`;
    wCaption.textContent = 'W shifts down, a row per cycle ↓';
    const aCaption = place(el('div', 'systolic-caption right'), waitRow(rows - 1), 0);
    aCaption.style.gridColumn = `1 / span ${queue}`;
    aCaption.textContent = 'A enters skewed, a row per cycle →';

    this.waitCells = Array.from({ length: rows }, (_, r) =>
      Array.from({ length: cols }, (_, j) => place(el('div', 'systolic-wait'), waitRow(r), peCol(j))),
    );
    this.queueCells = Array.from({ length: rows }, (_, i) =>
      Array.from({ length: queue }, (_, slot) => place(el('div', 'systolic-queue'), peRow(i), slot)),
    );
    this.peCells = Array.from({ length: rows }, (_, i) =>
      Array.from({ length: cols }, (_, j) => {
        const cell = place(el('div', 'systolic-pe'), peRow(i), peCol(j));
        cell.dataset.i = String(i);
        cell.dataset.j = String(j);
        cell.append(el('span', 'w'), el('span', 'a'), el('span', 'p'));
        return cell;
      }),
    );
    this.outCells = Array.from({ length: cols }, (_, j) => place(el('div', 'systolic-out'), outRow, peCol(j)));
    const outCaption = place(el('div', 'systolic-caption right'), outRow, 0);
    outCaption.style.gridColumn = `1 / span ${queue}`;
    outCaption.textContent = 'results leave ↓';
    this.grid.replaceChildren(...children);
    this.grid.setAttribute(
      'aria-label',
      `A ${rows}×${cols} weight-stationary systolic array computing A (${m}×${rows}) times W (${rows}×${cols})`,
    );
  }

  private buildMatrices(): void {
    const block = (title: string, testid: string, values: (number | null)[][], rowLabel: string) => {
      const figure = el('figure', 'systolic-matrix');
      const caption = el('figcaption', '');
      caption.textContent = title;
      const table = document.createElement('table');
      table.dataset.testid = testid;
      const cells = values.map((line, r) => {
        const tr = table.insertRow();
        const head = document.createElement('th');
        head.scope = 'row';
        head.textContent = `${rowLabel}${r}`;
        tr.append(head);
        return line.map((v) => {
          const td = tr.insertCell();
          if (v !== null) {
            td.textContent = String(v);
            td.dataset.value = String(v);
          }
          return td;
        });
      });
      figure.append(caption, table);
      return { figure, table, cells };
    };
    const a = block(`A  ${this.m}×${this.rows}`, 'systolic-a', this.a, 'm');
    const w = block(`W  ${this.rows}×${this.cols}`, 'systolic-w', this.w, 'k');
    const c = block(`C = A·W  ${this.m}×${this.cols}, as it leaves`, 'systolic-c', this.a.map(() => new Array(this.cols).fill(null)), 'm');
    this.aCells = a.cells;
    this.cCells = c.cells;
    this.cMarks = Array.from(c.table.rows, (tr) => {
      const mark = document.createElement('td');
      mark.className = 'mark';
      tr.append(mark);
      return mark;
    });
    const inputs = el('div', 'systolic-inputs');
    inputs.append(a.figure, w.figure);
    this.matrices.replaceChildren(inputs, c.figure);
  }

  private renderFormula(): void {
    const { rows, cols, m } = this;
    const total = foldCycles(rows, cols, m);
    const stream = m + rows + cols - 2;
    this.formula.replaceChildren(
      code('cycles = 2·rows + cols + M − 2'),
      ` = 2·${rows} + ${cols} + ${m} − 2 = ${total}: ${rows} to shift the weights in, then ${stream} = M + rows + cols − 2 ` +
        'from the first activation row entering to the last result leaving (SCALE-Sim’s weight-stationary fold, as in ',
      code('tpu systolic'),
      ').',
    );
    this.formula.dataset.total = String(total);
  }

  private renderMxu(): void {
    const rows = this.machine?.mxu_rows ?? 128;
    const cols = this.machine?.mxu_cols ?? 128;
    const fixed = 2 * rows + cols - 2;
    const m = this.m;
    const total = fixed + m;
    const who = this.machine
      ? `TPU ${this.machine.name}’s MXU is ${rows}×${cols} (${this.machine.mxus_per_core} per core)`
      : 'A TPU’s MXU is 128×128 on most machines (run a script to see the chosen machine’s)';
    this.mxu.textContent =
      `The real thing: ${who}. One weight tile there takes 2·${rows} + ${cols} + M − 2 = ${NUMBER.format(fixed)} + M cycles, ` +
      `so the M = ${m} row${m === 1 ? '' : 's'} here would keep it busy ${NUMBER.format(total)} cycles, only ${m} of them streaming rows. ` +
      'The more rows share one weight tile (a bigger batch), the smaller the share of loading, fill and drain.';
    this.mxu.dataset.rows = String(rows);
    this.mxu.dataset.cols = String(cols);
  }

  private update(): void {
    const { rows, cols, m } = this;
    const total = this.cycles.length;
    const state = this.done > 0 ? this.cycles[this.done - 1] : null;
    const finished = this.done >= total;
    this.root.dataset.cycle = String(this.done);
    this.root.dataset.finished = String(finished);
    this.counter.textContent = `cycle ${this.done} of ${total}`;
    this.stepButton.disabled = finished;

    // W waiting above: the rows not shifted in yet slide down one row per cycle.
    const shifted = Math.min(this.done, rows);
    for (let r = 0; r < rows; r++) {
      for (let j = 0; j < cols; j++) {
        const k = r - shifted;
        const cell = this.waitCells[r][j];
        setNumber(cell, k >= 0 ? this.w[k][j] : null);
        cell.classList.toggle('next', k >= 0 && k === rows - 1 - shifted && !finished);
      }
    }

    // The activation queue: A[t][i] enters PE (i, 0) at stream step t + i; slot `queue − d`
    // holds the one entering `d` cycles from now (the queue waits while the weights load).
    const streamed = Math.max(0, this.done - rows);
    const queue = m + rows - 1;
    for (let i = 0; i < rows; i++) {
      for (let slot = 0; slot < queue; slot++) {
        const d = queue - slot;
        const t = streamed + d - 1 - i;
        setNumber(this.queueCells[i][slot], t >= 0 && t < m ? this.a[t][i] : null);
      }
    }

    // The PEs.
    const inArray = new Set<string>();
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        const pe = state?.pes[i][j];
        const cell = this.peCells[i][j];
        const [w, a, p] = cell.children as unknown as HTMLElement[];
        w.textContent = pe?.weight != null ? `w ${pe.weight}` : '';
        a.textContent = pe?.activation ? `a ${pe.activation.value}` : '';
        p.textContent = pe?.psum ? `Σ ${pe.psum.value}` : '';
        cell.dataset.weight = pe?.weight != null ? String(pe.weight) : '';
        cell.dataset.psum = pe?.psum ? String(pe.psum.value) : '';
        cell.classList.toggle('loaded', pe?.weight != null);
        cell.classList.toggle('mac', pe?.mac ?? false);
        cell.classList.toggle('entering', state?.phase === 'load' && i === 0);
        if (pe?.activation) inArray.add(`${pe.activation.t},${pe.activation.k}`);
        cell.title = peTitle(i, j, pe);
      }
    }
    for (let j = 0; j < cols; j++) {
      const out = state?.out[j] ?? null;
      setNumber(this.outCells[j], out ? out.value : null);
      this.outCells[j].title = out ? `C[${out.t}][${out.n}] = ${out.value} leaves the array` : '';
    }

    // A's cells in the array now; C as far as it has left the array, a row checked when complete.
    for (let t = 0; t < m; t++) for (let k = 0; k < rows; k++) this.aCells[t][k].classList.toggle('live', inArray.has(`${t},${k}`));
    const c: (number | null)[][] = this.a.map(() => new Array(cols).fill(null));
    for (const s of this.cycles.slice(0, this.done)) for (const o of s.out) if (o) c[o.t][o.n] = o.value;
    let rowsDone = 0;
    let allMatch = true;
    for (let t = 0; t < m; t++) {
      for (let n = 0; n < cols; n++) {
        const cell = this.cCells[t][n];
        setNumber(cell, c[t][n]);
        cell.classList.toggle('fresh', state?.out[n]?.t === t);
      }
      const complete = c[t].every((v) => v !== null);
      const match = complete && c[t].every((v, n) => v === this.expected[t][n]);
      allMatch &&= match;
      if (complete) rowsDone++;
      this.cMarks[t].textContent = complete ? (match ? '✓' : '✗') : '';
      this.cMarks[t].classList.toggle('bad', complete && !match);
      this.cMarks[t].title = complete ? `row ${t} ${match ? 'equals' : 'differs from'} A·W computed directly` : '';
    }

    this.phase.textContent = phaseText(state, rows, total, finished);
    const formulaTotal = foldCycles(rows, cols, m);
    if (finished) {
      const ok = allMatch && total === formulaTotal;
      this.check.textContent = ok
        ? `Done in ${total} cycles, as the formula says, and C equals A·W computed directly ✓`
        : `Mismatch: ${total} cycles (formula: ${formulaTotal}); C ${allMatch ? 'equals' : 'differs from'} A·W`;
      this.check.dataset.ok = String(ok);
    } else {
      this.check.textContent = `${rowsDone} of ${m} rows of C complete.`;
      delete this.check.dataset.ok;
    }
  }
}

function phaseText(state: CycleState | null, rows: number, total: number, finished: boolean): string {
  if (!state) return `Cycle 0: the array is empty. First the weights shift in, one row of W per cycle (${rows} cycles).`;
  if (state.phase === 'load') {
    const left = rows - 1 - state.cycle;
    return `Loading weights: W row ${state.entering} shifted into the top row, the rows below moved down` +
      (left > 0 ? ` (${left} more to go).` : '; every PE now holds its weight.');
  }
  const leaving = state.out.filter((o) => o !== null) as PartialSum[];
  const macs = state.pes.flat().filter((pe) => pe.mac).length;
  const parts = [`Streaming, step ${state.step}: ${macs} PE${macs === 1 ? '' : 's'} multiply-accumulate`];
  if (leaving.length > 0) parts.push(`${leaving.map((o) => `C[${o.t}][${o.n}] = ${o.value}`).join(', ')} ${leaving.length === 1 ? 'leaves' : 'leave'} the array`);
  const text = parts.join('; ') + '.';
  return finished ? `${text} The last result has left after ${total} cycles.` : text;
}

function peTitle(i: number, j: number, pe: PeState | undefined): string {
  const lines = [`PE (${i}, ${j})`];
  if (pe?.k != null) lines.push(`holds W[${pe.k}][${j}] = ${pe.weight}`);
  if (pe?.activation) lines.push(`A[${pe.activation.t}][${pe.activation.k}] = ${pe.activation.value} passing right`);
  if (pe?.psum) lines.push(`partial sum of C[${pe.psum.t}][${pe.psum.n}] = ${pe.psum.value} passing down`);
  return lines.join('\n');
}

function setNumber(cell: HTMLElement, value: number | null): void {
  cell.textContent = value === null ? '' : String(value);
  if (value === null) delete cell.dataset.value;
  else cell.dataset.value = String(value);
  cell.classList.toggle('empty', value === null);
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className: string): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (className) element.className = className;
  return element;
}

function button(testid: string, label: string, className: string): HTMLButtonElement {
  const b = el('button', className);
  b.type = 'button';
  b.dataset.testid = testid;
  b.textContent = label;
  return b;
}

function numberSelect(testid: string, values: number[], selected: number): HTMLSelectElement {
  const select = document.createElement('select');
  select.dataset.testid = testid;
  for (const v of values) {
    const option = document.createElement('option');
    option.value = option.textContent = String(v);
    select.append(option);
  }
  select.value = String(selected);
  return select;
}

function labelled(text: string, control: HTMLElement): HTMLLabelElement {
  const label = el('label', 'choice');
  label.append(text, control);
  return label;
}

function code(text: string): HTMLElement {
  const c = el('code', '');
  c.textContent = text;
  return c;
}
