// Links carry the whole run setup in the URL fragment, so nothing is sent to a server:
// `#code=<base64url of UTF-8, no padding>&machine=v5e&precision=highest`, plus `&mxu=32` when
// the systolic array's size is not the machine's own. The older form with `code` alone keeps
// working; unknown keys and unknown values are ignored.

export const MACHINES = [
  'v1',
  'v2',
  'v3',
  'v4',
  'v5e',
  'v5p',
  'v6e',
  'v5e-4',
  'v5e-8',
  'v5e-16',
  'v4-8',
  'v5p-8',
  'v6e-8',
] as const;
export const PRECISIONS = ['default', 'high', 'highest'] as const;
/** Square MXU sizes the page offers in place of the machine's own (`''`). */
export const MXU_SIZES = ['', '8', '16', '32', '64', '128', '256'] as const;
export type Machine = (typeof MACHINES)[number];
export type Precision = (typeof PRECISIONS)[number];
export type MxuSize = (typeof MXU_SIZES)[number];

export interface SharedRun {
  source: string;
  machine: Machine;
  precision: Precision;
  /** The MXU's rows and columns when not the machine's own. */
  mxu?: MxuSize;
}

export function encodeSource(source: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(source)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The script in a fragment such as `#code=...`, or null when there is none or it is garbled. */
export function sourceFromHash(hash: string): string | null {
  const code = params(hash).get('code');
  if (code === null) return null;
  try {
    // Lenient: standard base64 (`+`, `/`, padding) decodes too.
    const binary = atob(code.replace(/-/g, '+').replace(/_/g, '/').replace(/ /g, '+'));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** Everything a fragment says, each part null when absent or not understood. */
export function fromHash(hash: string): {
  source: string | null;
  machine: Machine | null;
  precision: Precision | null;
  mxu: MxuSize | null;
} {
  const p = params(hash);
  return {
    source: sourceFromHash(hash),
    machine: oneOf(MACHINES, p.get('machine')),
    precision: oneOf(PRECISIONS, p.get('precision')),
    mxu: oneOf(MXU_SIZES, p.get('mxu')),
  };
}

export function toHash(run: SharedRun): string {
  const mxu = run.mxu ? `&mxu=${run.mxu}` : '';
  return `#code=${encodeSource(run.source)}&machine=${run.machine}&precision=${run.precision}${mxu}`;
}

function params(hash: string): URLSearchParams {
  // URLSearchParams would turn a `+` of standard base64 into a space; sourceFromHash undoes that.
  return new URLSearchParams(hash.replace(/^#/, ''));
}

function oneOf<T extends string>(allowed: readonly T[], value: string | null): T | null {
  const v = value?.trim().toLowerCase();
  return (allowed as readonly string[]).includes(v ?? '') ? (v as T) : null;
}
