// The compiled programs of a run, one stage at a time, following the pipeline:
// Jaxpr → HLO → fused graph → TPU assembly (with each instruction's cycles, when the engine sent
// them). Text only (textContent), never markup. The other views of a program (timeline, cycle
// breakdown, roofline) follow the program chosen here through `onSelect`.
import type { ListingView } from './listing';
import type { ProgramReport } from './protocol';

export const STAGES = ['jaxpr', 'hlo', 'fused', 'asm'] as const;
export type Stage = (typeof STAGES)[number];

export class ProgramView {
  private programs: ProgramReport[] = [];
  /** Each program's option value: its name, made unique when two programs share one. */
  private keys: string[] = [];
  private stage: Stage = 'jaxpr';
  private readonly tabs: HTMLButtonElement[];
  /** The stages that have a tab, in the tablist's order (the page has all four). */
  private readonly stages: Stage[];
  /** The program the other views show; `onSelect` runs when it changes. */
  private selected: ProgramReport | undefined;

  constructor(
    private readonly select: HTMLSelectElement,
    private readonly showEager: HTMLInputElement,
    tablist: HTMLElement,
    private readonly pane: HTMLElement,
    private readonly listing: ListingView,
    private readonly onSelect: (program: ProgramReport | undefined) => void,
  ) {
    this.tabs = Array.from(tablist.querySelectorAll<HTMLButtonElement>('button[data-stage]'));
    this.stages = this.tabs.map((tab) => tab.dataset.stage as Stage);
    this.stage = this.stages[0] ?? 'jaxpr';
    select.addEventListener('change', () => this.renderText());
    showEager.addEventListener('change', () => this.renderOptions(select.value));
    for (const tab of this.tabs) tab.addEventListener('click', () => this.setStage(tab.dataset.stage as Stage, false));
    // Arrow keys move between tabs (the WAI-ARIA tabs pattern).
    tablist.addEventListener('keydown', (event) => {
      const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
      if (step === 0 || this.stages.length === 0) return;
      event.preventDefault();
      const n = this.stages.length;
      const next = (this.stages.indexOf(this.stage) + step + n) % n;
      this.setStage(this.stages[next], true);
    });
    this.renderText();
  }

  /**
   * A new run's programs; `preferred` (a program's name) is selected when the run has it, else
   * the selected program stays selected when it is still there.
   */
  show(programs: ProgramReport[], preferred?: string): void {
    const previous = this.select.value;
    this.programs = programs;
    const seen = new Map<string, number>();
    this.keys = programs.map((p) => {
      const n = seen.get(p.name) ?? 0;
      seen.set(p.name, n + 1);
      return n === 0 ? p.name : `${p.name}#${n + 1}`;
    });
    this.renderOptions(preferred !== undefined && this.keys.includes(preferred) ? preferred : previous);
  }

  clear(): void {
    this.show([]);
  }

  /** Shows an instruction's line in the assembly listing (a span clicked on the timeline). */
  reveal(instruction: number): void {
    if (!this.selected?.listing?.length || !this.stages.includes('asm')) return;
    if (this.stage !== 'asm') this.setStage('asm', false);
    this.listing.reveal(instruction);
  }

  private setStage(stage: Stage, focus: boolean): void {
    this.stage = stage;
    for (const tab of this.tabs) {
      const on = tab.dataset.stage === stage;
      tab.setAttribute('aria-selected', String(on));
      tab.tabIndex = on ? 0 : -1;
      if (on && focus) tab.focus();
    }
    this.renderText();
  }

  private visible(): ProgramReport[] {
    // Jitted programs first, in the order they were compiled; op-by-op ones only on request.
    const jitted = this.programs.filter((p) => !p.eager);
    const eager = this.programs.filter((p) => p.eager);
    return this.showEager.checked ? [...jitted, ...eager] : jitted;
  }

  private renderOptions(wanted: string): void {
    const list = this.visible();
    const options = list.map((p, i) => {
      const option = document.createElement('option');
      option.value = this.keys[this.programs.indexOf(p)];
      option.textContent = p.eager ? `${p.name} (op-by-op)` : p.name;
      if (i === 0) option.selected = true;
      return option;
    });
    if (options.length === 0) {
      const none = document.createElement('option');
      none.value = '';
      const hidden = this.programs.length - list.length;
      none.textContent =
        this.programs.length === 0 ? 'run a script first' : `no jitted programs (${hidden} op-by-op)`;
      options.push(none);
    }
    this.select.replaceChildren(...options);
    this.select.disabled = list.length === 0;
    // Keep the previous choice when this run has a program of that name.
    if (wanted !== '' && options.some((o) => o.value === wanted)) this.select.value = wanted;
    this.renderText();
  }

  private renderText(): void {
    const i = this.select.value === '' ? -1 : this.keys.indexOf(this.select.value);
    const program = i < 0 ? undefined : this.programs[i];
    if (program !== this.selected) {
      this.selected = program;
      this.listing.show(program);
      this.onSelect(program);
    }
    for (const tab of this.tabs) tab.disabled = program === undefined;
    this.pane.tabIndex = 0;
    delete this.pane.dataset.mode;
    if (!program) {
      this.pane.textContent = '';
      this.pane.dataset.empty = 'true';
      return;
    }
    delete this.pane.dataset.empty;
    if (this.stage === 'asm' && program.listing && program.listing.length > 0) {
      // The listing scrolls (and takes focus) itself.
      this.pane.dataset.mode = 'listing';
      this.pane.tabIndex = -1;
      this.pane.replaceChildren(this.listing.element);
      this.listing.refresh();
      return;
    }
    const text = program[this.stage];
    this.pane.textContent = text && text.trim() !== '' ? text : `(no ${this.stage} text for ${program.name})`;
    this.pane.scrollTop = 0;
  }
}
