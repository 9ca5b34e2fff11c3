// The roofline of one TensorCore (log-log SVG): x is arithmetic intensity (FLOPs per HBM byte),
// y achieved FLOP/s. The roof is min(peak bf16 FLOP/s, HBM bandwidth × x); it bends at the ridge
// point. The selected program is a point under it, labelled with its fraction of the roof.
import type { MachineInfo, ProgramReport } from './protocol';

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 560;
const HEIGHT = 330;
const MARGIN = { left: 62, right: 18, top: 16, bottom: 46 };

/** A number with an SI prefix: 196.6 T, 819 G, 0.88. */
export function si(value: number, digits = 3): string {
  const prefixes: [number, string][] = [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
  for (const [scale, prefix] of prefixes) {
    if (Math.abs(value) >= scale) return `${+(value / scale).toPrecision(digits)} ${prefix}`;
  }
  return `${+value.toPrecision(digits)} `;
}

/** The program's place on the roofline, or why it has none. */
export function rooflinePoint(program: ProgramReport): { x: number; y: number } | string {
  const c = program.counters;
  const bytes = c.hbm_bytes_read + c.hbm_bytes_written;
  if (!(c.flops > 0)) return `${program.name} does no arithmetic, so it has no point on the roofline.`;
  if (!(bytes > 0)) return `${program.name} moves no HBM bytes, so its arithmetic intensity is unbounded.`;
  if (!(c.seconds > 0)) return `${program.name} takes no time.`;
  return { x: c.flops / bytes, y: c.flops / c.seconds };
}

export class RooflineView {
  private readonly svg: SVGSVGElement;
  private readonly note: HTMLElement;

  constructor(private readonly root: HTMLElement) {
    this.svg = svgElement('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', class: 'roofline-svg' });
    this.note = document.createElement('p');
    this.note.className = 'chart-caption';
    root.replaceChildren(this.note, this.svg);
    this.show(undefined, undefined);
  }

  show(program: ProgramReport | undefined, machine: MachineInfo | undefined): void {
    this.svg.replaceChildren();
    if (!program || !machine) {
      this.note.textContent = program
        ? 'The engine reported no machine to draw a roofline for.'
        : 'Run a script to place its programs under the machine’s roofline.';
      this.svg.setAttribute('aria-label', 'Roofline');
      this.svg.style.display = program ? 'none' : '';
      delete this.root.dataset.program;
      return;
    }
    this.svg.style.display = '';
    this.root.dataset.program = program.name;
    const peak = machine.peak_bf16_flops_per_core;
    // The roof of one core: what its DMAs see of HBM (the timing model's bandwidth).
    const bandwidth =
      machine.hbm_bytes_per_second_per_core || machine.hbm_bytes_per_cycle * machine.clock_hz || machine.hbm_bytes_per_second;
    if (!(peak > 0 && bandwidth > 0)) {
      this.note.textContent = `TPU ${machine.name} reports no peak or no HBM bandwidth, so it has no roofline.`;
      this.svg.style.display = 'none';
      return;
    }
    const ridge = peak / bandwidth;
    const roof = (x: number) => Math.min(peak, bandwidth * x);
    const point = rooflinePoint(program);
    const at = typeof point === 'string' ? null : point;

    // Whole decades around the ridge and the point, one more on each side.
    const xs = at ? [ridge, at.x] : [ridge];
    const x0 = 10 ** (Math.floor(Math.log10(Math.min(...xs))) - 1);
    let x1 = 10 ** (Math.ceil(Math.log10(Math.max(...xs))) + 1);
    // Room right of the ridge for its label under the flat roof.
    while (Math.log10(ridge / x0) / Math.log10(x1 / x0) > 0.65) x1 *= 10;
    const y1 = 10 ** Math.ceil(Math.log10(peak * 1.5));
    const y0 = 10 ** Math.floor(Math.log10(Math.min(roof(x0), at ? at.y / 3 : Infinity)));
    const left = MARGIN.left;
    const right = WIDTH - MARGIN.right;
    const top = MARGIN.top;
    const bottom = HEIGHT - MARGIN.bottom;
    const sx = (x: number) => left + ((Math.log10(x) - Math.log10(x0)) / (Math.log10(x1) - Math.log10(x0))) * (right - left);
    const sy = (y: number) => bottom - ((Math.log10(y) - Math.log10(y0)) / (Math.log10(y1) - Math.log10(y0))) * (bottom - top);

    const grid = svgElement('g', { class: 'grid' });
    const labels = svgElement('g', { class: 'ticks' });
    const every = (decades: number) => Math.max(1, Math.ceil(decades / 7));
    const xDecades = Math.round(Math.log10(x1 / x0));
    for (let d = 0; d <= xDecades; d += every(xDecades)) {
      const x = x0 * 10 ** d;
      grid.append(svgElement('line', { x1: sx(x), x2: sx(x), y1: top, y2: bottom }));
      labels.append(text(intensityLabel(x), sx(x), bottom + 16, 'middle'));
    }
    const yDecades = Math.round(Math.log10(y1 / y0));
    for (let d = 0; d <= yDecades; d += every(yDecades)) {
      const y = y0 * 10 ** d;
      grid.append(svgElement('line', { x1: left, x2: right, y1: sy(y), y2: sy(y) }));
      labels.append(text(`${si(y)}`.trim(), left - 6, sy(y) + 4, 'end'));
    }
    const axes = svgElement('path', { class: 'axes', d: `M${left},${top}V${bottom}H${right}` });
    const xTitle = text('arithmetic intensity (FLOP/byte)', (left + right) / 2, HEIGHT - 8, 'middle');
    xTitle.classList.add('axis-title');
    const yTitle = text('achieved FLOP/s', 0, 0, 'middle');
    yTitle.classList.add('axis-title');
    yTitle.setAttribute('transform', `translate(14 ${(top + bottom) / 2}) rotate(-90)`);

    // The roof, with the region under it shaded.
    const roofPath = `M${sx(x0)},${sy(roof(x0))}L${sx(ridge)},${sy(peak)}L${sx(x1)},${sy(peak)}`;
    const under = svgElement('path', { class: 'under-roof', d: `${roofPath}V${bottom}H${sx(x0)}Z` });
    const roofLine = svgElement('path', { class: 'roof', d: roofPath, 'data-testid': 'roofline-roof' });
    const mxus = `${machine.mxus_per_core} MXU${machine.mxus_per_core === 1 ? '' : 's'}`;
    const peakLabel = text(`peak ${si(peak)}FLOP/s (bf16, ${mxus})`, right - 4, sy(peak) - 6, 'end');
    peakLabel.classList.add('roof-label');
    // The memory roof's label sits along its slope (45° in data, not on screen), a third of the
    // way from the left edge to the ridge or two thirds, whichever is farther from the point.
    const along = (t: number) => x0 ** (1 - t) * ridge ** t;
    const far = (x: number) => (at ? Math.abs(Math.log10(x / at.x)) : 0);
    const mid = far(along(1 / 3)) >= far(along(2 / 3)) ? along(1 / 3) : along(2 / 3);
    const angle = (Math.atan2(-(bottom - top) / yDecades, (right - left) / xDecades) * 180) / Math.PI;
    const hbmLabel = text(`HBM ${si(bandwidth)}B/s`, sx(mid), sy(roof(mid)) - 6, 'middle');
    hbmLabel.classList.add('roof-label');
    hbmLabel.setAttribute('transform', `rotate(${angle} ${sx(mid)} ${sy(roof(mid)) - 6})`);

    const ridgeGroup = svgElement('g', { class: 'ridge', 'data-testid': 'roofline-ridge', 'data-x': ridge, 'data-y': peak });
    ridgeGroup.append(
      svgElement('line', { x1: sx(ridge), x2: sx(ridge), y1: sy(peak), y2: bottom }),
      svgElement('circle', { cx: sx(ridge), cy: sy(peak), r: 3.5 }),
      text(`ridge ${+ridge.toPrecision(3)} FLOP/byte`, sx(ridge) + 6, sy(peak) + 16, 'start'),
    );
    this.svg.append(grid, under, axes, roofLine, labels, xTitle, yTitle, peakLabel, hbmLabel, ridgeGroup);

    if (at) {
      const fraction = at.y / roof(at.x);
      const g = svgElement('g', { class: 'program' });
      // Dotted from the point up to the roof: the distance left to gain.
      g.append(svgElement('line', { class: 'gap', x1: sx(at.x), x2: sx(at.x), y1: sy(at.y), y2: sy(roof(at.x)) }));
      const dot = svgElement('circle', {
        cx: sx(at.x),
        cy: sy(at.y),
        r: 5,
        'data-testid': 'roofline-point',
        'data-x': String(at.x),
        'data-y': String(at.y),
        'data-roof-fraction': String(fraction),
      });
      const share = percentOfRoof(fraction);
      dot.append(svgElementText('title', `${program.name}: ${+at.x.toPrecision(4)} FLOP/byte, ${si(at.y, 4)}FLOP/s, ${share} of the roof`));
      // Beside the point, on the side with more room.
      const onRight = sx(at.x) < (left + right) / 2;
      const dx = onRight ? 9 : -9;
      const label = text(`${program.name}: ${si(at.y)}FLOP/s · ${share} of roof`, sx(at.x) + dx, sy(at.y) + 4, onRight ? 'start' : 'end');
      label.classList.add('point-label');
      g.append(dot, label);
      this.svg.append(g);
      this.note.textContent =
        `${program.name}: ${+at.x.toPrecision(3)} FLOP/byte, ${si(at.y)}FLOP/s — ${share} of what the roof allows at that intensity ` +
        `(${at.x < ridge ? 'memory-bound side' : 'compute-bound side'} of the ridge).`;
      this.svg.setAttribute('aria-label', this.note.textContent);
    } else {
      this.note.textContent = point as string;
      this.svg.setAttribute('aria-label', `Roofline of TPU ${machine.name}; ${point}`);
    }
  }
}

function percentOfRoof(fraction: number): string {
  const p = fraction * 100;
  if (p >= 10) return `${p.toFixed(0)}%`;
  if (p >= 0.01) return `${+p.toPrecision(2)}%`;
  return `${p.toExponential(1)}%`;
}

function intensityLabel(x: number): string {
  return x >= 1000 ? `${si(x, 3).trim()}` : `${+x.toPrecision(3)}`;
}

function svgElement<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  return el;
}

function svgElementText<K extends keyof SVGElementTagNameMap>(tag: K, content: string): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  el.textContent = content;
  return el;
}

function text(content: string, x: number, y: number, anchor: 'start' | 'middle' | 'end'): SVGTextElement {
  const el = svgElement('text', { x, y, 'text-anchor': anchor });
  el.textContent = content;
  return el;
}
