// The examples gallery: every `examples/*.py` of the repository, bundled into the page at build
// time (nothing is fetched at run time). Each file opens with its header, which the page shows:
//
//   # Title
//   #
//   # One paragraph on what to look at in the counters, the timeline or the assembly,
//   # over as many comment lines as it needs.
//
// crates/runtime/tests/examples.rs reads the header the same way and runs every example.

export interface Example {
  /** The file name without `.py`: the menu's option value. */
  name: string;
  title: string;
  explanation: string;
  /** The whole file, header included: what the editor gets. */
  source: string;
}

/** The gallery's order: from a first model to the effects one at a time. Others follow, by name. */
const ORDER = [
  'mlp_forward',
  'mlp_training',
  'self_attention',
  'transformer_block',
  'jit_vs_eager',
  'padding_128',
  'batch_size',
  'memory_vs_compute',
  'precision_modes',
  'bf16_vs_f32',
  'random_numbers',
  'loops_and_callbacks',
  'full_size_cost',
  'data_parallel',
];

const files = import.meta.glob<string>('../../examples/*.py', { query: '?raw', import: 'default', eager: true });

/** The title and explanation of a script that opens with a header, else null. */
export function parseHeader(source: string): { title: string; explanation: string } | null {
  const lines = source.split(/\r?\n/);
  const title = lines[0]?.startsWith('# ') ? lines[0].slice(2).trim() : '';
  if (!title || lines[1]?.trimEnd() !== '#') return null;
  const paragraph: string[] = [];
  for (const line of lines.slice(2)) {
    if (!line.startsWith('#')) break;
    const text = line.slice(1).trim();
    if (text) paragraph.push(text);
  }
  return paragraph.length ? { title, explanation: paragraph.join(' ') } : null;
}

function rank(name: string): number {
  const i = ORDER.indexOf(name);
  return i < 0 ? ORDER.length : i;
}

export const EXAMPLES: Example[] = Object.entries(files)
  .flatMap(([path, source]) => {
    const name = path.replace(/^.*\//, '').replace(/\.py$/, '');
    const header = parseHeader(source);
    // A file without a header is not an example (the Rust test says so too).
    return header ? [{ name, ...header, source }] : [];
  })
  .sort((a, b) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name));

/** The example whose code this is, exactly (a shared link to an unedited example). */
export function exampleWithSource(source: string): Example | undefined {
  return EXAMPLES.find((e) => e.source === source);
}
