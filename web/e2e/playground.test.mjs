// End-to-end: the built page (web/dist) in headless Chromium runs scripts through the real engine.
// Run with `cargo xtask test` (which builds web/dist first), or `node --test web/e2e/`.
import assert from 'node:assert/strict';
import { mkdir, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { REPO_ROOT, SECURITY_HEADERS, launchChromium, openPage, serveStatic, waitForRunEnd } from './harness.mjs';

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
    // The script makes its arrays on the device and prints f's 3×5 float32 result: one copy back.
    assert.equal(
      await page.textContent($('transfers')),
      'Host → device: 0 bytes in 0 copies; device → host: 60 bytes in 1 copy (0.00375 µs over PCIe).',
    );

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

test('`cargo xtask serve` (vite preview) sends the Content-Security-Policy', { timeout: 120_000 }, async () => {
  const port = await new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
  const vite = join(REPO_ROOT, 'web', 'node_modules', 'vite', 'bin', 'vite.js');
  const child = spawn(process.execPath, [vite, 'preview', '--port', String(port)], {
    cwd: join(REPO_ROOT, 'web'),
    stdio: 'ignore',
  });
  try {
    let response;
    for (let tries = 0; !response && tries < 200; tries++) {
      response = await fetch(`http://127.0.0.1:${port}/`).catch(() => new Promise((r) => setTimeout(() => r(null), 100)));
    }
    assert.ok(response, 'vite preview answered');
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-security-policy'), SECURITY_HEADERS['Content-Security-Policy']);
    assert.match(response.headers.get('content-security-policy'), /script-src 'self' 'wasm-unsafe-eval'(;|$)/);
  } finally {
    child.kill();
  }
});

test('under that policy the page runs with no violation, printed HTML stays text, and an inline script is refused', { timeout: 180_000 }, async () => {
  const p = await openPage(browser, server.url);
  try {
    const { page } = p;
    await page.addInitScript(() => {
      window.violations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.violations.push(e.effectiveDirective));
    });
    const html = '<img src=x onerror="window.pwned = 1"><script>window.pwned = 2</script><b>bold</b>';
    const script = `import jax.numpy as jnp\nprint(${JSON.stringify(html)})\nprint(jnp.arange(3))\n`;
    await page.goto(`${server.url}${link(script)}`);
    await page.click($('run'));
    const status = await waitForRunEnd(page);
    const output = await page.textContent($('output'));
    assert.equal(status, 'done', `run failed; output:\n${output}${diagnostics(p)}`);
    assert.equal(output, `${html}\n[0 1 2]\n`, 'the string is printed as it is');
    assert.equal(await page.locator(`${$('output')} img, ${$('output')} script, ${$('output')} b`).count(), 0, 'no element made of it');
    assert.equal(await page.evaluate(() => window.pwned), undefined);
    assert.deepEqual(await page.evaluate(() => window.violations), [], `the page itself needs nothing the policy forbids${diagnostics(p)}`);
    const ran = await page.evaluate(async () => {
      const inline = document.createElement('script');
      inline.textContent = 'window.inlineRan = true';
      document.body.append(inline);
      await new Promise((r) => setTimeout(r, 100));
      return window.inlineRan ?? false;
    });
    assert.equal(ran, false, 'an inline script does not run');
    assert.deepEqual(await page.evaluate(() => window.violations), ['script-src-elem']);
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

test("what a script writes to standard error (logging, warnings) shows after its output, set apart", { timeout: 180_000 }, async () => {
  const p = await openPage(browser, server.url);
  try {
    const { page } = p;
    const script = 'import logging\nimport warnings\nlogging.warning("careful: %s", 3)\nwarnings.warn("old API")\nprint("done")\n';
    await page.goto(`${server.url}${link(script)}`);
    await page.click($('run'));
    const status = await waitForRunEnd(page);
    const output = await page.textContent($('output'));
    assert.equal(status, 'done', `expected the run to finish; output:\n${output}${diagnostics(p)}`);
    const stderr = await page.textContent(`${$('output')} ${$('stderr')}`);
    assert.equal(stderr, 'WARNING:root:careful: 3\nUserWarning: old API\n');
    assert.equal(output, `done\n${stderr}`, 'standard output first, then standard error');
  } finally {
    await p.close();
  }
});

test('a loop and a branch run on the machine: one program whatever the trip count', { timeout: 180_000 }, async () => {
  const p = await openPage(browser, server.url);
  try {
    const { page } = p;
    const script =
      'import jax\nimport jax.numpy as jnp\nfrom jax import lax\n\n' +
      '@jax.jit\ndef f(p, xs):\n' +
      '    total, _ = lax.scan(lambda c, x: (c + jnp.sin(x), c), 0.0, xs)\n' +
      '    return lax.cond(p, lambda t: t * 2.0, lambda t: t - 1.0, total)\n\n' +
      'print(f(True, jnp.arange(12.0)))\n';
    await page.goto(`${server.url}${link(script)}`);
    await page.click($('run'));
    const status = await waitForRunEnd(page);
    assert.equal(status, 'done', `run failed; output:\n${await page.textContent($('output'))}${diagnostics(p)}`);
    const row = (program) => `${$('counters')} tr[data-program="${program}"]`;
    // The scan's loop and the cond's branch are the machine's: one program, called once.
    assert.equal(await page.textContent(`${row('f')} td:nth-child(2)`), '1', 'one call');
    assert.equal(await page.locator(row('f/scan1/body')).count(), 0, 'no part runs on its own');
    const cycles = Number(await page.getAttribute(`${row('f')} td[data-counter="cycles"]`, 'data-value'));
    assert.ok(cycles > 0, `${cycles} cycles`);

    // The listing's while line counts the scan's 12 trips and what one costs.
    await page.selectOption($('program-select'), 'f');
    await page.click($('stage-asm'));
    const loop = page.locator(`${$('listing')} [data-index]`, { hasText: /while/ }).first();
    const note = await loop.locator('.trips').textContent();
    const perTrip = Number(note.match(/^12 trips × ([\d,]+) cycles$/)?.[1].replace(/,/g, ''));
    assert.ok(perTrip > 0 && 12 * perTrip < cycles, `the while line says: ${note}`);
    // The timeline marks each trip; hovering a mark on the cycle axis names its trip.
    assert.equal(await page.getAttribute($('timeline'), 'data-trips'), '12');
    const canvas = await page.locator(`${$('timeline')} canvas`);
    await canvas.scrollIntoViewIfNeeded();
    const box = await canvas.boundingBox();
    let tip = null;
    for (let px = 1; px < box.width && !tip; px += 1) {
      await page.mouse.move(box.x + px, box.y + 20);
      const text = await page.$eval(`${$('timeline')} .timeline-tip`, (el) => (el.hidden ? null : el.textContent));
      if (text?.startsWith('trip ')) tip = text;
    }
    assert.match(tip ?? '', /^trip 1 of the loop at \d+: while\s+s\d+\ncycles [\d,]+–[\d,]+ \([\d,]+ cycles/, `${tip}`);
  } finally {
    await p.close();
  }
});

test('a program compiled ahead of time has counters without a call; one that branches on its values says why it has none', { timeout: 180_000 }, async () => {
  const p = await openPage(browser, server.url);
  try {
    const { page } = p;
    const script =
      'import jax\nimport jax.numpy as jnp\nfrom jax import lax\n\n' +
      'def layer(x, w):\n    return jnp.tanh(x @ w)\n\n' +
      'def halve(x):\n    return lax.while_loop(lambda c: c.sum() > 1.0, lambda c: c * 0.5, x)\n\n' +
      'S = jax.ShapeDtypeStruct\n' +
      'c = jax.jit(layer).lower(S((4096, 4096), jnp.bfloat16), S((4096, 4096), jnp.bfloat16)).compile()\n' +
      'print(c.cost_analysis()["flops"] >= 2 * 4096 ** 3)\n' +
      'h = jax.jit(halve).lower(S((8, 128), jnp.float32)).compile()\n';
    await page.goto(`${server.url}${link(script)}`);
    await page.click($('run'));
    const status = await waitForRunEnd(page);
    assert.equal(status, 'done', `run failed; output:\n${await page.textContent($('output'))}${diagnostics(p)}`);
    assert.equal((await page.textContent($('output'))).trim(), 'True');
    const row = (program) => `${$('counters')} tr[data-program="${program}"]`;
    // 64 MiB of bf16 operands, never made: compiled and timed, not run.
    assert.equal(await page.textContent(`${row('layer')} td:nth-child(2)`), '0', 'no call');
    const cycles = Number(await page.getAttribute(`${row('layer')} td[data-counter="cycles"]`, 'data-value'));
    assert.ok(cycles > 4096 ** 3 / (4 * 128 * 128), `${cycles} cycles: at least the MXUs' streaming`);
    // The while loop tests a value it computes: no counters until it runs, and the name says why.
    assert.equal(await page.getAttribute(row('halve'), 'data-untimed'), 'true');
    assert.equal(await page.textContent(`${row('halve')} td[data-counter="cycles"]`), '–');
    assert.match(await page.getAttribute(`${row('halve')} td.name`, 'title'), /branches on s\d+/);
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

test('pmap on a v5e-8: the slice view shows the chips, the links the all-reduce used and one call', { timeout: 180_000 }, async () => {
  const p = await openPage(browser, server.url);
  try {
    const { page } = p;
    const script =
      'import jax\nimport jax.numpy as jnp\nfrom jax import lax\n\n' +
      'def step(w, x):\n' +
      '    g = jax.grad(lambda w: jnp.mean(jnp.tanh(x @ w) ** 2))(w)\n' +
      "    return w - 0.1 * lax.pmean(g, 'batch')\n\n" +
      'n = jax.device_count()\n' +
      'w = jnp.ones((n, 128, 128)) / 128.0\n' +
      'x = jnp.ones((n, 16, 128))\n' +
      "w = jax.pmap(step, axis_name='batch')(w, x)\n" +
      'print(n, w.shape)\n';
    await page.goto(`${server.url}${link(script, '&machine=v5e-8&precision=default')}`);
    assert.equal(await page.inputValue($('machine')), 'v5e-8');
    assert.equal(await page.isHidden($('slice')), true, 'no slice view before a mapped call');
    await page.click($('run'));
    const status = await waitForRunEnd(page);
    const output = await page.textContent($('output'));
    assert.equal(status, 'done', `run failed; output:\n${output}${diagnostics(p)}`);
    assert.match(output, /^8 \(8, 128, 128\)/, output);
    assert.equal(await page.isVisible($('slice')), true, 'the slice view opens');
    const summary = await page.textContent($('slice-summary'));
    assert.match(summary, /^pmap_step on 8 chips of v5e-8, called once: one call takes [\d.]+ µs/, summary);
    // Eight chips on the 2x4 grid, all busy; links between neighbours carried the all-reduce.
    assert.equal(await page.locator(`${$('slice-grid')} .slice-chip`).count(), 8);
    assert.equal(await page.locator(`${$('slice-grid')} .slice-chip.idle`).count(), 0);
    assert.ok((await page.locator(`${$('slice-grid')} .slice-link`).count()) >= 8, 'links drawn');
    // The steps: the gradient program, its all-reduce, the update.
    const steps = await page.locator(`${$('slice-steps')} tbody tr td:first-child`).allTextContents();
    assert.deepEqual(steps, ['pmap_step.0', "psum 'batch'", 'pmap_step.1'], `${steps}`);
    assert.match(await page.textContent(`${$('slice-steps')} tbody`), /all-reduce over 8 chips/);

    // On one chip the same script maps over the one device, and the view shows one chip.
    await page.selectOption($('machine'), 'v5e');
    await page.waitForFunction(
      () => /^1 \(1, 128, 128\)/.test(document.querySelector('[data-testid="output"]')?.textContent ?? ''),
      null,
      { timeout: 120_000, polling: 100 },
    );
    assert.equal(await waitForRunEnd(page), 'done', diagnostics(p));
    assert.equal(await page.locator(`${$('slice-grid')} .slice-chip`).count(), 1);
  } finally {
    await p.close();
  }
});

test('a link with machine, precision and MXU size selects them, and the run reports that machine', { timeout: 180_000 }, async () => {
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

    // A custom MXU size travels in the link too, and the run emulates it: the same program takes
    // other cycles (fewer here: a 3×4 by 4×5 matmul is all fill and drain, 62 cycles through a
    // 32×32 array against 254 through v4's 128×128).
    await page.goto(`${server.url}${link(SKELETON, '&machine=v4&precision=highest&mxu=32')}`);
    await page.reload();
    assert.equal(await page.inputValue($('mxu')), '32');
    await page.click($('run'));
    assert.equal(await waitForRunEnd(page), 'done', diagnostics(p));
    assert.match(await page.textContent($('backend')), /emulating TPU v4\+mxu=32x32/, diagnostics(p));
    const small = await page.getAttribute(`${$('counters')} tr[data-program="f"] td[data-counter="cycles"]`, 'data-value');
    assert.ok(Number(small) > 0 && Number(small) !== Number(cycles), `32×32: ${small} cycles, 128×128: ${cycles}`);
    assert.match(await page.evaluate(() => location.hash), /&mxu=32$/, 'the link keeps the MXU size');

    // Unknown values are ignored: the defaults stay.
    await page.goto(`${server.url}${link(SKELETON, '&machine=v99&precision=extreme&mxu=7')}`);
    await page.reload();
    assert.equal(await page.inputValue($('machine')), 'v5e');
    assert.equal(await page.inputValue($('precision')), 'default');
    assert.equal(await page.inputValue($('mxu')), '');

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

/** Clicks `selector` and returns the download it starts: its file name and its text. */
async function downloadOf(page, selector) {
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 10_000 }), page.click(selector)]);
  const path = await download.path();
  return { name: download.suggestedFilename(), text: await readFile(path, 'utf8') };
}

function assertClose(actual, expected, what) {
  assert.ok(Math.abs(actual - expected) <= 1e-9 * Math.abs(expected), `${what}: ${actual} is not ${expected}`);
}

test('program f: cycle breakdown, roofline, timeline, listing with cycles, and the exports', { timeout: 180_000 }, async () => {
  const p = await openPage(browser, server.url);
  try {
    const { page } = p;
    await page.goto(`${server.url}${link(SKELETON)}`);
    await page.click($('run'));
    const status = await waitForRunEnd(page);
    assert.equal(status, 'done', `run failed; output:\n${await page.textContent($('output'))}${diagnostics(p)}`);
    await page.selectOption($('program-select'), 'f');
    // f's counters as the table holds them (data-value keeps every digit).
    const counter = async (name) =>
      Number(await page.getAttribute(`${$('counters')} tr[data-program="f"] td[data-counter="${name}"]`, 'data-value'));

    // The cycle breakdown: segments that add up to every MXU cycle, the array active in some.
    const segments = await page.$$eval(`${$('breakdown')} .segment`, (els) =>
      els.map((el) => [el.dataset.category, Number(el.dataset.fraction)]),
    );
    const sum = segments.reduce((total, [, f]) => total + f, 0);
    assert.ok(Math.abs(sum - 1) <= 1e-6, `the segments sum to ${sum}: ${JSON.stringify(segments)}`);
    const active = segments.find(([name]) => name === 'array_active');
    assert.ok(active && active[1] > 0, `array_active is a segment above 0: ${JSON.stringify(segments)}`);
    assert.equal(active[1], await counter('breakdown.array_active'), 'the bar shows the counter');

    // The roofline: f's point sits at (FLOPs per HBM byte, FLOPs per second).
    const point = page.locator(`${$('roofline')} [data-testid="roofline-point"]`);
    const [x, y] = [Number(await point.getAttribute('data-x')), Number(await point.getAttribute('data-y'))];
    const flops = await counter('flops');
    assertClose(x, flops / ((await counter('hbm_bytes_read')) + (await counter('hbm_bytes_written'))), 'x');
    assertClose(y, flops / (await counter('seconds')), 'y');
    assert.match(await page.textContent($('roofline')), /ridge [\d.]+ FLOP\/byte/, 'the ridge point is labelled');
    assert.match(await page.textContent($('roofline')), /f: .*% of roof/, 'the point is labelled with its share of the roof');

    // The timeline: a row per track (v5e: four MXUs), and f's operations drawn.
    const tracks = await page.$$eval(`${$('timeline')} .timeline-track`, (els) => els.map((el) => el.textContent));
    assert.deepEqual(tracks, ['scalar', 'dma load', 'dma store', 'mxu0', 'mxu1', 'mxu2', 'mxu3', 'vector', 'xlu']);
    assert.equal(await page.getAttribute($('timeline'), 'data-tracks'), String(tracks.length));
    assert.ok(Number(await page.getAttribute($('timeline'), 'data-drawn')) > 0, 'spans are drawn');
    assert.equal(await page.isHidden($('timeline-note')), true, 'the skeleton fits in the timeline');

    // The listing: every instruction with its executions, busy and wait cycles.
    await page.click($('stage-asm'));
    const matmul = page.locator(`${$('listing')} [data-index]`, { hasText: 'mxu.matmul' }).first();
    const cells = await matmul.locator('span').allTextContents();
    assert.equal(cells.length, 5, `index, executions, busy, wait, instruction: ${cells}`);
    assert.equal(cells[1], '1', 'the matmul runs once');
    assert.ok(Number(cells[2].replace(/,/g, '')) > 0, `it is busy for some cycles: ${cells}`);
    // Hovering its line highlights its spans on the timeline.
    assert.equal(await page.getAttribute($('timeline'), 'data-highlighted'), '0');
    await matmul.hover();
    assert.ok(Number(await page.getAttribute($('timeline'), 'data-highlighted')) >= 1, 'the matmul’s spans are highlighted');
    // And hovering its span (on mxu0's row) highlights its line.
    await page.locator(`${$('timeline')} canvas`).scrollIntoViewIfNeeded();
    const row = await page.locator(`${$('timeline')} .timeline-track[data-track="mxu0"]`).boundingBox();
    const canvas = await page.locator(`${$('timeline')} canvas`).boundingBox();
    const matmulIndex = await matmul.getAttribute('data-index');
    let found = null;
    for (let px = 1; px < canvas.width && !found; px += 2) {
      await page.mouse.move(canvas.x + px, row.y + row.height * 0.75);
      const tip = await page.$eval(`${$('timeline')} .timeline-tip`, (el) => (el.hidden ? null : el.textContent));
      if (tip?.includes('mxu.matmul')) found = tip;
    }
    assert.ok(found, 'the matmul has a span on mxu0');
    assert.ok(found.startsWith(`${matmulIndex}: mxu.matmul`), `the tooltip names the instruction: ${found}`);
    assert.equal(await page.getAttribute(`${$('listing')} [data-highlighted]`, 'data-index'), matmulIndex);

    // Export trace: Chrome trace-event JSON with the matmul on the mxu0 thread of f's process.
    const trace = await downloadOf(page, $('export-trace'));
    assert.match(trace.name, /\.json$/);
    const { traceEvents } = JSON.parse(trace.text);
    const proc = traceEvents.find((e) => e.ph === 'M' && e.name === 'process_name' && e.args.name === 'f');
    assert.ok(proc, 'a process named f');
    const thread = traceEvents.find((e) => e.ph === 'M' && e.name === 'thread_name' && e.pid === proc.pid && e.args.name === 'mxu0');
    assert.ok(thread, 'f has a thread named mxu0');
    const event = traceEvents.find((e) => e.ph === 'X' && e.name === 'mxu.matmul' && e.pid === proc.pid && e.tid === thread.tid);
    assert.ok(event, 'an X event named mxu.matmul on mxu0');
    // Microseconds of emulated time: cycles / clock, with the clock being cycles / seconds.
    const clock = (await counter('cycles')) / (await counter('seconds'));
    assertClose(event.dur, ((event.args.end_cycle - event.args.start_cycle) / clock) * 1e6, 'dur');
    assertClose(event.ts, (event.args.start_cycle / clock) * 1e6, 'ts');

    // Export counters: CSV with a header row and a row per program, and the same as JSON.
    const csv = await downloadOf(page, $('export-counters-csv'));
    assert.match(csv.name, /\.csv$/);
    const [header, ...rows] = csv.text.trim().split(/\r?\n/).map((line) => line.split(','));
    assert.deepEqual(header.slice(0, 4), ['program', 'calls', 'eager', 'cycles']);
    assert.ok(header.includes('breakdown.array_active'), `the breakdown is flattened: ${header}`);
    const f = rows.find((r) => r[0] === 'f');
    assert.equal(Number(f[header.indexOf('cycles')]), await counter('cycles'));
    const json = JSON.parse((await downloadOf(page, $('export-counters-json'))).text);
    assert.equal(json.programs.find((prog) => prog.name === 'f').counters['breakdown.array_active'], active[1]);
    assert.equal(json.programs.length, rows.length);

    assert.deepEqual(p.foreignRequests, [], 'the page fetches nothing from outside its own server');
  } finally {
    await p.close();
  }
});

/**
 * examples/*.py with the header the page shows: `# Title`, `#`, then the explanation's comment
 * lines (web/src/examples.ts and crates/runtime/tests/examples.rs read it the same way).
 */
async function examplesOnDisk() {
  const dir = join(REPO_ROOT, 'examples');
  const files = (await readdir(dir)).filter((f) => f.endsWith('.py')).sort();
  const examples = [];
  for (const file of files) {
    const source = await readFile(join(dir, file), 'utf8');
    const lines = source.split(/\r?\n/);
    assert.match(lines[0], /^# \S/, `${file} opens with its title`);
    assert.equal(lines[1].trimEnd(), '#', `${file}: a bare # after the title`);
    const paragraph = [];
    for (const line of lines.slice(2)) {
      if (!line.startsWith('#')) break;
      if (line.slice(1).trim()) paragraph.push(line.slice(1).trim());
    }
    examples.push({ name: file.replace(/\.py$/, ''), title: lines[0].slice(2).trim(), explanation: paragraph.join(' '), source });
  }
  return examples;
}

test('every example loads from the menu with its explanation and runs to done', { timeout: 600_000 }, async () => {
  const examples = await examplesOnDisk();
  assert.ok(examples.length >= 10, `examples: ${examples.map((e) => e.name)}`);
  const p = await openPage(browser, server.url);
  try {
    const { page } = p;
    await page.goto(server.url);
    assert.equal(await page.isHidden($('example-explanation')), true, 'no explanation for the skeleton');
    const options = await page.$$eval(`${$('examples')} option:not([disabled])`, (os) => os.map((o) => [o.value, o.textContent]));
    assert.deepEqual(
      options.map(([name]) => name).sort(),
      examples.map((e) => e.name),
      'the menu lists every example',
    );
    for (const [name, label] of options) assert.equal(label, examples.find((e) => e.name === name).title);
    await page.selectOption($('backend-select'), 'cpu');

    for (const example of examples) {
      await page.selectOption($('examples'), example.name);
      assert.equal(await page.textContent($('example-explanation')), example.explanation, example.name);
      assert.equal(await page.isVisible($('example-explanation')), true);
      // The share link follows the choice at once: it carries the example's code.
      assert.equal(await page.evaluate(() => location.hash), `${link(example.source)}&machine=v5e&precision=default`);
      const firstLine = await page.locator(`${$('editor')} .cm-line`).first().textContent();
      assert.equal(firstLine, example.source.split('\n')[0], 'the editor holds the example');

      const started = Date.now();
      await page.click($('run'));
      const status = await waitForRunEnd(page);
      const output = await page.textContent($('output'));
      assert.equal(status, 'done', `${example.name} failed; output:\n${output}${diagnostics(p)}`);
      assert.ok(output.trim().length > 0 && !output.includes('(the script printed nothing)'), `${example.name} prints`);
      // Running rewrites the link from the editor's text: the same, so the editor held all of it.
      assert.equal(await page.evaluate(() => location.hash), `${link(example.source)}&machine=v5e&precision=default`);
      console.log(`# ${example.name}: done in ${Date.now() - started} ms`);
    }

    // A link to an unedited example opens with its explanation and its name in the menu.
    const shared = examples.find((e) => e.name === 'padding_128') ?? examples[0];
    await page.goto(`${server.url}${link(shared.source)}&machine=v4`);
    await page.reload();
    assert.equal(await page.inputValue($('examples')), shared.name);
    assert.equal(await page.textContent($('example-explanation')), shared.explanation);
    assert.equal(await page.inputValue($('machine')), 'v4');

    const shots = join(REPO_ROOT, 'target', 'screenshots');
    await mkdir(shots, { recursive: true });
    await page.screenshot({ path: join(shots, 'example.png'), fullPage: true });
    assert.deepEqual(p.foreignRequests, [], 'the page fetches nothing from outside its own server');
  } finally {
    await p.close();
  }
});

test('every example prints the same on WebGPU (SwiftShader) as on the CPU', { timeout: 900_000 }, async () => {
  const examples = await examplesOnDisk();
  const p = await openPage(browser, server.url);
  try {
    const { page } = p;
    await page.goto(server.url);
    const outputOn = async (backend) => {
      // A new backend re-runs the results on display (this example's, or the last one's before
      // the menu loaded this one); otherwise Run.
      const runs = () => page.getAttribute($('status'), 'data-runs');
      const before = await runs();
      await page.selectOption($('backend-select'), backend);
      if ((await runs()) === before) await page.click($('run'));
      const status = await waitForRunEnd(page, 300_000);
      const output = await page.textContent($('output'));
      return { status, output, backend: await page.textContent($('backend')) };
    };
    for (const example of examples) {
      await page.selectOption($('examples'), example.name);
      const cpu = await outputOn('cpu');
      assert.equal(cpu.status, 'done', `${example.name} on the CPU; output:\n${cpu.output}${diagnostics(p)}`);
      const started = Date.now();
      const gpu = await outputOn('gpu');
      assert.equal(gpu.status, 'done', `${example.name} on WebGPU; output:\n${gpu.output}${diagnostics(p)}`);
      assert.match(gpu.backend, /^WebGPU: /);
      // The backends agree bit for bit, so the printed text is identical.
      assert.equal(gpu.output, cpu.output, `${example.name}${diagnostics(p)}`);
      console.log(`# ${example.name}: WebGPU in ${Date.now() - started} ms`);
    }
  } finally {
    await p.close();
  }
});

// Thousands of 256×256 matmuls, each emulated in full: minutes of work, far below the
// interpreter's step budget, so only Stop ends it.
const LONG_LOOP = `import jax
import jax.numpy as jnp

step = jax.jit(lambda x: jnp.tanh(x @ x))
x = jnp.ones((256, 256)) * 0.01
for i in range(100000):
    x = step(x)
print(x.sum())
`;

test('a long loop shows its progress; Stop ends it within a second, and the next run works', { timeout: 180_000 }, async () => {
  const p = await openPage(browser, server.url);
  try {
    const { page } = p;
    await page.goto(`${server.url}${link(LONG_LOOP)}`);
    await page.selectOption($('backend-select'), 'cpu');
    assert.equal(await page.isHidden($('stop')), true, 'no Stop before a run');
    await page.click($('run'));
    assert.equal(await page.textContent($('status')), 'running');
    assert.equal(await page.isVisible($('stop')), true, 'Stop shows while running');
    assert.equal(await page.isHidden($('run')), true, 'in place of Run');

    // The elapsed time ticks while the run goes on.
    await page.waitForTimeout(1_500);
    const before = await page.textContent($('elapsed'));
    await page.waitForTimeout(400);
    const later = await page.textContent($('elapsed'));
    assert.match(later, /^\d+(\.\d)? m?s$/, `elapsed: ${later}`);
    assert.notEqual(later, before, 'the elapsed time ticks');
    assert.equal(await page.textContent($('status')), 'running', `the loop still runs; output:\n${await page.textContent($('output'))}${diagnostics(p)}`);

    // The loop's progress shows and moves: its line, iterations done of the range's length.
    const progressOf = async () => {
      const text = await page.textContent($('progress-text'));
      const m = /^line 6: (\d+) \/ 100000$/.exec(text ?? '');
      assert.ok(m, `progress: ${text}`);
      return Number(m[1]);
    };
    assert.equal(await page.isVisible($('progress')), true, 'progress shows during a long loop');
    const first = await progressOf();
    await page.waitForTimeout(500);
    const second = await progressOf();
    assert.ok(second > first && first >= 1, `progress moves: ${first} then ${second}`);
    assert.equal(await page.getAttribute($('progress-bar'), 'max'), '100000');

    const clicked = Date.now();
    await page.click($('stop'));
    await page.waitForFunction(() => document.querySelector('[data-testid="status"]')?.textContent === 'stopped', null, {
      timeout: 1_000,
      polling: 20,
    });
    console.log(`# stopped ${Date.now() - clicked} ms after the click`);
    assert.equal(await page.isHidden($('stop')), true, 'Stop hides again');
    assert.equal(await page.isVisible($('run')), true, 'Run is back');
    assert.equal(await page.isEnabled($('run')), true);
    assert.match(await page.textContent($('output')), /stopped after/);
    assert.equal(await page.isHidden($('progress')), true, 'progress hides when the run ends');
    const frozen = await page.textContent($('elapsed'));
    await page.waitForTimeout(300);
    assert.equal(await page.textContent($('elapsed')), frozen, 'the clock stops with the run');

    // A fresh engine runs the next script.
    await page.goto(`${server.url}${link(SKELETON)}`);
    await page.click($('run'));
    const status = await waitForRunEnd(page);
    const output = await page.textContent($('output'));
    assert.equal(status, 'done', `the run after Stop failed; output:\n${output}${diagnostics(p)}`);
    assert.equal(output, SKELETON_STDOUT, diagnostics(p));
  } finally {
    await p.close();
  }
});

/** A matrix from a table of the systolic view: a row per <tr>, the numbers of its <td>s. */
async function matrixOf(page, testid) {
  return page.$$eval(`${$(testid)} tr`, (rows) =>
    rows.map((tr) => [...tr.querySelectorAll('td:not(.mark)')].map((td) => (td.dataset.value === undefined ? null : Number(td.dataset.value)))),
  );
}

test('the systolic array steps to the end in 2·rows + cols + M − 2 cycles and leaves A·W', { timeout: 120_000 }, async () => {
  const p = await openPage(browser, server.url);
  try {
    const { page } = p;
    await page.goto(server.url);
    const view = $('systolic');
    // Before any run, the real MXU it points at is 128×128.
    assert.equal(await page.getAttribute($('systolic-mxu'), 'data-rows'), '128');
    assert.match(await page.textContent($('systolic-mxu')), /2·128 \+ 128 \+ M − 2 = 382 \+ M/);

    for (const [rows, cols, m] of [[4, 4, 4], [3, 5, 6], [8, 2, 1]]) {
      await page.selectOption($('systolic-rows'), String(rows));
      await page.selectOption($('systolic-cols'), String(cols));
      await page.selectOption($('systolic-m'), String(m));
      const formula = 2 * rows + cols + m - 2;
      const what = `${rows}×${cols} array, M = ${m}`;
      assert.equal(await page.getAttribute(view, 'data-cycle'), '0', what);
      assert.equal(Number(await page.getAttribute(view, 'data-total')), formula, `${what}: the simulation's length`);
      assert.ok((await page.textContent($('systolic-formula'))).includes(`= 2·${rows} + ${cols} + ${m} − 2 = ${formula}`), what);
      const a = await matrixOf(page, 'systolic-a');
      const w = await matrixOf(page, 'systolic-w');
      assert.equal(a.length, m);
      assert.equal(w.length, rows);
      assert.equal(w[0].length, cols);

      let steps = 0;
      while ((await page.getAttribute(view, 'data-finished')) !== 'true' && steps < 100) {
        await page.click($('systolic-step'));
        steps++;
        if (steps === rows) {
          // The weights are in: PE (i, j) holds W[i][j].
          const held = await page.$$eval(`${view} .systolic-pe`, (els) => els.map((e) => [Number(e.dataset.i), Number(e.dataset.j), Number(e.dataset.weight)]));
          for (const [i, j, weight] of held) assert.equal(weight, w[i][j], `${what}: PE (${i}, ${j}) after loading`);
        }
      }
      assert.equal(steps, formula, `${what}: steps to the last result`);
      assert.match(await page.textContent($('systolic-cycle')), new RegExp(`^cycle ${formula} of ${formula}$`));
      assert.equal(await page.isDisabled($('systolic-step')), true, 'nothing left to step');
      const expected = a.map((row) => w[0].map((_, n) => row.reduce((sum, x, k) => sum + x * w[k][n], 0)));
      assert.deepEqual(await matrixOf(page, 'systolic-c'), expected, `${what}: C = A·W`);
      assert.equal(await page.getAttribute($('systolic-check'), 'data-ok'), 'true', await page.textContent($('systolic-check')));
    }

    // Reset goes back to cycle 0; Play runs to the end by itself.
    await page.click($('systolic-reset'));
    assert.equal(await page.getAttribute(view, 'data-cycle'), '0');
    assert.deepEqual((await matrixOf(page, 'systolic-c')).flat().filter((v) => v !== null), [], 'C is empty again');
    await page.selectOption($('systolic-speed'), { label: 'fast' });
    await page.click($('systolic-play'));
    await page.waitForFunction((sel) => document.querySelector(sel)?.dataset.finished === 'true', view, { timeout: 20_000 });
    assert.equal(await page.getAttribute(view, 'data-cycle'), String(2 * 8 + 2 + 1 - 2));
    assert.match(await page.textContent($('systolic-play')), /Play/, 'the player stops at the end');

    const shots = join(REPO_ROOT, 'target', 'screenshots');
    await mkdir(shots, { recursive: true });
    await page.selectOption($('systolic-rows'), '4');
    await page.selectOption($('systolic-cols'), '4');
    await page.selectOption($('systolic-m'), '4');
    for (let i = 0; i < 8; i++) await page.click($('systolic-step'));
    await page.locator('.systolic-panel').screenshot({ path: join(shots, 'systolic.png') });
    assert.deepEqual(p.log, [], 'no console errors');
  } finally {
    await p.close();
  }
});

test('running on v5e then choosing v2 re-runs and compares the two runs, counter by counter', { timeout: 240_000 }, async () => {
  const p = await openPage(browser, server.url);
  try {
    const { page } = p;
    await page.goto(`${server.url}${link(SKELETON)}`);
    await page.selectOption($('backend-select'), 'cpu');
    await page.selectOption($('machine'), 'v4');
    await page.selectOption($('machine'), 'v5e');
    assert.equal(await page.getAttribute($('status'), 'data-runs'), null, 'with no results on display a choice waits for Run');
    const counter = async (name) =>
      Number(await page.getAttribute(`${$('counters')} tr[data-program="f"] td[data-counter="${name}"]`, 'data-value'));
    const finished = async (what) => {
      const status = await waitForRunEnd(page);
      assert.equal(status, 'done', `run ${what} failed; output:\n${await page.textContent($('output'))}${diagnostics(p)}`);
      return { cycles: await counter('cycles'), seconds: await counter('seconds') };
    };
    // With results on display, choosing another machine or precision runs the script again.
    const runsStarted = async () => Number((await page.getAttribute($('status'), 'data-runs')) ?? 0);
    const rerunWith = async (select, value) => {
      const before = await runsStarted();
      await page.selectOption($(select), value);
      assert.equal(await runsStarted(), before + 1, `choosing ${select} ${value} re-runs the script`);
      return finished(`with ${select} ${value}`);
    };

    await page.click($('run'));
    const v5e = await finished('on v5e');
    assert.equal(await page.getAttribute($('compare'), 'data-runs'), '1');
    assert.match(await page.textContent($('compare')), /Choose another machine or precision/, 'one run: nothing to compare yet');
    const v2 = await rerunWith('machine', 'v2');
    assert.equal(await page.getAttribute($('compare'), 'data-runs'), '2');
    assert.match(await page.textContent($('compare-setup')), /machine v5e → v2/);
    assert.match(await page.textContent($('compare-setup')), /precision default\b/);

    const row = (name) => `${$('compare')} tr[data-program="f"][data-counter="${name}"]`;
    for (const [name, before, after] of [['cycles', v5e.cycles, v2.cycles], ['seconds', v5e.seconds, v2.seconds]]) {
      assert.equal(Number(await page.getAttribute(`${row(name)} td[data-run="a"]`, 'data-value')), before, `${name} on v5e`);
      assert.equal(Number(await page.getAttribute(`${row(name)} td[data-run="b"]`, 'data-value')), after, `${name} on v2`);
      assert.equal(Number(await page.getAttribute(`${row(name)} td[data-cell="change"]`, 'data-value')), after - before, `${name} change`);
      const ratio = after / before;
      assertClose(Number(await page.getAttribute(`${row(name)} td[data-cell="ratio"]`, 'data-value')), ratio, `${name} ratio`);
      assert.equal(await page.textContent(`${row(name)} td[data-cell="ratio"]`), `×${ratio.toPrecision(3)}`, `${name} ratio as text`);
      assert.equal(await page.getAttribute(row(name), 'class'), before === after ? 'same' : 'changed');
    }
    const cyclesText = await page.$$eval(`${row('cycles')} td`, (tds) => tds.map((td) => td.textContent));
    const NUMBER = new Intl.NumberFormat('en-US');
    assert.deepEqual(cyclesText.slice(1, 3), [NUMBER.format(v5e.cycles), NUMBER.format(v2.cycles)]);
    // v2's clock is slower than v5e's: the same cycles take longer.
    assert.equal(await page.getAttribute(row('seconds'), 'class'), 'changed');
    // The program's title line sums it up.
    assert.ok(
      (await page.textContent(`${$('compare')} tbody[data-program="f"] .program-title`)).includes(
        `${NUMBER.format(v5e.cycles)} → ${NUMBER.format(v2.cycles)} cycles, ×${(v2.cycles / v5e.cycles).toPrecision(3)}`,
      ),
    );
    // "Only what changed" hides the rows that did not.
    await page.check($('compare-only-changed'));
    assert.equal(await page.isVisible(row('seconds')), true);
    assert.equal(await page.isVisible(row('flops')), false, 'FLOPs are the same on both machines');
    // The systolic view now names the machine of the latest run.
    assert.match(await page.textContent($('systolic-mxu')), /TPU v2’s MXU is 128×128/);

    // Precision HIGHEST on the same machine: three more bf16 passes through the MXU. The latest
    // run is compared with the one before unless an earlier one is chosen.
    const highest = await rerunWith('precision', 'highest');
    assert.match(await page.textContent($('compare-setup')), /machine v2 · precision default → highest/);
    assert.equal(Number(await page.getAttribute(`${row('cycles')} td[data-run="a"]`, 'data-value')), v2.cycles);
    assert.equal(Number(await page.getAttribute(`${row('cycles')} td[data-run="b"]`, 'data-value')), highest.cycles);
    console.log(`# f: ${v5e.cycles} cycles on v5e, ${v2.cycles} on v2, ${highest.cycles} on v2 at highest precision`);
    await page.selectOption($('compare-baseline'), { label: 'run 1 · v5e · default' });
    assert.match(await page.textContent($('compare-setup')), /machine v5e → v2 · precision default → highest/);
    assert.equal(
      await page.textContent(`${row('cycles')} td[data-cell="ratio"]`),
      `×${(highest.cycles / v5e.cycles).toPrecision(3)}`,
    );

    const shots = join(REPO_ROOT, 'target', 'screenshots');
    await mkdir(shots, { recursive: true });
    await page.locator('.compare-panel').screenshot({ path: join(shots, 'compare.png') });
  } finally {
    await p.close();
  }
});

test('a script with two errors lists two problems; clicking one puts the cursor there', { timeout: 180_000 }, async () => {
  const p = await openPage(browser, server.url);
  try {
    const { page } = p;
    const script = 'import jax.numpy as jnp\nx = jnp.ones((2, 2)) +\ny = 3\nz = y * * 2\nprint(x)\n';
    await page.goto(`${server.url}${link(script)}`);
    assert.equal(await page.isHidden($('problems')), true, 'no problems before a run');
    await page.click($('run'));
    const status = await waitForRunEnd(page);
    assert.equal(status, 'error', `expected an error; output:\n${await page.textContent($('output'))}${diagnostics(p)}`);
    assert.equal(await page.isVisible($('problems')), true);
    const problems = await page.$$eval(`${$('problems')} .problem`, (els) =>
      els.map((el) => ({ line: Number(el.dataset.line), col: Number(el.dataset.col), text: el.textContent })),
    );
    assert.equal(problems.length, 2, JSON.stringify(problems));
    assert.deepEqual(problems.map((e) => e.line), [2, 4]);
    for (const e of problems) assert.ok(e.text.startsWith(`${e.line}:${e.col}`), `line:col first: ${e.text}`);
    // The output lists the same errors.
    const output = await page.textContent($('output'));
    for (const e of problems) assert.ok(output.includes(`${e.line}:${e.col}: `), output);

    const cursor = () =>
      page.evaluate(() => {
        const line = Number(document.querySelector('.cm-lineNumbers .cm-activeLineGutter')?.textContent);
        const selection = getSelection();
        const lineEl = selection.focusNode?.parentElement?.closest('.cm-line') ?? (selection.focusNode?.classList?.contains('cm-line') ? selection.focusNode : null);
        const range = document.createRange();
        range.setStart(lineEl, 0);
        range.setEnd(selection.focusNode, selection.focusOffset);
        return { line, col: range.toString().length + 1, focused: document.activeElement?.classList.contains('cm-content') };
      });
    await page.locator(`${$('problems')} .problem`).nth(1).click();
    assert.deepEqual(await cursor(), { line: problems[1].line, col: problems[1].col, focused: true }, 'at the second problem');
    await page.locator(`${$('problems')} .problem`).nth(0).click();
    assert.deepEqual(await cursor(), { line: problems[0].line, col: problems[0].col, focused: true }, 'at the first problem');

    // A successful run clears the list.
    await page.goto(`${server.url}${link(SKELETON)}`);
    await page.click($('run'));
    assert.equal(await waitForRunEnd(page), 'done');
    assert.equal(await page.isHidden($('problems')), true, 'no problems after a good run');
  } finally {
    await p.close();
  }
});
