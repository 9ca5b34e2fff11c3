// End-to-end: <tpu-playground> (web/src/embed.ts, docs/embedding.md) in the built web/dist, in
// headless Chromium: the demo article's three live examples, events, readonly, several elements
// at once, shadow-DOM style isolation, lazy start, and the snippet from docs/embedding.md pasted
// into a plain HTML file next to the built files. Pages the tests need are written into
// web/dist at test time and removed afterwards.
import assert from 'node:assert/strict';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DIST, REPO_ROOT, launchChromium, openPage, serveStatic } from './harness.mjs';

let server;
let browser;
const written = [];

before(async () => {
  server = await serveStatic();
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.close();
  for (const file of written) await rm(file, { force: true });
});

/** Writes a file into web/dist for this run of the tests; returns its URL. */
async function distFile(name, text) {
  const file = join(DIST, `${name}`);
  await writeFile(file, text);
  written.push(file);
  return `${server.url}${name}`;
}

function diagnostics(p) {
  return `\n--- browser log ---\n${p.log.join('\n') || '(empty)'}`;
}

/** Records every run event of every element, in order, from before the page's scripts run. */
function recordEvents(page) {
  return page.addInitScript(() => {
    window.__events = [];
    for (const type of ['run-start', 'run-progress', 'run-complete', 'run-error']) {
      document.addEventListener(type, (e) => {
        const target = e.composedPath()[0];
        window.__events.push({ id: target.id, type, detail: JSON.parse(JSON.stringify(e.detail ?? null)) });
      });
    }
  });
}

/** Waits until element #id has finished a run; returns its state (`done`, `error`, `stopped`). */
async function waitForElement(page, id, timeout = 120_000) {
  await page.waitForFunction(
    (id) => ['done', 'error', 'stopped'].includes(document.getElementById(id)?.state),
    id,
    { timeout, polling: 100 },
  );
  return page.evaluate((id) => document.getElementById(id).state, id);
}

/** The text inside element #id's shadow root at `selector`. */
const inside = (page, id, selector) => page.locator(`#${id} ${selector}`).first().textContent();

/** The counters table of element #id: `{ program, counter → value }` per row. */
function countersOf(page, id) {
  return page.evaluate((id) => {
    const rows = document.getElementById(id).shadowRoot.querySelectorAll('.counters tbody tr[data-program]');
    return [...rows].map((tr) => {
      const row = { program: tr.dataset.program };
      for (const td of tr.querySelectorAll('td[data-counter]')) row[td.dataset.counter] = Number(td.dataset.value);
      return row;
    });
  }, id);
}

test('the demo article runs its three examples, each showing its own results', { timeout: 300_000 }, async () => {
  const p = await openPage(browser, server.url);
  try {
    const { page } = p;
    await recordEvents(page);
    await page.goto(`${server.url}embed-demo.html`);
    const ids = ['systolic-example', 'precision-example', 'fusion-example'];
    for (const id of ids) {
      // autorun: each runs when it comes into view.
      await page.locator(`#${id}`).scrollIntoViewIfNeeded();
      const state = await waitForElement(page, id);
      assert.equal(state, 'done', `${id}: ${await inside(page, id, '.output')}${diagnostics(p)}`);
    }

    // 1. Batches of 8, 64, 512 rows through the same weights: MXU utilization climbs.
    assert.match(await inside(page, 'systolic-example', '.output'), /^8 rows -> \(8, 512\)\n64 rows -> \(64, 512\)\n512 rows -> \(512, 512\)\n$/);
    const layers = (await countersOf(page, 'systolic-example')).filter((r) => r.program === 'layer');
    assert.equal(layers.length, 3, JSON.stringify(layers));
    const util = layers.map((r) => r.mxu_utilization);
    assert.ok(util[0] > 0 && util[0] < util[1] && util[1] < util[2], `mxu_utilization climbs: ${util}`);
    const columns = await page.$$eval('#systolic-example .counters thead th[data-counter]', (ths) => ths.map((th) => th.dataset.counter));
    assert.deepEqual(columns, ['cycles', 'flops', 'mxu_busy_cycles', 'mxu_utilization', 'arithmetic_intensity'], 'the counters attribute picks the columns');
    assert.equal(await page.locator('#systolic-example [data-testid="systolic-mxu"]').count(), 1, 'the systolic panel is there');

    // 2. HIGHEST then DEFAULT: the same flops, six times the MXU passes.
    assert.match(await inside(page, 'precision-example', '.output'), /max \|default - highest\|: 0\.0\d+/);
    const [highest, one] = (await countersOf(page, 'precision-example')).filter((r) => r.program === 'matmul');
    assert.equal(highest.flops, one.flops);
    assert.equal(highest.mxu_macs, 6 * one.mxu_macs, 'six bf16 passes at highest');
    assert.match(await inside(page, 'precision-example', '.setup'), /precision highest/);

    // 3. Op by op vs jitted: the same values; the fused graph is one kOutput fusion.
    const fusionOut = await inside(page, 'fusion-example', '.output');
    const [eager, jitted] = fusionOut.trim().split('\n').map((l) => l.split(':')[1].trim());
    assert.equal(eager, jitted, fusionOut);
    assert.match(await inside(page, 'fusion-example', '.stage-text'), /kind=kOutput/);
    const fusion = await countersOf(page, 'fusion-example');
    const layer = fusion.find((r) => r.program === 'layer');
    const opByOp = fusion.filter((r) => ['dot_general', 'add', 'gt', 'mul', 'select_n', 'broadcast_in_dim'].includes(r.program));
    const bytes = (r) => r.hbm_bytes_read + r.hbm_bytes_written;
    assert.ok(opByOp.reduce((s, r) => s + bytes(r), 0) > 3 * bytes(layer), JSON.stringify(fusion));

    // Each element's result is its own, and the JS API exposes it.
    const results = await page.evaluate((ids) => ids.map((id) => {
      const r = document.getElementById(id).result;
      return { ok: r.ok, stdout: r.stdout, programs: r.programs.map((p) => p.name), machine: r.machine };
    }), ids);
    assert.ok(results.every((r) => r.ok && r.machine === 'v5e'));
    assert.ok(results[0].programs.includes('layer') && !results[0].programs.includes('matmul'));
    assert.ok(results[1].programs.includes('matmul') && !results[1].programs.includes('layer'));
    assert.ok(results[2].programs.includes('select_n'));
    assert.equal(results[0].stdout, await inside(page, 'systolic-example', '.output'));

    // Events, per element: run-start, progress, then run-complete; never run-error.
    const events = await page.evaluate(() => window.__events);
    for (const id of ids) {
      const types = events.filter((e) => e.id === id).map((e) => e.type);
      assert.equal(types[0], 'run-start', `${id}: ${types}`);
      assert.equal(types.at(-1), 'run-complete', `${id}: ${types}`);
      assert.ok(types.includes('run-progress'), `${id}: ${types}`);
      assert.equal(types.filter((t) => t === 'run-start').length, 1);
      assert.equal(types.filter((t) => t === 'run-complete').length, 1);
      assert.ok(!types.includes('run-error'), `${id}: ${types}`);
      const complete = events.find((e) => e.id === id && e.type === 'run-complete');
      assert.equal(complete.detail.result.ok, true);
      assert.ok(complete.detail.elapsedMs >= 0);
    }
    const start = events.find((e) => e.id === 'precision-example' && e.type === 'run-start');
    assert.deepEqual(start.detail.options, { machine: 'v5e', precision: 'highest', backend: 'auto' });
    assert.match(start.detail.code, /^import jax\n/, 'the code, dedented');

    assert.equal(page.workers().length, 1, 'one engine worker for the whole page');
    assert.deepEqual(p.foreignRequests, [], 'nothing is fetched from outside the page’s server');
    assert.deepEqual(p.log, [], 'no console errors');
    const shots = join(REPO_ROOT, 'target', 'screenshots');
    await mkdir(shots, { recursive: true });
    await page.screenshot({ path: join(shots, 'embed-demo.png'), fullPage: true });
  } finally {
    await p.close();
  }
});

const ALPHA = `import jax
import jax.numpy as jnp

@jax.jit
def alpha(x):
    return (x @ x).sum()

print("alpha", alpha(jnp.ones((64, 64))))
`;

const BETA = `import jax
import jax.numpy as jnp

@jax.jit
def beta(x):
    return jnp.tanh(x) * 3.0

print("beta", beta(jnp.arange(4.0)))
`;

// Scripts go in as text (a <script> child); the page's CSS tries to reach inside the elements,
// and elements outside them carry the class names the element's own CSS styles.
const FIXTURE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>fixture</title>
    <link rel="icon" href="data:," />
    <script type="module" src="./tpu-playground.js"></script>
    <style>
      pre { background-color: rgb(0, 255, 0) !important; }
      button { border: 9px solid rgb(255, 0, 0) !important; }
      .output, .run, .counters td { color: rgb(255, 0, 0) !important; font-size: 40px !important; }
      tpu-playground { color: rgb(255, 0, 0); font-family: serif; letter-spacing: 7px; }
    </style>
  </head>
  <body>
    <h2 id="page-h2">A page heading</h2>
    <div class="toolbar" id="page-toolbar">not a toolbar</div>
    <p class="backend" id="page-backend">page text</p>
    <tpu-playground id="alpha" panels="editor,output,asm,counters,timeline,roofline"><script type="text/x-python">${ALPHA}</script></tpu-playground>
    <tpu-playground id="beta" machine="v2" precision="highest" panels="output"><script type="text/x-python">${BETA}</script></tpu-playground>
    <tpu-playground id="fixed" readonly height="120" panels="editor,output">
      import jax.numpy as jnp
      print("read only", jnp.ones(2))
    </tpu-playground>
    <tpu-playground id="from-src" src="embed-fixture.py" panels="output"></tpu-playground>
  </body>
</html>
`;

/** The fixture page and the script its `src` element loads; returns the page's URL. */
async function fixture() {
  await distFile('embed-fixture.py', 'print("from a file")\n');
  return distFile('embed-fixture.html', FIXTURE);
}

test('a readonly element rejects edits and still runs', { timeout: 180_000 }, async () => {
  const url = await fixture();
  const p = await openPage(browser, server.url);
  try {
    const { page } = p;
    await page.goto(url);
    await page.waitForFunction(() => document.getElementById('fixed')?.code.startsWith('import'));
    const before = await page.evaluate(() => document.getElementById('fixed').code);
    assert.equal(before, 'import jax.numpy as jnp\nprint("read only", jnp.ones(2))\n');
    const content = page.locator('#fixed .cm-content');
    assert.equal(await content.getAttribute('contenteditable'), 'false');
    await content.click();
    await page.keyboard.type('xyz');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Backspace');
    assert.equal(await page.evaluate(() => document.getElementById('fixed').code), before, 'typing changed nothing');
    // The height attribute (pixels) sizes the editor.
    const height = await page.locator('#fixed .editor').evaluate((e) => e.getBoundingClientRect().height);
    assert.equal(Math.round(height), 120);

    await page.locator('#fixed .run').click();
    assert.equal(await waitForElement(page, 'fixed'), 'done', diagnostics(p));
    assert.equal(await inside(page, 'fixed', '.output'), 'read only [1. 1.]\n');
    // The page's script may still set the code.
    await page.evaluate(() => (document.getElementById('fixed').code = 'print(2)\n'));
    assert.equal(await page.evaluate(() => document.getElementById('fixed').code), 'print(2)\n');
  } finally {
    await p.close();
  }
});

test('two elements run at once without interfering; stopping one leaves the other', { timeout: 180_000 }, async () => {
  const url = await fixture();
  const p = await openPage(browser, server.url);
  try {
    const { page } = p;
    await recordEvents(page);
    await page.goto(url);
    await page.waitForFunction(() => document.getElementById('beta')?.code.includes('beta'));
    // Both at once: the shared engine queues one behind the other.
    const [a, b] = await page.evaluate(async () => {
      const runs = [document.getElementById('alpha').run(), document.getElementById('beta').run()];
      return (await Promise.all(runs)).map((r) => ({ ok: r.ok, stdout: r.stdout, machine: r.machine, programs: r.programs.map((p) => p.name) }));
    });
    assert.equal(a.ok && b.ok, true, `${JSON.stringify([a, b])}${diagnostics(p)}`);
    assert.equal(a.stdout, 'alpha 262144.0\n');
    assert.deepEqual([a.machine, a.programs], ['v5e', ['alpha']]);
    assert.match(b.stdout, /^beta \[0\. +2\.28/);
    assert.deepEqual([b.machine, b.programs], ['v2', ['beta']]);
    assert.equal(await inside(page, 'alpha', '.output'), a.stdout, 'each shows its own output');
    assert.equal(await inside(page, 'beta', '.output'), b.stdout);
    assert.equal(await page.locator('#alpha .counters tr[data-program="alpha"]').count(), 1);
    // The page's views, inside the element: the listing with cycles, the timeline, the roofline.
    assert.ok((await page.locator('#alpha [data-testid="listing"] [data-index]').count()) > 0, 'the assembly listing');
    assert.ok(Number(await page.locator('#alpha .timeline').getAttribute('data-drawn')) > 0, 'the timeline draws spans');
    assert.equal(await page.locator('#alpha [data-testid="roofline-point"]').count(), 1, 'alpha on the roofline');
    assert.equal(await page.locator('#beta .timeline').count(), 0, 'beta shows only its output');
    assert.match(await inside(page, 'beta', '.backend'), /emulating TPU v2/);
    const events = await page.evaluate(() => window.__events);
    const betaEvents = events.filter((e) => e.id === 'beta');
    assert.ok(betaEvents.some((e) => e.type === 'run-progress' && e.detail.queued), 'beta waited for alpha');
    for (const id of ['alpha', 'beta']) {
      const types = events.filter((e) => e.id === id).map((e) => e.type);
      assert.ok(types.indexOf('run-start') < types.indexOf('run-complete'), `${id}: ${types}`);
    }

    // A long run on alpha, then beta queued behind it: stopping alpha lets beta run.
    await page.evaluate(() => {
      const alpha = document.getElementById('alpha');
      alpha.code = 'import jax\nimport jax.numpy as jnp\nstep = jax.jit(lambda x: jnp.tanh(x @ x))\nx = jnp.ones((256, 256)) * 0.01\nfor i in range(100000):\n    x = step(x)\nprint(x.sum())\n';
      window.__alpha = alpha.run();
      window.__beta = document.getElementById('beta').run();
    });
    await page.waitForFunction(() => document.getElementById('alpha').state === 'running');
    assert.equal(await page.evaluate(() => document.getElementById('beta').state), 'queued');
    assert.equal(await page.evaluate(() => document.getElementById('alpha').stop()), true);
    assert.equal(await page.evaluate(() => window.__alpha), null, 'a stopped run resolves to null');
    assert.equal(await waitForElement(page, 'beta'), 'done', diagnostics(p));
    assert.equal(await page.evaluate(() => document.getElementById('alpha').state), 'stopped');
    const stopped = (await page.evaluate(() => window.__events)).filter((e) => e.id === 'alpha').at(-1);
    assert.equal(stopped.type, 'run-error');
    assert.equal(stopped.detail.reason, 'stopped');
    assert.equal(await inside(page, 'beta', '.output'), b.stdout);

    // src: the script comes from a same-origin file.
    await page.evaluate(() => document.getElementById('from-src').run());
    assert.equal(await waitForElement(page, 'from-src'), 'done', diagnostics(p));
    assert.equal(await inside(page, 'from-src', '.output'), 'from a file\n');
    assert.deepEqual(p.foreignRequests, []);
  } finally {
    await p.close();
  }
});

test('styles neither leak into the element nor out of it', { timeout: 120_000 }, async () => {
  const url = await fixture();
  const p = await openPage(browser, server.url);
  try {
    const { page } = p;
    await page.goto(url);
    await page.waitForFunction(() => document.getElementById('alpha')?.shadowRoot?.querySelector('.cm-content'));
    const styles = await page.evaluate(() => {
      const root = document.getElementById('alpha').shadowRoot;
      const css = (el) => getComputedStyle(el);
      const output = css(root.querySelector('.output'));
      const run = css(root.querySelector('.run'));
      const line = css(root.querySelector('.cm-line'));
      const page = (id) => css(document.getElementById(id));
      return {
        output: { background: output.backgroundColor, color: output.color, fontSize: output.fontSize, letterSpacing: output.letterSpacing },
        run: { border: run.borderTopWidth, color: run.color },
        line: { fontFamily: line.fontFamily, color: line.color },
        pageH2: { textTransform: page('page-h2').textTransform, fontSize: page('page-h2').fontSize },
        pageToolbar: page('page-toolbar').display,
        pageBackend: page('page-backend').color,
        rootAccent: css(document.documentElement).getPropertyValue('--accent'),
        bodyBackground: css(document.body).backgroundColor,
        headStyles: document.head.querySelectorAll('style').length,
        adopted: document.adoptedStyleSheets.length,
      };
    });
    // In: the page's rules for pre, button, .output, .run and the host's font do not apply.
    assert.notEqual(styles.output.background, 'rgb(0, 255, 0)', JSON.stringify(styles));
    assert.notEqual(styles.output.color, 'rgb(255, 0, 0)');
    assert.equal(styles.output.fontSize, '13px');
    assert.equal(styles.output.letterSpacing, 'normal', 'the host’s letter-spacing does not inherit in');
    assert.notEqual(styles.run.border, '9px');
    assert.notEqual(styles.run.color, 'rgb(255, 0, 0)');
    assert.doesNotMatch(styles.line.fontFamily, /^serif$/);
    assert.notEqual(styles.line.color, 'rgb(255, 0, 0)');
    // Out: the element's h2, .toolbar, .backend rules and its palette stay inside.
    assert.equal(styles.pageH2.textTransform, 'none');
    assert.equal(styles.pageToolbar, 'block');
    assert.equal(styles.pageBackend, 'rgb(0, 0, 0)');
    assert.equal(styles.rootAccent, '');
    assert.equal(styles.bodyBackground, 'rgba(0, 0, 0, 0)');
    assert.equal(styles.headStyles, 1, 'only the page’s own <style>: CodeMirror mounts its styles in the shadow roots');
    assert.equal(styles.adopted, 0);
  } finally {
    await p.close();
  }
});

test('an element far below the fold starts the engine only when scrolled to', { timeout: 180_000 }, async () => {
  const url = await distFile(
    'embed-lazy.html',
    `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>lazy</title><link rel="icon" href="data:," />
    <script type="module" src="./tpu-playground.js"></script></head>
  <body>
    <p>Scroll down.</p>
    <div style="height: 5000px"></div>
    <tpu-playground id="far" panels="output" autorun>print("far", 1 + 1)</tpu-playground>
  </body>
</html>
`,
  );
  const p = await openPage(browser, server.url);
  const wasm = [];
  try {
    const { page } = p;
    page.on('request', (r) => r.url().endsWith('.wasm') && wasm.push(r.url()));
    await page.goto(url);
    await page.waitForFunction(() => customElements.get('tpu-playground') && document.getElementById('far').code !== '');
    await page.waitForTimeout(1_000);
    assert.equal(await page.evaluate(() => document.getElementById('far').engineStarted), false);
    assert.equal(await page.evaluate(() => document.getElementById('far').state), 'idle');
    assert.equal(page.workers().length, 0, 'no engine worker yet');
    assert.deepEqual(wasm, [], 'no wasm fetched yet');

    await page.locator('#far').scrollIntoViewIfNeeded();
    assert.equal(await waitForElement(page, 'far'), 'done', diagnostics(p));
    assert.equal(await page.evaluate(() => document.getElementById('far').engineStarted), true);
    assert.equal(page.workers().length, 1);
    assert.equal(wasm.length, 1);
    assert.equal(await inside(page, 'far', '.output'), 'far 2\n');
  } finally {
    await p.close();
  }
});

test('the snippet from docs/embedding.md works when pasted into a plain HTML file next to the built files', { timeout: 180_000 }, async () => {
  const doc = await readFile(join(REPO_ROOT, 'docs', 'embedding.md'), 'utf8');
  const snippet = /```html\n([\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(snippet?.includes('<tpu-playground'), 'docs/embedding.md opens with an html snippet');
  const url = await distFile('embed-snippet.html', snippet);
  const p = await openPage(browser, server.url);
  const missing = [];
  try {
    const { page } = p;
    page.on('response', (r) => r.status() === 404 && missing.push(r.url()));
    await page.goto(url);
    await page.waitForFunction(() => ['done', 'error'].includes(document.querySelector('tpu-playground')?.state), null, { timeout: 120_000 });
    const el = page.locator('tpu-playground');
    assert.equal(await el.evaluate((e) => e.state), 'done', `${await el.locator('.output').textContent()}${diagnostics(p)}`);
    // What JAX prints for the skeleton (web/e2e/playground.test.mjs has its provenance).
    assert.equal(
      await el.locator('.output').textContent(),
      '[[1.5836082 1.5836082 1.5836082 1.5836082 1.5836082]\n [2.6014187 2.6014187 2.6014187 2.6014187 2.6014187]\n [2.9125419 2.9125419 2.9125419 2.9125419 2.9125419]]\n',
    );
    assert.ok(Number(await el.locator('.counters tr[data-program="f"] td[data-counter="cycles"]').getAttribute('data-value')) > 0);
    assert.equal(await el.locator('.editor').count(), 0, 'panels="output,counters": no editor');
    assert.deepEqual(p.foreignRequests, []);
    // The snippet has no icon link, so the browser asks for /favicon.ico: the only 404 allowed.
    assert.deepEqual(missing.filter((u) => !u.endsWith('/favicon.ico')), [], 'every file the snippet needs is there');
    assert.deepEqual(p.log.filter((l) => !/status of 404/.test(l)), [], 'no console errors');
  } finally {
    await p.close();
  }
});
