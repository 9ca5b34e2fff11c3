// Scripts travel in the URL fragment as `#code=<base64url of UTF-8, no padding>`, so a link
// carries the whole script and nothing is sent to a server.

export function encodeSource(source: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(source)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The script in a fragment such as `#code=...`, or null when there is none or it is garbled. */
export function sourceFromHash(hash: string): string | null {
  const code = new URLSearchParams(hash.replace(/^#/, '')).get('code');
  if (code === null) return null;
  try {
    const binary = atob(code.replace(/-/g, '+').replace(/_/g, '/'));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
