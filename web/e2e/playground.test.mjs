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
const link = (code, extra = '') => `#code=${Buffer.from(code).toString('base64url')}${extra}`;

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
    await page.goto(`${server.url}${link(SKELETON)}`);
    // The editor is CodeMirror: its lines are divs, so compare the text without line breaks.
    const shown = await page.locator(`${$('editor')} .cm-content`).innerText();
    assert.equal(shown.replace(/\n/g, ''), SKELETON.replace(/\n/g, ''), 'the fragment loads the script');
    assert.equal(await page.textContent($('status')), 'ready');
    assert.equal(await page.inputValue($('machine')), 'v5e', 'the default machine');
    assert.equal(await page.inputValue($('precision')), 'default', 'the default precision');

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

    // Running rewrites the fragment into the full form, with the exact script the editor held.
    const hash = await page.evaluate(() => location.hash);
    assert.equal(hash, `${link(SKELETON)}&machine=v5e&precision=default`);

    assert.deepEqual(p.foreignRequests, [], 'the page fetches nothing from outside its own server');
  } finally {
    await p.close();
  }
});

test('a syntax error ends in status error with a line:col message', { timeout: 180_000 }, async () => {
  const p = await openPage(browser, server.url);
  try {
    const { page } = p;
    await page.goto(`${server.url}${link('import jax.numpy as jnp\nx = jnp.ones((2, 2)) +\nprint(x)\n')}`);
    // Ctrl+Enter in the editor runs, like the button.
    await page.click(`${$('editor')} .cm-content`);
    await page.keyboard.press('Control+Enter');
    const status = await waitForRunEnd(page);
    const output = await page.textContent($('output'));
    assert.equal(status, 'error', `expected an error; output:\n${output}${diagnostics(p)}`);
    assert.match(output, /^2:\d+: \S/m, `the error names line 2 as line:col${diagnostics(p)}`);
    // And the editor marks it inline, on line 2.
    const marked = page.locator(`${$('editor')} .cm-lintRange-error`);
    await marked.first().waitFor({ timeout: 5_000 });
    const markedLine = await marked.first().evaluate((el) => {
      const line = el.closest('.cm-line');
      return [...line.parentElement.children].filter((c) => c.classList.contains('cm-line')).indexOf(line) + 1;
    });
    assert.equal(markedLine, 2, 'the inline diagnostic sits on line 2');
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

test('each stage of program f follows the pipeline: Jaxpr, HLO, fused graph, assembly', { timeout: 180_000 }, async () => {
  const p = await openPage(browser, server.url);
  try {
    const { page } = p;
    await page.goto(`${server.url}${link(SKELETON)}`);
    await page.click($('run'));
    const status = await waitForRunEnd(page);
    assert.equal(status, 'done', `run failed; output:\n${await page.textContent($('output'))}${diagnostics(p)}`);

    await page.selectOption($('program-select'), 'f');
    const expected = { jaxpr: 'dot_general', hlo: 'HloModule', fused: 'FusedModule', asm: 'mxu.matmul' };
    for (const [stage, needle] of Object.entries(expected)) {
      await page.click($(`stage-${stage}`));
      assert.equal(await page.getAttribute($(`stage-${stage}`), 'aria-selected'), 'true');
      const text = await page.textContent($('stage-text'));
      assert.ok(text.includes(needle), `stage ${stage} of f shows ${needle}; it shows:\n${text.slice(0, 400)}${diagnostics(p)}`);
    }
    // Op-by-op programs stay out of the list until asked for.
    const names = () => page.$$eval(`${$('program-select')} option`, (os) => os.map((o) => o.value));
    const jitted = await names();
    assert.ok(jitted.includes('f'));
    await page.check($('show-eager'));
    const all = await names();
    assert.ok(all.length >= jitted.length && all[0] === jitted[0], `jitted first: ${all}`);
    assert.equal(await page.inputValue($('program-select')), 'f', 'the choice survives the toggle');
  } finally {
    await p.close();
  }
});

test('a link with machine and precision selects them, and the run reports that machine', { timeout: 180_000 }, async () => {
  const p = await openPage(browser, server.url);
  try {
    const { page } = p;
    await page.goto(`${server.url}${link(SKELETON, '&machine=v4&precision=highest')}`);
    assert.equal(await page.inputValue($('machine')), 'v4');
    assert.equal(await page.inputValue($('precision')), 'highest');
    await page.click($('run'));
    const status = await waitForRunEnd(page);
    const output = await page.textContent($('output'));
    assert.equal(status, 'done', `run failed; output:\n${output}${diagnostics(p)}`);
    assert.match(await page.textContent($('backend')), /emulating TPU v4/, diagnostics(p));
    const cycles = await page.getAttribute(`${$('counters')} tr[data-program="f"] td[data-counter="cycles"]`, 'data-value');
    assert.ok(Number(cycles) > 0, `program f has ${cycles} cycles${diagnostics(p)}`);
    assert.match(await page.evaluate(() => location.hash), /&machine=v4&precision=highest$/, 'the link keeps both');

    // Unknown values are ignored: the defaults stay.
    await page.goto(`${server.url}${link(SKELETON, '&machine=v99&precision=extreme')}`);
    await page.reload();
    assert.equal(await page.inputValue($('machine')), 'v5e');
    assert.equal(await page.inputValue($('precision')), 'default');

    const shots = join(REPO_ROOT, 'target', 'screenshots');
    await mkdir(shots, { recursive: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${server.url}${link(SKELETON, '&machine=v4&precision=highest')}`);
    await page.click($('run'));
    await waitForRunEnd(page);
    await page.click($('stage-asm'));
    await page.screenshot({ path: join(shots, 'dark.png'), fullPage: true });
  } finally {
    await p.close();
  }
});
