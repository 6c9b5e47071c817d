/**
 * `a2a-replay report` opened from disk in a real browser: Debian's chromium, driven by the pinned
 * playwright-core against the system binary (no browser download). The page shows a lane per
 * task, the lost pause marked in text as well as colour, filters that hide what does not match,
 * and no console errors; a screenshot is kept as a test artifact in test-results/. Without a
 * chromium binary the browser test is skipped, saying why; the report's contents are checked
 * without a browser either way.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);
const SKIPPED = 'skipped: no chromium binary; apt-get install -y chromium, or set CHROMIUM_PATH';
const GOLDEN = join(ROOT, 'golden');
const FILES = [
  join(GOLDEN, 'lost-pause', 'recording.jsonl'),
  join(GOLDEN, 'caller-pause-finish-step', 'recording.jsonl'),
  join(GOLDEN, 'wrong-token-then-right', 'recording.receipts.jsonl'),
];

let dir = '';
let report = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'report-'));
  report = join(dir, 'report.html');
  const r = await runCli(['report', ...FILES, '--key', join(GOLDEN, 'test-key.json'), '--out', report]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/^wrote .*report\.html: 3 files, \d+ pauses, 1 lost\n$/);
});
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
    const r = await runCli([
      'run',
      join(GOLDEN, 'caller-pause-finish-step', 'recording.jsonl'),
      '--golden',
      mutated,
      '--html',
      html,
    ]);
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
    const r = await runCli(['report', recording, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
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

  it('exits 2 naming a file that is neither a recording nor a receipt log', async () => {
    const r = await runCli(['report', join(ROOT, 'package.json'), '--out', join(dir, 'x.html')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/package\.json:1: /);
  });
});

describe.skipIf(CHROMIUM === undefined)(`the HTML report in chromium (${CHROMIUM ?? SKIPPED})`, () => {
  it(
    'renders the whole golden corpus, well under 2 MB, with its lost pause in each binding',
    { timeout: 60_000 },
    async () => {
      const scenarios = (await readdir(GOLDEN, { withFileTypes: true })).filter((d) => d.isDirectory());
      const files = scenarios.flatMap((d) => [
        join(GOLDEN, d.name, 'recording.jsonl'),
        join(GOLDEN, d.name, 'recording.receipts.jsonl'),
      ]);
      const corpus = join(dir, 'corpus.html');
      const r = await runCli(['report', ...files, '--key', join(GOLDEN, 'test-key.json'), '--out', corpus]);
      expect(r.code, r.stderr).toBe(0);
      expect(Buffer.byteLength(await readFile(corpus, 'utf8'))).toBeLessThan(2 * 1024 * 1024);
      const browser = await chromium.launch({ executablePath: CHROMIUM as string, args: ['--no-sandbox'] });
      try {
        const page = await browser.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(pathToFileURL(corpus).href);
        expect(await page.locator('section.file').count()).toBe(files.length);
        // lost-pause and rest-lost-pause: each recording and receipt log shows the one pause left behind.
        expect(await page.locator('tr.lost-row').count()).toBe(4);
        expect(await page.locator('g.lane').count()).toBeGreaterThanOrEqual(scenarios.length);
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
      }
    },
  );

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
