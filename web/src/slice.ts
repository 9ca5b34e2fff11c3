// The slice view: what a mapped call (`jax.pmap`) did on the emulated slice's chips. A grid of
// the chips as the torus lays them out (each with how busy its compute was), the ICI links
// between them coloured by the bytes they carried, a two-lane timeline of one call (the chips'
// programs, the collectives on the links, overlapping where the program allows) and the
// steps as a table. Hidden until a run reports a mapped call.
import type { MachineInfo, MappedReport, MappedStep } from './protocol';
import { si } from './roofline';

const SVG = 'http://www.w3.org/2000/svg';
const CELL = 92;
const CHIP = 58;
const PAD = 24;
const LANE = 26;
const NUMBER = new Intl.NumberFormat('en-US');

function svgElement<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

function microseconds(cycles: number, machine: MachineInfo): string {
  return `${+((cycles / machine.clock_hz) * 1e6).toPrecision(3)} µs`;
}

/** One sentence on a call: its time, how much of it is compute, and what the links hid. */
export function sliceSummary(m: MappedReport, machine: MachineInfo): string {
  const us = (c: number) => microseconds(c, machine);
  const hidden = m.collective_cycles - m.exposed_collective_cycles;
  const calls = m.calls === 1 ? 'once' : `${NUMBER.format(m.calls)} times`;
  return (
    `${m.name} on ${m.chips} chip${m.chips === 1 ? '' : 's'} of ${machine.name}, called ${calls}: ` +
    `one call takes ${us(m.cycles)} = ${us(m.compute_cycles)} of compute on each chip + ` +
    `${us(m.exposed_collective_cycles)} of exposed collectives ` +
    `(${us(m.collective_cycles)} on the links, ${us(hidden)} of it hidden behind compute); ` +
    `${si(m.ici_bytes_sent)}B crossed ICI links.`
  );
}

/** A chip's coordinates in a slice of `dims` chips per axis, counted x fastest. */
export function chipCoords(dims: number[], chip: number): number[] {
  return dims.map((n) => {
    const c = chip % n;
    chip = Math.floor(chip / n);
    return c;
  });
}

export class SliceView {
  private readonly select: HTMLSelectElement;
  private readonly caption: HTMLElement;
  private readonly grid: SVGSVGElement;
  private readonly lanes: SVGSVGElement;
  private readonly table: HTMLTableElement;
  private calls: MappedReport[] = [];
  private machine: MachineInfo | undefined;

  constructor(private readonly root: HTMLElement) {
    this.select = document.createElement('select');
    this.select.dataset.testid = 'slice-call';
    this.select.setAttribute('aria-label', 'Mapped call');
    this.select.addEventListener('change', () => this.draw());
    this.caption = document.createElement('p');
    this.caption.className = 'chart-caption';
    this.caption.dataset.testid = 'slice-summary';
    this.grid = svgElement('svg', { role: 'img', class: 'slice-grid', 'data-testid': 'slice-grid' });
    this.lanes = svgElement('svg', { role: 'img', class: 'slice-lanes', 'data-testid': 'slice-lanes' });
    this.table = document.createElement('table');
    this.table.className = 'counters slice-steps';
    this.table.dataset.testid = 'slice-steps';
    const scroll = document.createElement('div');
    scroll.className = 'table-scroll';
    scroll.append(this.table);
    root.append(this.select, this.caption, this.grid, this.lanes, scroll);
    this.show([], undefined);
  }

  show(calls: MappedReport[], machine: MachineInfo | undefined): void {
    this.calls = calls;
    this.machine = machine;
    this.root.hidden = calls.length === 0 || !machine;
    this.select.replaceChildren(
      ...calls.map((m, i) => {
        const option = document.createElement('option');
        option.value = String(i);
        option.textContent = `${m.name} (${m.chips} chips)`;
        return option;
      }),
    );
    this.select.hidden = calls.length < 2;
    this.draw();
  }

  private draw(): void {
    const m = this.calls[Number(this.select.value) || 0];
    const machine = this.machine;
    this.grid.replaceChildren();
    this.lanes.replaceChildren();
    this.table.replaceChildren();
    if (!m || !machine) return;
    this.caption.textContent = sliceSummary(m, machine);
    this.drawGrid(m, machine);
    this.drawLanes(m, machine);
    this.drawTable(m, machine);
  }

  /** The chips on the torus's first two axes (a 3D slice's layers side by side). */
  private drawGrid(m: MappedReport, machine: MachineInfo): void {
    const dims = (machine.topology as number[] | undefined) ?? [1, 1];
    const wrap = (machine.wraparound as boolean[] | undefined) ?? [];
    const chips = dims.reduce((a, b) => a * b, 1);
    const [nx, ny = 1] = dims;
    const layers = chips / (nx * ny);
    const at = (chip: number) => {
      const [x, y = 0, z = 0] = chipCoords(dims, chip);
      return { cx: PAD + (z * nx + x) * CELL + CELL / 2, cy: PAD + y * CELL + CELL / 2 };
    };
    const width = PAD * 2 + nx * layers * CELL;
    const height = PAD * 2 + ny * CELL;
    this.grid.setAttribute('viewBox', `0 0 ${width} ${height}`);
    this.grid.setAttribute('width', String(width));
    this.grid.setAttribute(
      'aria-label',
      `${machine.name}: ${chips} chips as ${dims.join('x')}${wrap.some(Boolean) ? ', with wraparound' : ''}`,
    );
    // Links, both directions of a pair summed; the busiest is darkest.
    const pairs = new Map<string, { a: number; b: number; bytes: number }>();
    for (const l of m.links) {
      const key = l.from < l.to ? `${l.from}-${l.to}` : `${l.to}-${l.from}`;
      const entry = pairs.get(key) ?? { a: Math.min(l.from, l.to), b: Math.max(l.from, l.to), bytes: 0 };
      entry.bytes += l.bytes;
      pairs.set(key, entry);
    }
    const busiest = Math.max(1, ...[...pairs.values()].map((p) => p.bytes));
    for (const { a, b, bytes } of pairs.values()) {
      const p = at(a);
      const q = at(b);
      const line = svgElement('line', {
        x1: p.cx, y1: p.cy, x2: q.cx, y2: q.cy,
        class: 'slice-link',
        'stroke-width': 2 + 8 * (bytes / busiest),
        'stroke-opacity': 0.25 + 0.75 * (bytes / busiest),
      });
      const title = svgElement('title', {});
      title.textContent = `TPU ${a} ↔ TPU ${b}: ${si(bytes)}B per call`;
      line.append(title);
      this.grid.append(line);
    }
    const busy = m.cycles > 0 ? m.compute_cycles / m.cycles : 0;
    for (let chip = 0; chip < chips; chip++) {
      const { cx, cy } = at(chip);
      const used = chip < m.chips;
      const g = svgElement('g', { class: used ? 'slice-chip' : 'slice-chip idle', 'data-chip': chip });
      g.append(svgElement('rect', { x: cx - CHIP / 2, y: cy - CHIP / 2, width: CHIP, height: CHIP, rx: 6 }));
      const label = svgElement('text', { x: cx, y: cy - 6, 'text-anchor': 'middle' });
      label.textContent = `TPU ${chip}`;
      const value = svgElement('text', { x: cx, y: cy + 12, 'text-anchor': 'middle', class: 'value' });
      value.textContent = used ? `${Math.round(busy * 100)}% busy` : 'idle';
      const title = svgElement('title', {});
      title.textContent = `TPU ${chip} at (${chipCoords(dims, chip).join(', ')}): ${
        used ? `computing ${Math.round(busy * 100)}% of the call` : 'not in this call'
      }`;
      g.append(label, value, title);
      this.grid.append(g);
    }
  }

  /** One call as two lanes: the chips' programs and the links' collectives. */
  private drawLanes(m: MappedReport, machine: MachineInfo): void {
    const width = 640;
    const left = 60;
    const height = LANE * 2 + 30;
    this.lanes.setAttribute('viewBox', `0 0 ${width} ${height}`);
    this.lanes.setAttribute('aria-label', `one call of ${m.name}: ${microseconds(m.cycles, machine)}`);
    const scale = (width - left - 8) / Math.max(1, m.cycles);
    for (const [row, name] of ['chips', 'ICI'].entries()) {
      const label = svgElement('text', { x: 4, y: 8 + row * LANE + LANE / 2 + 4, class: 'lane-label' });
      label.textContent = name;
      this.lanes.append(label);
    }
    for (const step of m.steps) {
      const row = step.kind === 'program' ? 0 : 1;
      const rect = svgElement('rect', {
        x: left + step.start * scale,
        y: 8 + row * LANE,
        width: Math.max(1, (step.end - step.start) * scale),
        height: LANE - 6,
        class: `slice-step ${step.kind}`,
      });
      const title = svgElement('title', {});
      title.textContent = `${stepName(step)}: ${microseconds(step.end - step.start, machine)}`;
      rect.append(title);
      this.lanes.append(rect);
    }
    const axis = svgElement('text', { x: width - 8, y: height - 4, 'text-anchor': 'end', class: 'lane-label' });
    axis.textContent = microseconds(m.cycles, machine);
    this.lanes.append(axis);
  }

  private drawTable(m: MappedReport, machine: MachineInfo): void {
    const head = this.table.createTHead().insertRow();
    for (const h of ['step', 'what', 'bytes per chip', 'time', 'starts at']) {
      const th = document.createElement('th');
      th.textContent = h;
      head.append(th);
    }
    const body = this.table.createTBody();
    for (const step of m.steps) {
      const row = body.insertRow();
      const what =
        step.kind === 'program'
          ? 'every chip runs it'
          : `${step.hlo} over ${groupText(step.group_size, m.chips)}, ${step.hops} hop${step.hops === 1 ? '' : 's'}${
              step.latency_bound ? ', latency-bound' : ''
            }`;
      const bytes = step.kind === 'program' ? '' : `${si(step.bytes_per_chip)}B`;
      for (const text of [
        stepName(step),
        what,
        bytes,
        microseconds(step.end - step.start, machine),
        microseconds(step.start, machine),
      ]) {
        row.insertCell().textContent = text;
      }
    }
  }
}

/** "8 chips", or "4 groups of 2 chips" for a collective over one axis of a mesh. */
function groupText(size: number, chips: number): string {
  return size >= chips ? `${chips} chips` : `${chips / size} groups of ${size} chips`;
}

function stepName(step: MappedStep): string {
  return step.kind === 'program' ? step.name : `${step.primitive} '${step.axis_name}'`;
}
