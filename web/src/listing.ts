// The assembly listing with each instruction's time: executions, busy cycles and wait cycles in
// aligned columns beside the instruction, indented by its depth in loops and branches; a
// `while` line also says how many trips its loop took and what one cost. Programs can have tens of
// thousands of instructions, so only the lines in view exist in the DOM (fixed-height rows).
// Text only (textContent), never markup.
import type { ListingLine, ProgramReport } from './protocol';

const NUMBER = new Intl.NumberFormat('en-US');
/** Pixels per line; style.css sets the same line height on `.listing-row`. */
export const LINE_HEIGHT = 20;
/** Lines rendered above and below the visible ones, so a fast scroll shows no gaps. */
const OVERSCAN = 20;
/** Characters between columns, and of indentation per loop level. */
const GAP = 2;
const INDENT = 2;
const COLUMNS = ['#', 'executions', 'busy cycles', 'wait cycles'] as const;

/** What a `while` line adds after its instruction: `12 trips × 6,058 cycles`. */
export function tripsNote(line: ListingLine): string {
  if (line.trips === undefined) return '';
  if (line.trips === 0) return 'no trips';
  const trips = `${NUMBER.format(line.trips)} ${line.trips === 1 ? 'trip' : 'trips'}`;
  return `${trips} × ${NUMBER.format(line.cycles_per_trip ?? 0)} cycles`;
}

/** An instruction's mnemonic: the first word of its listing text (`mxu.matmul`). */
export function mnemonic(text: string): string {
  return text.trim().split(/\s+/, 1)[0] ?? '';
}

export class ListingView {
  /** The whole view: the program's header lines, then the scrolling table. */
  readonly element: HTMLElement;
  /** The element that scrolls (and takes keyboard focus). */
  readonly scroller: HTMLElement;
  private readonly head: HTMLPreElement;
  private readonly inner: HTMLElement;
  private readonly body: HTMLElement;
  private lines: ListingLine[] = [];
  private window: [number, number] = [0, 0];
  private frame = 0;
  private highlighted = -1;
  /** Called with the instruction under the pointer, or null when it leaves the listing. */
  onHover: (index: number | null) => void = () => {};

  constructor() {
    this.element = document.createElement('div');
    this.element.className = 'listing';
    this.element.dataset.testid = 'listing';
    this.head = document.createElement('pre');
    this.head.className = 'listing-head';
    this.scroller = document.createElement('div');
    this.scroller.className = 'listing-scroll';
    this.scroller.tabIndex = 0;
    this.scroller.setAttribute('aria-label', 'Assembly with cycles per instruction');
    this.inner = document.createElement('div');
    this.inner.className = 'listing-inner';
    this.body = document.createElement('div');
    this.body.className = 'listing-body';
    this.scroller.append(this.inner);
    this.element.append(this.head, this.scroller);

    this.scroller.addEventListener('scroll', () => this.requestRender());
    this.body.addEventListener('mouseover', (event) => {
      const row = (event.target as Element).closest<HTMLElement>('[data-index]');
      if (row) this.onHover(Number(row.dataset.index));
    });
    this.body.addEventListener('mouseleave', () => this.onHover(null));
    new ResizeObserver(() => this.requestRender()).observe(this.scroller);
  }

  /** A program's listing; `asm` supplies the header lines (name, inputs, outputs). */
  show(program: ProgramReport | undefined): void {
    this.lines = program?.listing ?? [];
    this.highlighted = -1;
    const header = (program?.asm ?? '').split('\n').filter((l) => l.trim() !== '' && !/^\s*\d+:/.test(l));
    this.head.textContent = header.join('\n');
    this.head.hidden = header.length === 0;

    // Column widths in characters (the font is monospace), wide enough for every value.
    const widths = COLUMNS.map((title) => title.length);
    widths[0] = Math.max(widths[0], String(Math.max(0, this.lines.length - 1)).length);
    let text = 0;
    for (const line of this.lines) {
      widths[1] = Math.max(widths[1], NUMBER.format(line.executions).length);
      widths[2] = Math.max(widths[2], NUMBER.format(line.busy_cycles).length);
      widths[3] = Math.max(widths[3], NUMBER.format(line.wait_cycles).length);
      const note = tripsNote(line);
      text = Math.max(text, line.depth * INDENT + line.text.length + (note ? GAP + note.length : 0));
    }
    text = Math.max(text, 'instruction'.length);
    this.element.style.setProperty('--listing-columns', `${widths.map((w) => `${w}ch`).join(' ')} ${text}ch`);
    this.element.style.setProperty('--listing-gap', `${GAP}ch`);
    // The rows are absolutely positioned, so the content's width is set, not measured.
    this.inner.style.width = `calc(${widths.reduce((a, b) => a + b, 0) + text + GAP * COLUMNS.length}ch + 24px)`;
    this.body.style.height = `${this.lines.length * LINE_HEIGHT}px`;

    const titles = this.row([...COLUMNS, 'instruction'], 0);
    titles.className = 'listing-row listing-titles';
    titles.setAttribute('aria-hidden', 'true');
    this.inner.replaceChildren(titles, this.body);
    this.scroller.scrollTop = 0;
    this.scroller.scrollLeft = 0;
    this.window = [0, 0];
    this.render();
  }

  /** Marks one instruction's line (from the timeline), or none. */
  highlight(index: number | null): void {
    this.highlighted = index ?? -1;
    for (const row of this.body.children as HTMLCollectionOf<HTMLElement>) {
      const on = Number(row.dataset.index) === this.highlighted;
      row.classList.toggle('highlight', on);
      if (on) row.dataset.highlighted = 'true';
      else delete row.dataset.highlighted;
    }
  }

  /** Scrolls so that an instruction's line is in view, and marks it. */
  reveal(index: number): void {
    const top = index * LINE_HEIGHT;
    const view = this.scroller.clientHeight - 2 * LINE_HEIGHT; // the sticky titles cover one line
    if (top < this.scroller.scrollTop || top > this.scroller.scrollTop + view) {
      this.scroller.scrollTop = Math.max(0, top - view / 2);
    }
    this.render();
    this.highlight(index);
  }

  /** Renders again after the view was hidden (its height was unknown) or resized. */
  refresh(): void {
    this.window = [0, 0];
    this.render();
  }

  private requestRender(): void {
    if (this.frame === 0) {
      this.frame = requestAnimationFrame(() => {
        this.frame = 0;
        this.render();
      });
    }
  }

  private render(): void {
    const height = this.scroller.clientHeight || 480;
    const top = Math.max(0, this.scroller.scrollTop - LINE_HEIGHT);
    const first = Math.max(0, Math.floor(top / LINE_HEIGHT) - OVERSCAN);
    const last = Math.min(this.lines.length, Math.ceil((top + height) / LINE_HEIGHT) + OVERSCAN);
    if (first === this.window[0] && last === this.window[1]) return;
    this.window = [first, last];
    const rows: HTMLElement[] = [];
    for (let i = first; i < last; i++) {
      const line = this.lines[i];
      const row = this.row(
        [String(i), NUMBER.format(line.executions), NUMBER.format(line.busy_cycles), NUMBER.format(line.wait_cycles), line.text],
        line.depth,
      );
      row.dataset.index = String(i);
      row.dataset.unit = line.unit;
      row.style.top = `${i * LINE_HEIGHT}px`;
      const note = tripsNote(line);
      if (note) {
        const trips = document.createElement('span');
        trips.className = 'trips';
        trips.textContent = note;
        row.children[4].append(trips);
      }
      if (line.wait_cycles === 0) row.children[3].classList.add('zero');
      if (line.busy_cycles === 0) row.children[2].classList.add('zero');
      if (i === this.highlighted) {
        row.classList.add('highlight');
        row.dataset.highlighted = 'true';
      }
      rows.push(row);
    }
    this.body.replaceChildren(...rows);
  }

  private row(cells: string[], depth: number): HTMLElement {
    const row = document.createElement('div');
    row.className = 'listing-row';
    for (const [i, text] of cells.entries()) {
      const cell = document.createElement('span');
      cell.className = i < COLUMNS.length ? 'num' : 'instr';
      cell.textContent = text;
      if (i === COLUMNS.length && depth > 0) cell.style.paddingLeft = `${depth * INDENT}ch`;
      row.append(cell);
    }
    return row;
  }
}
