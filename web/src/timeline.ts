// The timeline of one call of a program: a row per unit (scalar, the two DMA queues, each MXU,
// vector, XLU), each operation a rectangle from its start cycle to its end cycle, coloured by
// unit. Drawn on a <canvas>: up to 20,000 spans redraw in well under a frame, and spans narrower
// than a pixel merge into one rectangle. The wheel (or −/+) zooms around the pointer, dragging
// pans; hovering a span names its instruction, clicking it shows that line of the listing.
// Each trip of a `while` loop is marked where its test began it: a tick on the cycle axis
// (hovering it names the trip) and a faint line down through the tracks.
import { formatValue } from './counters';
import { mnemonic } from './listing';
import type { ListingLine, MachineInfo, ProgramReport, Unit } from './protocol';

/** Pixels per track, and of the cycle axis above the tracks. */
const ROW = 22;
const AXIS = 24;
/** The narrowest view, in cycles. */
const MIN_VIEW = 8;
const NUMBER = new Intl.NumberFormat('en-US');

/** Where in its row a span is drawn: MXU rows show the weight shifter above the row stream. */
type Lane = 'full' | 'weights' | 'stream';

interface Group {
  unit: Unit;
  lane: Lane;
  /** Span indices, sorted by start cycle. */
  spans: number[];
}

export interface TimelineControls {
  zoomIn: HTMLButtonElement;
  zoomOut: HTMLButtonElement;
  fit: HTMLButtonElement;
  /** Says when the timeline holds only the program's first operations. */
  note: HTMLElement;
}

export const UNIT_LABELS: Record<Unit, string> = {
  scalar: 'scalar',
  dma: 'DMA',
  mxu: 'MXU',
  vector: 'vector',
  xlu: 'XLU',
};

export class TimelineView {
  private spans: [number, number, number, number][] = [];
  /** Loop trips, `[while instruction, start, end]` by start, and each one's number in its loop. */
  private trips: [number, number, number][] = [];
  private tripNumbers: number[] = [];
  private listing: ListingLine[] = [];
  private tracks: string[] = [];
  private groups: Group[][] = [];
  private byInstr = new Map<number, number[]>();
  private clockHz = 0;
  private total = 1;
  private view0 = 0;
  private view1 = 1;
  private highlighted = -1;
  private hovered = -1;
  private frame = 0;
  private drag: { x: number; view0: number; moved: boolean } | null = null;
  private readonly labels: HTMLElement;
  private readonly plot: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly tip: HTMLElement;
  private readonly empty: HTMLElement;
  /** Called with the instruction of the span under the pointer, or null. */
  onHover: (instruction: number | null) => void = () => {};
  /** Called with the instruction of a clicked span. */
  onPick: (instruction: number) => void = () => {};

  constructor(
    private readonly root: HTMLElement,
    private readonly controls: TimelineControls,
  ) {
    this.labels = element('div', 'timeline-labels');
    this.plot = element('div', 'timeline-plot');
    this.canvas = element('canvas', 'timeline-canvas');
    this.canvas.tabIndex = 0;
    this.canvas.setAttribute('role', 'img');
    this.tip = element('div', 'timeline-tip');
    this.tip.hidden = true;
    this.tip.setAttribute('role', 'tooltip');
    this.empty = element('p', 'timeline-empty');
    this.empty.textContent = 'Run a script to see when each operation of a program ran.';
    this.plot.append(this.canvas, this.tip);
    const legend = element('ul', 'timeline-legend');
    const entries: [string, string][] = [
      ['scalar', 'scalar'],
      ['dma', 'DMA'],
      ['mxu', 'MXU: row stream'],
      ['mxu weights', 'MXU: weight shift'],
      ['vector', 'vector'],
      ['xlu', 'XLU'],
      ['trip', 'loop trip'],
    ];
    for (const [unit, label] of entries) {
      const item = element('li', '');
      const swatch = element('span', 'swatch');
      swatch.dataset.unit = unit;
      item.append(swatch, label);
      legend.append(item);
    }
    const body = element('div', 'timeline-body');
    body.append(this.labels, this.plot);
    root.replaceChildren(this.empty, body, legend);

    controls.zoomIn.addEventListener('click', () => this.zoomAt((this.view0 + this.view1) / 2, 0.5));
    controls.zoomOut.addEventListener('click', () => this.zoomAt((this.view0 + this.view1) / 2, 2));
    controls.fit.addEventListener('click', () => this.setView(0, this.total));
    this.canvas.addEventListener('wheel', (e) => this.wheel(e), { passive: false });
    this.canvas.addEventListener('pointerdown', (e) => this.pointerDown(e));
    this.canvas.addEventListener('pointermove', (e) => this.pointerMove(e));
    this.canvas.addEventListener('pointerup', (e) => this.pointerUp(e));
    this.canvas.addEventListener('pointercancel', () => (this.drag = null));
    this.canvas.addEventListener('pointerleave', () => {
      if (!this.drag) this.hover(-1, 0, 0);
    });
    this.canvas.addEventListener('keydown', (e) => this.key(e));
    new ResizeObserver(() => this.requestDraw()).observe(this.plot);
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => this.requestDraw());
    this.show(undefined, undefined);
  }

  show(program: ProgramReport | undefined, machine: MachineInfo | undefined): void {
    const timeline = program?.timeline;
    this.spans = timeline?.spans ?? [];
    this.listing = program?.listing ?? [];
    // The engine lists the trips by start.
    this.trips = timeline?.trips ?? [];
    this.tripNumbers = tripNumbers(this.trips);
    this.tracks = timeline?.tracks ?? [];
    this.clockHz = machine?.clock_hz ?? 0;
    this.highlighted = -1;
    this.hovered = -1;
    this.tip.hidden = true;

    // Index the spans by track and drawing style, and by instruction (for highlighting).
    this.groups = this.tracks.map(() => []);
    this.byInstr = new Map();
    let end = program?.counters.cycles ?? 0;
    for (const [i, [instr, track, , stop]] of this.spans.entries()) {
      end = Math.max(end, stop);
      const unit = this.listing[instr]?.unit ?? unitOfTrack(this.tracks[track] ?? '');
      const weights = mnemonic(this.listing[instr]?.text ?? '') === 'mxu.weights';
      const lane: Lane = unit !== 'mxu' ? 'full' : weights ? 'weights' : 'stream';
      const groups = this.groups[track];
      if (!groups) continue;
      let group = groups.find((g) => g.unit === unit && g.lane === lane);
      if (!group) groups.push((group = { unit, lane, spans: [] }));
      group.spans.push(i);
      const list = this.byInstr.get(instr);
      if (list) list.push(i);
      else this.byInstr.set(instr, [i]);
    }
    for (const groups of this.groups) for (const g of groups) g.spans.sort((a, b) => this.spans[a][2] - this.spans[b][2]);
    this.total = Math.max(1, end);

    const labels: HTMLElement[] = [element('div', 'timeline-axis-label')];
    labels[0].textContent = 'cycle';
    labels[0].style.height = `${AXIS}px`;
    for (const name of this.tracks) {
      const label = element('div', 'timeline-track');
      label.dataset.track = name;
      label.style.height = `${ROW}px`;
      label.textContent = name;
      labels.push(label);
    }
    this.labels.replaceChildren(...labels);

    const shown = program !== undefined && this.tracks.length > 0;
    this.empty.hidden = shown;
    this.labels.parentElement!.hidden = !shown;
    this.root.dataset.tracks = String(this.tracks.length);
    this.root.dataset.spans = String(this.spans.length);
    this.root.dataset.highlighted = '0';
    for (const b of [this.controls.zoomIn, this.controls.zoomOut, this.controls.fit]) b.disabled = this.spans.length === 0;

    const operations = program?.counters.operations;
    const note = this.controls.note;
    if (timeline?.truncated) {
      const command = element('code', '');
      command.textContent = 'tpu run --trace FILE';
      const total = typeof operations === 'number' ? ` (the program runs ${NUMBER.format(operations)} operations)` : '';
      const first = `Showing only the first ${NUMBER.format(this.spans.length)} spans${total}; `;
      note.replaceChildren(first, command, ' writes them all.');
    } else if (program && this.spans.length === 0) {
      note.textContent = `No operation of ${program.name} takes time on a unit.`;
    } else {
      note.textContent = '';
    }
    this.controls.note.hidden = this.controls.note.textContent === '';
    this.canvas.setAttribute(
      'aria-label',
      program ? `Timeline of ${program.name}: ${this.spans.length} operations over ${NUMBER.format(this.total)} cycles` : 'Timeline',
    );
    this.view0 = 0;
    this.view1 = this.total;
    this.draw();
  }

  /** Highlights every span of one instruction (from the listing), or none. */
  highlight(instruction: number | null): void {
    this.highlighted = instruction ?? -1;
    this.root.dataset.highlighted = String(this.byInstr.get(this.highlighted)?.length ?? 0);
    this.draw();
  }

  private setView(view0: number, view1: number): void {
    let span = Math.min(this.total, Math.max(MIN_VIEW, view1 - view0));
    if (!(span > 0)) span = this.total;
    let start = Math.min(Math.max(0, view0), this.total - span);
    if (!Number.isFinite(start)) start = 0;
    this.view0 = start;
    this.view1 = start + span;
    this.requestDraw();
  }

  /** Zooms by `factor` (below 1 zooms in) keeping `cycle` where it is on screen. */
  private zoomAt(cycle: number, factor: number): void {
    const span = this.view1 - this.view0;
    const next = Math.min(this.total, Math.max(MIN_VIEW, span * factor));
    const start = cycle - ((cycle - this.view0) * next) / span;
    this.setView(start, start + next);
  }

  private cyclesPerPixel(): number {
    return (this.view1 - this.view0) / Math.max(1, this.plot.clientWidth);
  }

  private wheel(e: WheelEvent): void {
    if (this.spans.length === 0) return;
    e.preventDefault();
    const scale = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
    const dx = e.deltaX * scale;
    const dy = e.deltaY * scale;
    if (e.shiftKey || Math.abs(dx) > Math.abs(dy)) {
      const pan = (Math.abs(dx) > Math.abs(dy) ? dx : dy) * this.cyclesPerPixel();
      this.setView(this.view0 + pan, this.view1 + pan);
    } else {
      const cycle = this.view0 + e.offsetX * this.cyclesPerPixel();
      this.zoomAt(cycle, Math.exp(dy * 0.002));
    }
  }

  private pointerDown(e: PointerEvent): void {
    if (e.button !== 0) return;
    this.drag = { x: e.clientX, view0: this.view0, moved: false };
    this.canvas.setPointerCapture(e.pointerId);
  }

  private pointerMove(e: PointerEvent): void {
    if (this.drag) {
      const dx = e.clientX - this.drag.x;
      if (Math.abs(dx) > 3) this.drag.moved = true;
      if (this.drag.moved) {
        const span = this.view1 - this.view0;
        const start = this.drag.view0 - dx * this.cyclesPerPixel();
        this.canvas.classList.add('dragging');
        this.hover(-1, 0, 0);
        this.setView(start, start + span);
        return;
      }
    }
    const trip = e.offsetY < AXIS ? this.tripAt(e.offsetX) : -1;
    if (trip >= 0) {
      this.hover(-1, 0, 0);
      this.hoverTrip(trip, e.offsetX, e.offsetY);
      return;
    }
    this.hover(this.spanAt(e.offsetX, e.offsetY), e.offsetX, e.offsetY);
  }

  /** The loop trip whose mark is within a few pixels of `x`, or -1. */
  private tripAt(x: number): number {
    const perPixel = this.cyclesPerPixel();
    const cycle = this.view0 + x * perPixel;
    let best = -1;
    for (const [i, [, start]] of this.trips.entries()) {
      if (Math.abs(start - cycle) > 4 * perPixel) continue;
      if (best < 0 || Math.abs(start - cycle) < Math.abs(this.trips[best][1] - cycle)) best = i;
    }
    return best;
  }

  private hoverTrip(trip: number, x: number, y: number): void {
    const [instr, start, end] = this.trips[trip];
    const time = this.clockHz > 0 ? `, ${formatValue('seconds', (end - start) / this.clockHz)}` : '';
    this.tip.textContent =
      `trip ${NUMBER.format(this.tripNumbers[trip])} of the loop at ${instr}: ${this.listing[instr]?.text ?? 'while'}\n` +
      `cycles ${NUMBER.format(start)}–${NUMBER.format(end)} (${NUMBER.format(end - start)} cycles${time})`;
    this.tip.hidden = false;
    this.onHover(instr);
    this.placeTip(x, y);
  }

  /** The tooltip beside the pointer, flipped to its left near the right edge. */
  private placeTip(x: number, y: number): void {
    const tipWidth = this.tip.offsetWidth;
    const left = x + 14 + tipWidth > this.plot.clientWidth ? Math.max(0, x - 14 - tipWidth) : x + 14;
    this.tip.style.left = `${left}px`;
    this.tip.style.top = `${y + 14}px`;
  }

  private pointerUp(e: PointerEvent): void {
    const drag = this.drag;
    this.drag = null;
    this.canvas.classList.remove('dragging');
    if (drag && !drag.moved) {
      const span = this.spanAt(e.offsetX, e.offsetY);
      if (span >= 0) this.onPick(this.spans[span][0]);
    }
  }

  private key(e: KeyboardEvent): void {
    const middle = (this.view0 + this.view1) / 2;
    const span = this.view1 - this.view0;
    if (e.key === '+' || e.key === '=') this.zoomAt(middle, 0.5);
    else if (e.key === '-' || e.key === '_') this.zoomAt(middle, 2);
    else if (e.key === '0') this.setView(0, this.total);
    else if (e.key === 'ArrowLeft') this.setView(this.view0 - span / 10, this.view1 - span / 10);
    else if (e.key === 'ArrowRight') this.setView(this.view0 + span / 10, this.view1 + span / 10);
    else return;
    e.preventDefault();
  }

  /** The span under a point of the canvas (within a few pixels), or -1. */
  private spanAt(x: number, y: number): number {
    const row = Math.floor((y - AXIS) / ROW);
    const groups = this.groups[row];
    if (!groups) return -1;
    const inRow = (y - AXIS - row * ROW) / ROW;
    const perPixel = this.cyclesPerPixel();
    const cycle = this.view0 + x * perPixel;
    const slack = 3 * perPixel;
    let best = -1;
    let bestDistance = Infinity;
    for (const g of groups) {
      if (g.lane === 'weights' && inRow > 0.5) continue;
      if (g.lane === 'stream' && inRow < 0.4 && groups.some((o) => o.lane === 'weights')) continue;
      for (const i of g.spans) {
        const [, , start, end] = this.spans[i];
        if (end < cycle - slack || start > cycle + slack) continue;
        const distance = cycle < start ? start - cycle : cycle > end ? cycle - end : 0;
        // Inside two spans, the shorter one is the one the eye picks.
        const shorter = best >= 0 && end - start < this.spans[best][3] - this.spans[best][2];
        const better = distance < bestDistance || (distance === bestDistance && shorter);
        if (better) {
          best = i;
          bestDistance = distance;
        }
      }
    }
    return best;
  }

  private hover(span: number, x: number, y: number): void {
    const changed = span !== this.hovered;
    this.hovered = span;
    if (span < 0) {
      this.tip.hidden = true;
      if (changed) {
        this.onHover(null);
        this.requestDraw();
      }
      return;
    }
    const [instr, track, start, end] = this.spans[span];
    if (changed) {
      const line = this.listing[instr];
      const time = this.clockHz > 0 ? `, ${formatValue('seconds', (end - start) / this.clockHz)}` : '';
      this.tip.textContent =
        `${instr}: ${line?.text ?? '?'}\n` +
        `${this.tracks[track]} · cycles ${NUMBER.format(start)}–${NUMBER.format(end)} (${NUMBER.format(end - start)} cycles${time})`;
      this.tip.hidden = false;
      this.onHover(instr);
      this.requestDraw();
    }
    this.placeTip(x, y);
  }

  private requestDraw(): void {
    if (this.frame === 0) {
      this.frame = requestAnimationFrame(() => {
        this.frame = 0;
        this.draw();
      });
    }
  }

  private draw(): void {
    const width = this.plot.clientWidth;
    const height = AXIS + this.tracks.length * ROW;
    const dpr = window.devicePixelRatio || 1;
    if (this.canvas.width !== Math.round(width * dpr) || this.canvas.height !== Math.round(height * dpr)) {
      this.canvas.width = Math.round(width * dpr);
      this.canvas.height = Math.round(height * dpr);
      this.canvas.style.height = `${height}px`;
    }
    this.root.dataset.viewStart = String(Math.round(this.view0));
    this.root.dataset.viewEnd = String(Math.round(this.view1));
    const ctx = this.canvas.getContext('2d');
    if (!ctx || width === 0) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    const css = getComputedStyle(this.root);
    const color = (name: string) => css.getPropertyValue(name).trim() || '#888';

    for (let r = 1; r < this.tracks.length; r += 2) {
      ctx.fillStyle = color('--timeline-stripe');
      ctx.fillRect(0, AXIS + r * ROW, width, ROW);
    }

    // The cycle axis: round numbers, a faint line down through the tracks at each.
    const k = width / (this.view1 - this.view0);
    const step = niceStep((this.view1 - this.view0) / Math.max(1, width / 110));
    ctx.font = `11px ${css.getPropertyValue('--mono')}`;
    ctx.textBaseline = 'middle';
    for (let c = Math.ceil(this.view0 / step) * step; c <= this.view1; c += step) {
      const x = Math.round((c - this.view0) * k) + 0.5;
      ctx.fillStyle = color('--border');
      ctx.fillRect(x - 0.5, AXIS - 6, 1, height - AXIS + 6);
      const label = cycleLabel(c, step);
      ctx.fillStyle = color('--muted');
      if (x + 3 + ctx.measureText(label).width <= width) ctx.fillText(label, x + 3, AXIS / 2);
    }
    ctx.fillStyle = color('--border');
    ctx.fillRect(0, AXIS - 1, width, 1);

    // Loop trips: a tick on the axis and a dashed line through the tracks where each began,
    // an outermost loop's taller and darker than a nested one's (marks closer than 3 pixels
    // to the last one drawn are left out).
    ctx.fillStyle = color('--timeline-trip');
    ctx.strokeStyle = color('--timeline-trip');
    ctx.lineWidth = 1;
    ctx.setLineDash([3, 3]);
    let marked = 0;
    let lastMark = -Infinity;
    for (const [instr, start] of this.trips) {
      if (start < this.view0 || start > this.view1) continue;
      const x = Math.round((start - this.view0) * k) + 0.5;
      if (x - lastMark < 3) continue;
      lastMark = x;
      marked++;
      const outermost = (this.listing[instr]?.depth ?? 0) === 0;
      ctx.globalAlpha = 1;
      ctx.fillRect(x - 1, AXIS - (outermost ? 10 : 6), 2, outermost ? 10 : 6);
      ctx.globalAlpha = outermost ? 0.6 : 0.3;
      ctx.beginPath();
      ctx.moveTo(x, AXIS);
      ctx.lineTo(x, height);
      ctx.stroke();
    }
    ctx.setLineDash([]);
    ctx.globalAlpha = 1;
    this.root.dataset.trips = String(marked);

    // The spans, one colour per group; neighbours closer than half a pixel become one rectangle.
    let drawn = 0;
    for (const [row, groups] of this.groups.entries()) {
      for (const g of groups) {
        const [y, h] = lane(row, g.lane);
        ctx.fillStyle = color(`--unit-${g.unit}`);
        ctx.globalAlpha = g.lane === 'weights' ? 0.55 : 1;
        let x0 = NaN;
        let x1 = NaN;
        for (const i of g.spans) {
          const s = this.spans[i];
          if (s[3] < this.view0 || s[2] > this.view1) continue;
          drawn++;
          const a = (s[2] - this.view0) * k;
          const b = Math.max((s[3] - this.view0) * k, a + 1);
          if (a <= x1 + 0.5) {
            x1 = Math.max(x1, b);
            continue;
          }
          if (!Number.isNaN(x1)) ctx.fillRect(x0, y, x1 - x0, h);
          x0 = a;
          x1 = b;
        }
        if (!Number.isNaN(x1)) ctx.fillRect(x0, y, x1 - x0, h);
      }
    }
    ctx.globalAlpha = 1;
    this.root.dataset.drawn = String(drawn);

    // The highlighted instruction's spans over everything, then the one under the pointer.
    const outline = (i: number, fill: string | null) => {
      const [, track, start, end] = this.spans[i];
      const a = (start - this.view0) * k;
      const w = Math.max(2, (end - start) * k);
      const y = AXIS + track * ROW + 1.5;
      if (fill) {
        ctx.fillStyle = fill;
        ctx.fillRect(a, y, w, ROW - 3);
      }
      ctx.strokeStyle = color('--text');
      ctx.lineWidth = 1;
      ctx.strokeRect(a, y, w, ROW - 3);
    };
    for (const i of this.byInstr.get(this.highlighted) ?? []) outline(i, color('--timeline-highlight'));
    if (this.hovered >= 0) outline(this.hovered, null);
  }
}

/** Each trip's number among its loop's trips, from 1 (`trips` by start). */
export function tripNumbers(trips: [number, number, number][]): number[] {
  const counted = new Map<number, number>();
  return trips.map(([instr]) => {
    const n = (counted.get(instr) ?? 0) + 1;
    counted.set(instr, n);
    return n;
  });
}

/** The y and height of a lane of a row. */
function lane(row: number, which: Lane): [number, number] {
  const top = AXIS + row * ROW;
  if (which === 'weights') return [top + 3, 6];
  if (which === 'stream') return [top + 10, ROW - 13];
  return [top + 4, ROW - 8];
}

function unitOfTrack(track: string): Unit {
  if (track.startsWith('dma')) return 'dma';
  if (track.startsWith('mxu')) return 'mxu';
  return track === 'vector' || track === 'xlu' ? track : 'scalar';
}

/** 1, 2 or 5 times a power of ten, at least `raw` (and at least 1 cycle). */
export function niceStep(raw: number): number {
  if (!(raw > 1)) return 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * power >= raw) return m * power;
  return 10 * power;
}

function cycleLabel(cycle: number, step: number): string {
  if (cycle === 0) return '0';
  if (step >= 1e6 && cycle % 1e6 === 0) return `${NUMBER.format(cycle / 1e6)}M`;
  if (step >= 1e3 && cycle % 1e3 === 0) return `${NUMBER.format(cycle / 1e3)}k`;
  return NUMBER.format(cycle);
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className: string): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (className) el.className = className;
  return el;
}
