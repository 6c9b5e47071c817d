/**
 * `a2a-replay report` opened from disk in a real browser: Debian's chromium, driven by the pinned
 * playwright-core against the system binary (no browser download). The page shows a lane per
 * task, the lost pause marked in text as well as colour, filters that hide what does not match,
 * and no console errors; a screenshot is kept as a test artifact in test-results/. Without a
 * chromium binary the browser test is skipped, saying why; the report's contents are checked
 * without a browser either way. The command runs as a process where its printed line, an
 * environment variable or a usage error is the point; other reports are written in-process by
 * what `report` and `run --html` call (`reportSections`, `replaySection`, `writeHtmlReport`).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser, type Page, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pausesOf, reportSections, writeHtmlReport } from '../../src/public/report.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { keyringOf } from '../helpers/verdicts.js';
import { replayReport } from '../helpers/run-report.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);
const SKIPPED = 'skipped: no chromium binary; apt-get install -y chromium, or set CHROMIUM_PATH';
const GOLDEN = join(ROOT, 'golden');
const FILES = [
  join(GOLDEN, 'lost-pause', 'recording.jsonl'),
  join(GOLDEN, 'caller-pause-finish-step', 'recording.jsonl'),
  join(GOLDEN, 'wrong-token-then-right', 'recording.receipts.jsonl'),
];

/**
 * `report FILE... --out OUT [--key K] [--trace-url T]` in this process: the sections it builds, the
 * file it writes, and the counts of the line it prints (`N pauses, N lost[, N interruptions, N lost]`).
 */
async function writeReportOf(files: string[], out: string, options: { key?: string; traceUrl?: string } = {}) {
  const keyring = options.key === undefined ? undefined : await keyringOf([options.key]);
  const sections = await reportSections(files, { keyring });
  await writeHtmlReport(out, sections, 'a2a-replay report', options.traceUrl);
  const rows = sections.flatMap((s) => s.rows);
  const interruptions = sections.flatMap((s) => s.interruptions ?? []);
  return {
    pauses: sections.reduce((n, s) => n + pausesOf(s), 0),
    lost: rows.filter((r) => r.outcome === 'lost').length,
    interruptions: interruptions.length,
    lostInterruptions: interruptions.filter((r) => r.outcome === 'lost').length,
  };
}

let dir = '';
let report = '';
/** The whole golden corpus: each scenario's recording and its receipt log. */
let scenarios: string[] = [];
let corpus = '';
let corpusOut = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'report-'));
  report = join(dir, 'report.html');
  const r = await runCli(['report', ...FILES, '--key', join(GOLDEN, 'test-key.json'), '--out', report]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/^wrote .*report\.html: 3 files, \d+ pauses, 1 lost\n$/);
  scenarios = (await readdir(GOLDEN, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  const files = scenarios.flatMap((name) => [
    join(GOLDEN, name, 'recording.jsonl'),
    join(GOLDEN, name, 'recording.receipts.jsonl'),
  ]);
  corpus = join(dir, 'corpus.html');
  const c = await runCli(['report', ...files, '--key', join(GOLDEN, 'test-key.json'), '--out', corpus]);
  expect(c.code, c.stderr).toBe(0);
  corpusOut = c.stdout;
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the HTML report, as a file', () => {
  it('is self-contained: no network, no external resource', async () => {
    const html = await readFile(report, 'utf8');
    expect(html).not.toMatch(/\b(src|href)=["']?(https?:)?\/\//);
    expect(html).toContain("default-src 'none'");
    expect(html).toContain('LOST: recording_ended');
    expect(html).toMatch(/verified \(signature and chain\)/);
    expect(Buffer.byteLength(html)).toBeLessThan(200_000);
  });

  it('run --html shows the drift of a replay: expected vs actual with the receipt path', async () => {
    const golden = join(GOLDEN, 'caller-pause-finish-step', 'recording.receipts.jsonl');
    const mutated = join(dir, 'mutated.receipts.jsonl');
    await writeFile(
      mutated,
      (await readFile(golden, 'utf8')).replace('"reason":"operator review"', '"reason":"audit"'),
    );
    const html = join(dir, 'run.html');
    // What `run RECORDING --golden MUTATED --html HTML` calls: the replay, then its sections written.
    const r = await replayReport([join(GOLDEN, 'caller-pause-finish-step', 'recording.jsonl')], {
      golden: mutated,
      html,
    });
    expect(r.code).toBe(1);
    const text = await readFile(html, 'utf8');
    expect(text).toContain('<p class="verdict">DRIFT</p>');
    expect(text).toMatch(
      /<td>receipts\[0\]\.reason<\/td><td class="expected">&quot;audit&quot;<\/td><td class="actual">&quot;operator /,
    );
  });

  it('lets only its own script run, by its hash, and shows bidi controls from a recording as escapes', async () => {
    const recording = join(dir, 'bidi.jsonl');
    const golden = await readFile(join(GOLDEN, 'caller-pause-finish-step', 'recording.jsonl'), 'utf8');
    await writeFile(recording, golden.replaceAll('operator review', 'weiver \\u202erotarepo'), { mode: 0o600 });
    const out = join(dir, 'bidi.html');
    await writeReportOf([recording], out);
    const html = await readFile(out, 'utf8');
    expect(html).not.toContain('\u202e');
    expect(html).toContain('weiver \\u202erotarepo');
    const csp = /content="([^"]*)"/.exec(html.slice(html.indexOf('Content-Security-Policy')))?.[1] ?? '';
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? '');
    expect(scripts).toHaveLength(1);
    const hash = createHash('sha256')
      .update(scripts[0] ?? '', 'utf8')
      .digest('base64');
    expect(csp).toBe(`default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${hash}'`);
  });

  it('joins each recording with its receipt log: the corpus counts each pause once', async () => {
    // 36 scenarios with one pause, budget-interrupt with three, the sixteen interruption scenarios
    // and one more with none; lost-pause and its rest-, grpc-, v03- and v03-rest- twins each leave
    // one behind. And sixteen interruptions; nine never came back: input-never-answered,
    // input-answered-as-new-task, input-gate-bypassed and their two v0.3 twins each.
    expect(corpusOut).toBe(
      `wrote ${corpus}: ${scenarios.length * 2} files, 39 pauses, 5 lost, 16 interruptions, 9 lost\n`,
    );
    const html = await readFile(corpus, 'utf8');
    expect(html.match(/<section class="file" /g)).toHaveLength(scenarios.length);
    expect(html.match(/data-kind="recording \+ receipt log"/g)).toHaveLength(scenarios.length);
    expect(html.match(/<tr class="lost-row"/g)).toHaveLength(5);
    // The lost pauses come first, before any file's section: task, since when, why.
    const top = html.slice(html.indexOf('<main>'), html.indexOf('<section class="file"'));
    expect(top.match(/<li class="lost-item"/g)).toHaveLength(5);
    expect(top).toContain('<h2>5 lost pauses, 9 lost interruptions</h2>');
    expect(top.match(/<li class="lost-item lost-interruption"/g)).toHaveLength(9);
    expect(top).toMatch(
      new RegExp(
        '<span class="badge">LOST</span> task <code>task-[^<]+</code> · ' +
          'paused since <time>2026-01-01T00:00:00\\.000Z</time> · why: <strong>recording_ended</strong>',
      ),
    );
  });

  it('links each span to the trace of its receipt with --trace-url; refuses a template without {traceId}', async () => {
    const name = 'lost-pause';
    const log = join(GOLDEN, name, 'recording.receipts.jsonl');
    const out = join(dir, 'linked.html');
    const template = 'http://jaeger.example:16686/trace/{traceId}?uiFind={spanId}';
    await writeReportOf([join(GOLDEN, name, 'recording.jsonl'), log], out, { traceUrl: template });
    const html = await readFile(out, 'utf8');
    const spans = (await readFile(log, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; span?: { traceId: string; spanId: string } })
      .filter((l) => l.type === 'SuspensionReceipt')
      .map((l) => l.span!);
    expect(spans.length).toBeGreaterThan(0);
    const links = [...html.matchAll(/<a class="trace" href="([^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
    // The row's span cell and the lost box's item of the lost pause.
    for (const span of spans)
      expect(links).toContain(`http://jaeger.example:16686/trace/${span.traceId}?uiFind=${span.spanId}`);
    expect(links.every((l) => spans.some((s) => l.includes(s.traceId)))).toBe(true);
    const env = await runCli(['report', log, '--out', join(dir, 'env.html')], {
      env: { A2A_REPLAY_TRACE_URL: 'http://127.0.0.1:16686/trace/{traceId}' },
    });
    expect(env.code, env.stderr).toBe(0);
    expect(await readFile(join(dir, 'env.html'), 'utf8')).toContain(
      `href="http://127.0.0.1:16686/trace/${spans[0]!.traceId}"`,
    );
    const bad = await runCli(['report', log, '--trace-url', 'http://jaeger/trace/', '--out', join(dir, 'bad.html')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--trace-url: "http://jaeger/trace/": it must name {traceId}');
  });

  it('exits 2 naming a file that is neither a recording nor a receipt log', async () => {
    const r = await runCli(['report', join(ROOT, 'package.json'), '--out', join(dir, 'x.html')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/package\.json:1: /);
  });
});

describe.skipIf(CHROMIUM === undefined)(`the HTML report in chromium (${CHROMIUM ?? SKIPPED})`, () => {
  describe('the whole golden corpus', () => {
    let browser: Browser | undefined;
    let page: Page;
    const errors: string[] = [];
    beforeAll(async () => {
      browser = await chromium.launch({ executablePath: CHROMIUM as string, args: ['--no-sandbox'] });
      page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(pathToFileURL(corpus).href);
      await mkdir(join(ROOT, 'test-results'), { recursive: true });
      await page.screenshot({ path: join(ROOT, 'test-results', 'report-corpus.png') });
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
    });

    it('renders well under 2 MB, one section per recording joined with its receipt log', async () => {
      expect(Buffer.byteLength(await readFile(corpus, 'utf8'))).toBeLessThan(2 * 1024 * 1024);
      expect(await page.locator('section.file').count()).toBe(scenarios.length);
      // lost-pause and its four twins: the one pause each left behind, once.
      expect(await page.locator('tr.lost-row').count()).toBe(5);
      expect(await page.locator('g.lane').count()).toBeGreaterThanOrEqual(scenarios.length);
      expect(errors).toEqual([]);
    });

    it('lists the lost pauses before every section, and draws each lost label whole', async () => {
      const items = page.locator('.lost-top li.lost-item:not(.lost-interruption)');
      expect(await items.count()).toBe(5);
      // The nine approvals nobody gave follow them, each with its reason.
      const interruptions = page.locator('.lost-top li.lost-interruption');
      expect(await interruptions.count()).toBe(9);
      for (let i = 0; i < 9; i++)
        expect(await interruptions.nth(i).innerText()).toMatch(/^LOST task task-\S+ · asked for \w+ since \S+ · why: /);
      for (let i = 0; i < 5; i++) {
        expect(await items.nth(i).innerText()).toMatch(/^LOST task task-\S+ · paused since \S+ · why: recording_ended/);
        expect(await items.nth(i).isVisible()).toBe(true);
      }
      // The page's own DOM is read in the browser (this project compiles without DOM types).
      const topFirst = await page.evaluate<boolean>(
        `(() => { const top = document.querySelector('.lost-top'), first = document.querySelector('section.file');
          return !!top && !!first
            && (top.compareDocumentPosition(first) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0; })()`,
      );
      expect(topFirst).toBe(true);
      // Each lost pause's label: all its text, drawn inside its drawing's bounds.
      const labels = await page.evaluate<{ text: string | null; left: number; right: number; width: number }[]>(
        `[...document.querySelectorAll('svg.lanes')].flatMap((svg) =>
          [...svg.querySelectorAll('.lane')].filter((lane) => lane.querySelector('rect.pause.lost')).map((lane) => {
            const label = lane.querySelector('text.lost-label'), box = label ? label.getBBox() : null;
            return { text: label ? label.textContent : null, left: box ? box.x : -1,
              right: box ? box.x + box.width : -1, width: svg.viewBox.baseVal.width };
          }))`,
      );
      expect(labels).toHaveLength(5);
      for (const l of labels) {
        expect(l.text).toBe('LOST: recording_ended');
        expect(l.left).toBeGreaterThanOrEqual(0);
        expect(l.right).toBeLessThanOrEqual(l.width);
      }
    });

    it('draws a time axis under every timeline: the start and end of the lane area in UTC, ticks between', async () => {
      const axes = await page.evaluate<
        { start: string | null; end: string | null; ticks: string[]; label: string | null }[]
      >(
        `[...document.querySelectorAll('svg.lanes')].map((svg) => {
          const axis = svg.querySelector('g.axis');
          return { start: axis ? axis.dataset.start : null, end: axis ? axis.dataset.end : null,
            ticks: axis ? [...axis.querySelectorAll('text.tick')].map((t) => t.textContent) : [],
            label: axis && axis.querySelector('text.axis-label')
              ? axis.querySelector('text.axis-label').textContent : null };
        })`,
      );
      expect(axes.length).toBeGreaterThanOrEqual(scenarios.length - 1);
      for (const a of axes) {
        expect(a.start).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        expect(a.end).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        expect(a.ticks.length).toBeGreaterThanOrEqual(3);
        expect(a.ticks[0]).toBe((a.start ?? '').slice(11, 23));
        expect(a.ticks[a.ticks.length - 1]).toBe((a.end ?? '').slice(11, 23));
        expect(a.label).toBe(`${(a.start ?? '').slice(0, 10)} (UTC)`);
      }
    });

    it('keeps every column header whole: on one line, nothing cut', async () => {
      const headers = await page.evaluate<{ text: string; lines: number; fits: boolean }[]>(
        `[...document.querySelectorAll('th')].map((th) => {
          const range = document.createRange();
          range.selectNodeContents(th);
          const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
          return { text: th.textContent, lines, fits: th.scrollWidth <= th.clientWidth };
        })`,
      );
      expect(headers.length).toBeGreaterThan(0);
      expect(headers.filter((h) => h.lines !== 1 || !h.fits)).toEqual([]);
    });
  });

  it('lists the approval nobody gave of input-never-answered: in the lost box and in a table', async () => {
    const name = 'input-never-answered';
    const out = join(dir, 'interruption.html');
    const counts = await writeReportOf(
      [join(GOLDEN, name, 'recording.jsonl'), join(GOLDEN, name, 'recording.receipts.jsonl')],
      out,
      { key: join(GOLDEN, 'test-key.json') },
    );
    expect(counts).toEqual({ pauses: 0, lost: 0, interruptions: 1, lostInterruptions: 1 });
    const browser = await chromium.launch({ executablePath: CHROMIUM as string, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(pathToFileURL(out).href);
      const item = page.locator('.lost-top li.lost-interruption');
      expect(await item.count()).toBe(1);
      const text = await item.innerText();
      expect(text).toContain('asked for input');
      expect(text).toContain('never_continued');
      expect(text).toContain('interrupted/end-never-continued');
      expect(await page.locator('.lost-top h2').innerText()).toBe('1 lost interruption');
      const row = page.locator('table.interruptions tr.lost-interruption-row');
      expect(await row.count()).toBe(1);
      expect(await row.innerText()).toContain('LOST: never_continued');
      expect(await page.locator('p.verdict').innerText()).toContain('1 interruption, 1 lost');
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it('shows a lane per task, the lost pause in text, working filters and no console errors', async () => {
    const browser = await chromium.launch({ executablePath: CHROMIUM as string, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(pathToFileURL(report).href);
      /** One attribute of every element the selector finds, in document order. */
      const attrs = async (selector: string, name: string): Promise<(string | null)[]> => {
        const found = page.locator(selector);
        const out: (string | null)[] = [];
        for (let i = 0; i < (await found.count()); i++) out.push(await found.nth(i).getAttribute(name));
        return out;
      };
      const tasks = [...new Set(await attrs('tr[data-task]', 'data-task'))];
      const laneTasks = await attrs('g.lane', 'data-task');
      expect(tasks.length).toBeGreaterThan(0);
      for (const task of tasks) expect(laneTasks).toContain(task);
      expect(await page.locator('tr.lost-row').count()).toBe(1);
      expect(await page.locator('tr.lost-row').innerText()).toContain('LOST: recording_ended');
      expect(await page.locator('rect.pause.lost').count()).toBeGreaterThanOrEqual(1);
      await mkdir(join(ROOT, 'test-results'), { recursive: true });
      await page.screenshot({ path: join(ROOT, 'test-results', 'report.png'), fullPage: true });
      // Filter by the lost pause's task: only its rows stay visible.
      const lostTask = (await page.locator('tr.lost-row').getAttribute('data-task')) as string;
      await page.fill('#f-task', lostTask);
      const visible = await attrs('tr[data-task]:not(.hidden)', 'data-task');
      expect(visible.length).toBeGreaterThan(0);
      expect(visible.every((t) => t === lostTask)).toBe(true);
      await page.selectOption('#f-outcome', 'lost');
      const lostOnly = await attrs('tr[data-task]:not(.hidden)', 'data-outcome');
      expect(lostOnly).toEqual(['lost']);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
