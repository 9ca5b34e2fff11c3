// Where the MXUs' cycles went, after the TPU v1 paper's breakdown (docs/timing.md): one stacked
// bar for the selected program, a segment per category sized by its fraction of
// `cycles × mxus_per_core`, and a legend with every category's share.
import type { MachineInfo, ProgramReport } from './protocol';

const NUMBER = new Intl.NumberFormat('en-US');

/** What each category means (docs/timing.md, "The cycle breakdown"); shown as tooltips. */
const MEANING: Record<string, string> = {
  array_active: 'streaming activation rows through the array',
  weight_shift: 'waiting for its next weights to shift in (the shifter or the other weight buffer was busy)',
  weight_stall: 'waiting for the next weights’ data to reach VMEM',
  input_stall: 'waiting for activations a DMA is still loading',
  raw_stall: 'waiting for the vector unit or the XLU to finish with its operands (a read-after-write hazard)',
  issue_stall: 'waiting for the instruction to issue (one per cycle, in program order)',
  non_matrix: 'no matrix work: after the last matmul, or an MXU the program never uses',
};

/** `array_active` → `array active`. */
export function categoryLabel(name: string): string {
  return name.replace(/_/g, ' ');
}

/** A fraction as a percentage with the digits that matter: 51.5%, 0.04%, <0.01%. */
export function percent(fraction: number): string {
  const p = fraction * 100;
  if (p === 0) return '0%';
  if (p < 0.01) return '<0.01%';
  if (p < 1) return `${p.toFixed(2)}%`;
  return `${p.toFixed(1)}%`;
}

export class BreakdownView {
  private readonly caption: HTMLElement;
  private readonly bar: HTMLElement;
  private readonly legend: HTMLElement;

  constructor(root: HTMLElement) {
    this.caption = document.createElement('p');
    this.caption.className = 'chart-caption';
    this.bar = document.createElement('div');
    this.bar.className = 'breakdown-bar';
    this.bar.setAttribute('role', 'img');
    this.legend = document.createElement('ul');
    this.legend.className = 'breakdown-legend';
    root.replaceChildren(this.caption, this.bar, this.legend);
    // Labels that fit inside their segment depend on the bar's width.
    new ResizeObserver(() => this.fitLabels()).observe(this.bar);
    this.show(undefined, undefined);
  }

  show(program: ProgramReport | undefined, machine: MachineInfo | undefined): void {
    const breakdown = program?.counters.breakdown;
    if (!program || !breakdown || typeof breakdown !== 'object') {
      this.caption.textContent = program
        ? 'The engine reported no cycle breakdown.'
        : 'Run a script to see where the MXUs’ cycles went.';
      this.bar.replaceChildren();
      this.bar.hidden = true;
      this.legend.replaceChildren();
      return;
    }
    const mxus = machine?.mxus_per_core ?? 1;
    const cycles = program.counters.cycles;
    this.caption.textContent =
      `${program.name}: ${NUMBER.format(cycles)} cycles × ${mxus} MXU${mxus === 1 ? '' : 's'}` +
      ` = ${NUMBER.format(cycles * mxus)} MXU cycles`;
    const entries = Object.entries(breakdown).filter(([, f]) => typeof f === 'number');
    const segments: HTMLElement[] = [];
    const items: HTMLElement[] = [];
    for (const [i, [name, fraction]] of entries.entries()) {
      const label = `${categoryLabel(name)} ${percent(fraction)}`;
      const meaning = MEANING[name] ? `: ${MEANING[name]}` : '';
      if (fraction > 0) {
        const segment = document.createElement('div');
        segment.className = 'segment';
        segment.dataset.category = name;
        segment.dataset.fraction = String(fraction);
        segment.dataset.color = String(i % 8);
        segment.style.flexGrow = String(fraction);
        segment.title = label + meaning;
        const text = document.createElement('span');
        text.textContent = label;
        text.dataset.full = label;
        text.dataset.short = percent(fraction);
        segment.append(text);
        segments.push(segment);
      }
      const item = document.createElement('li');
      item.dataset.category = name;
      item.title = categoryLabel(name) + meaning;
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.dataset.category = name;
      swatch.dataset.color = String(i % 8);
      const value = document.createElement('span');
      value.className = 'value';
      value.textContent = percent(fraction);
      item.append(swatch, categoryLabel(name), value);
      items.push(item);
    }
    this.bar.hidden = false;
    const summary = entries.map(([n, f]) => `${categoryLabel(n)} ${percent(f)}`).join(', ');
    this.bar.setAttribute('aria-label', `Cycle breakdown of ${program.name}: ${summary}`);
    this.bar.replaceChildren(...segments);
    this.legend.replaceChildren(...items);
    this.fitLabels();
  }

  /** Each segment shows its category and share, or only its share, or nothing (the legend has it). */
  private fitLabels(): void {
    for (const text of this.bar.querySelectorAll<HTMLElement>('.segment > span')) {
      const room = text.parentElement!.clientWidth - 8;
      text.hidden = false;
      text.textContent = text.dataset.full ?? '';
      if (text.scrollWidth > room) text.textContent = text.dataset.short ?? '';
      if (text.scrollWidth > room) text.hidden = true;
    }
  }
}
