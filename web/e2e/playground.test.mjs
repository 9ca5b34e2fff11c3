// End-to-end: the built page (web/dist) in headless Chromium runs scripts through the real engine.
// Run with `cargo xtask test` (which builds web/dist first), or `node --test web/e2e/`.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { REPO_ROOT, launchChromium, openPage, serveStatic, waitForRunEnd } from './harness.mjs';

const SKELETON = `import jax
import jax.numpy as jnp

@jax.jit
def f(x, w):
    return jnp.tanh(x @ w) * 2.0 + 1.0

x = jnp.arange(12.0).reshape(3, 4) / 10.0
w = jnp.ones((4, 5)) * 0.5
print(f(x, w))
`;

// Produced by real JAX 0.10.2 on CPU, with x and w rounded to bfloat16 first (the TPU's DEFAULT
// matmul precision):
//   python3 -c "import jax.numpy as jnp; x=jnp.arange(12.0).reshape(3,4)/10.0; w=jnp.ones((4,5))*0.5;
//     b=lambda a: a.astype(jnp.bfloat16).astype(jnp.float32); print(jnp.tanh(b(x)@b(w))*2.0+1.0)"
const SKELETON_STDOUT = `[[1.5836082 1.5836082 1.5836082 1.5836082 1.5836082]
 [2.6014187 2.6014187 2.6014187 2.6014187 2.6014187]
 [2.9125419 2.9125419 2.9125419 2.9125419 2.9125419]]
`;

const $ = (testid) => `[data-testid="${testid}"]`;

let server;
let browser;

before(async () => {
  server = await serveStatic();
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** The diagnostics to print beside a failed assertion. */
function diagnostics(p) {
  return `\n--- browser log ---\n${p.log.join('\n') || '(empty)'}`;
}

test('the skeleton script from #code= runs and prints what JAX prints', { timeout: 180_000 }, async () => {
  const p = await openPage(browser, server.url);
  try {
    const { page } = p;
    await page.goto(`${server.url}#code=${Buffer.from(SKELETON).toString('base64url')}`);
    assert.equal(await page.inputValue($('editor')), SKELETON, 'the fragment loads the script');
    assert.equal(await page.textContent($('status')), 'ready');

    await page.click($('run'));
    const status = await waitForRunEnd(page);
    const output = await page.textContent($('output'));
    assert.equal(status, 'done', `run failed; output:\n${output}${diagnostics(p)}`);
    assert.equal(output, SKELETON_STDOUT, diagnostics(p));

    const cycles = await page.getAttribute(`${$('counters')} tr[data-program="f"] td[data-counter="cycles"]`, 'data-value');
    assert.ok(Number(cycles) > 0, `program f has ${cycles} cycles${diagnostics(p)}`);
    const calls = await page.textContent(`${$('counters')} tr[data-program="f"] td:nth-child(2)`);
    assert.equal(calls, '1');

    const backend = (await page.textContent($('backend'))).trim();
    assert.ok(backend.length > 0, 'the page says which backend ran');
    console.log(`# backend: ${backend}`);

    const shots = join(REPO_ROOT, 'target', 'screenshots');
    await mkdir(shots, { recursive: true });
    await page.screenshot({ path: join(shots, 'skeleton.png'), fullPage: true });

    assert.deepEqual(p.foreignRequests, [], 'the page fetches nothing from outside its own server');
  } finally {
    await p.close();
  }
});

test('a syntax error ends in status error with a line:col message', { timeout: 180_000 }, async () => {
  const p = await openPage(browser, server.url);
  try {
    const { page } = p;
    await page.goto(server.url);
    // Typed into the editor this time, to cover the path without a #code= fragment.
    await page.fill($('editor'), 'import jax.numpy as jnp\nx = jnp.ones((2, 2)) +\nprint(x)\n');
    await page.click($('run'));
    const status = await waitForRunEnd(page);
    const output = await page.textContent($('output'));
    assert.equal(status, 'error', `expected an error; output:\n${output}${diagnostics(p)}`);
    assert.match(output, /^2:\d+: \S/m, `the error names line 2 as line:col${diagnostics(p)}`);
  } finally {
    await p.close();
  }
});

test('the skeleton runs on WebGPU (SwiftShader) from the worker, with the same output', { timeout: 180_000 }, async () => {
  const p = await openPage(browser, server.url);
  try {
    const { page } = p;
    await page.goto(`${server.url}#code=${Buffer.from(SKELETON).toString('base64url')}`);
    await page.selectOption($('backend-select'), 'gpu');
    await page.click($('run'));
    const status = await waitForRunEnd(page);
    const output = await page.textContent($('output'));
    assert.equal(status, 'done', `run failed; output:\n${output}${diagnostics(p)}`);
    // The CPU and GPU backends agree bit for bit, so the printed text is identical.
    assert.equal(output, SKELETON_STDOUT, diagnostics(p));
    assert.match(await page.textContent($('backend')), /^WebGPU: /);
  } finally {
    await p.close();
  }
});
