// Downloads of a run: its timelines as Chrome trace-event JSON (Perfetto and chrome://tracing
// open it; the same shape as `tpu run --trace`), and every program's counters as JSON and CSV.
import { flatten } from './counters';
import { mnemonic } from './listing';
import { tripNumbers } from './timeline';
import type { RunOk } from './protocol';

/**
 * A process per program, a thread per track, one complete event ("X") per span, and one per loop
 * trip on a `loop trips` thread, with times in microseconds of emulated time (cycles / clock_hz ×
 * 1e6). Null without the machine's clock.
 */
export function traceJson(result: RunOk): string | null {
  const clock = result.machine_info?.clock_hz;
  if (!clock) return null;
  const us = (cycles: number) => (cycles / clock) * 1e6;
  const events: object[] = [];
  for (const [pid, p] of result.programs.entries()) {
    const timeline = p.timeline;
    const label = p.eager ? `${p.name} (op by op)` : p.name;
    const truncated = timeline?.truncated ? ` (first ${timeline.spans.length} operations)` : '';
    events.push({ ph: 'M', name: 'process_name', pid, args: { name: label + truncated } });
    events.push({ ph: 'M', name: 'process_sort_index', pid, args: { sort_index: pid } });
    if (!timeline) continue;
    for (const [tid, name] of timeline.tracks.entries()) {
      events.push({ ph: 'M', name: 'thread_name', pid, tid, args: { name } });
      events.push({ ph: 'M', name: 'thread_sort_index', pid, tid, args: { sort_index: tid } });
    }
    for (const [instr, tid, start, end] of timeline.spans) {
      const line = p.listing?.[instr];
      events.push({
        ph: 'X',
        name: line ? mnemonic(line.text) : '?',
        cat: line?.unit ?? '',
        pid,
        tid,
        ts: us(start),
        dur: us(end - start),
        args: { instruction: instr, text: line?.text ?? '', start_cycle: start, end_cycle: end },
      });
    }
    // Loop trips on a thread of their own, as `tpu run --trace` writes them.
    const trips = timeline.trips ?? [];
    if (trips.length > 0) {
      const tid = timeline.tracks.length;
      events.push({ ph: 'M', name: 'thread_name', pid, tid, args: { name: 'loop trips' } });
      events.push({ ph: 'M', name: 'thread_sort_index', pid, tid, args: { sort_index: tid } });
      const numbers = tripNumbers(trips);
      for (const [i, [instr, start, end]] of trips.entries()) {
        // Counted from 0, as `tpu run --trace` counts them.
        const trip = numbers[i] - 1;
        events.push({
          ph: 'X',
          name: `trip of the while at ${instr}`,
          cat: 'loop',
          pid,
          tid,
          ts: us(start),
          dur: us(end - start),
          args: { instruction: instr, trip, start_cycle: start, end_cycle: end },
        });
      }
    }
  }
  return JSON.stringify({ traceEvents: events, displayTimeUnit: 'ns', otherData: { machine: result.machine } });
}

/** Every counter any program reports, flattened (`breakdown.array_active`), in the engine's order. */
function counterTable(result: RunOk): { names: string[]; rows: Record<string, number>[] } {
  const rows = result.programs.map((p) => flatten(p.counters as Record<string, unknown>));
  const names: string[] = [];
  for (const row of rows) for (const name of Object.keys(row)) if (!names.includes(name)) names.push(name);
  return { names, rows };
}

export function countersJson(result: RunOk): string {
  const { rows } = counterTable(result);
  const programs = result.programs.map((p, i) => ({ name: p.name, calls: p.calls, eager: p.eager ?? false, counters: rows[i] }));
  return JSON.stringify({ machine: result.machine, machine_info: result.machine_info ?? null, programs }, null, 2) + '\n';
}

/** One row per program: program, calls, eager, then every counter. RFC 4180 quoting. */
export function countersCsv(result: RunOk): string {
  const { names, rows } = counterTable(result);
  const lines = [['program', 'calls', 'eager', ...names].map(csvCell).join(',')];
  for (const [i, p] of result.programs.entries()) {
    const values = names.map((n) => (typeof rows[i][n] === 'number' ? String(rows[i][n]) : ''));
    lines.push([p.name, String(p.calls), String(p.eager ?? false), ...values].map(csvCell).join(','));
  }
  return lines.join('\r\n') + '\r\n';
}

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** Saves `text` as a file: a Blob behind an object URL, clicked through an `<a download>`. */
export function download(filename: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked later, not at once: the browser reads the Blob after this handler returns.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
