/**
 * Every relative link in README.md and docs/*.md leads somewhere: the file it names exists and,
 * where it names a `#anchor`, that file (a Markdown page) has a heading with that anchor, by
 * GitHub's rule. A section moved or renamed without its links breaks this test, not a reader's
 * click. Links inside code (fenced blocks, code spans) are text, not links, and are not read.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

/** The text with fenced code blocks emptied, lines kept so they still count. */
function withoutFences(text: string): string {
  let fence: string | undefined;
  const lines = text.split('\n').map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker !== undefined) {
      fence = marker;
      return '';
    }
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return '';
    }
    return line;
  });
  return lines.join('\n');
}

/** The text without fenced code blocks and with code spans blanked out, newlines kept. */
function withoutCode(text: string): string {
  const blank = (s: string): string => s.replace(/[^\n]/g, ' ');
  return withoutFences(text).replace(/(`+)(?!`)[\s\S]*?[^`]\1(?!`)/g, blank);
}

/** The anchor GitHub gives a heading: rendered text, lowercased, punctuation but `-` and `_` dropped, spaces to `-`. */
function anchorOf(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`/g, '');
  return rendered
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown file's headings, a repeated one numbered as GitHub numbers it (`x`, `x-1`, ...). */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutFences(text).split('\n')) {
    const heading = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = anchorOf(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Each broken relative link of the files, as `file:line: target: why`; paths relative to `root`. */
function brokenLinks(root: string, files: string[]): string[] {
  const broken: string[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    const prose = withoutCode(text);
    for (const m of prose.matchAll(
      /!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)|^ {0,3}\[[^\]]+\]:\s*(\S+)/gm,
    )) {
      const target = (m[1] ?? m[2])!;
      if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(target)) continue; // another site, or mailto:
      const line = prose.slice(0, m.index).split('\n').length;
      const where = `${file}:${line}: ${target}`;
      const hash = target.indexOf('#');
      const path = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
      const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const resolved = path === '' ? join(root, file) : resolve(join(root, dirname(file)), path);
      if (relative(root, resolved).startsWith('..')) {
        broken.push(`${where}: outside the repository`);
        continue;
      }
      if (!existsSync(resolved)) {
        broken.push(`${where}: no such file`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!resolved.endsWith('.md')) {
        broken.push(`${where}: an anchor in a file that is not Markdown`);
        continue;
      }
      if (!anchorsOf(readFileSync(resolved, 'utf8')).has(anchor))
        broken.push(`${where}: no heading of ${relative(root, resolved)} has the anchor #${anchor}`);
    }
  }
  return broken;
}

const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('the links of README.md and docs/', () => {
  it('name files that exist, and headings those files have', () => {
    expect(DOCS.length).toBeGreaterThan(5);
    expect(brokenLinks(ROOT, DOCS)).toEqual([]);
  });

  it('are read: the README links each page under docs/ and anchors in docs/cli.md', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const doc of DOCS.filter((d) => d !== 'README.md')) expect(readme).toContain(`](${doc})`);
    expect(readme).toContain('](docs/cli.md#record)');
  });
});

describe('the link check', () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-replay-links-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gives headings the anchors GitHub gives them', () => {
    expect(anchorOf('Mock mode: test the client side')).toBe('mock-mode-test-the-client-side');
    expect(anchorOf('`a2a-replay lost FILE`')).toBe('a2a-replay-lost-file');
    expect(anchorOf('2. Layers and data flow')).toBe('2-layers-and-data-flow');
    expect(anchorOf('14.10 Dialects: A2A v0.3 beside v1.0')).toBe('1410-dialects-a2a-v03-beside-v10');
    expect(anchorOf('a2a-replay — how it is built')).toBe('a2a-replay--how-it-is-built');
    expect(anchorOf('[The peer](peer.md) and snake_case')).toBe('the-peer-and-snake_case');
  });

  it('names each broken link by file and line, and only those', () => {
    writeFileSync(
      join(dir, 'a.md'),
      [
        '# Title',
        '## Twice',
        '## Twice',
        'Good: [b](b.md), [b, anchored](b.md#the-section), [here](#title), [again](#twice-1), [code](b.md#run-it).',
        'Broken: [gone](missing.md) and [bad anchor](b.md#no-such-section).',
        '[self](#nowhere)',
        '```sh',
        '# not a heading; [a link in code](missing-too.md)',
        '```',
        'In a code span: `[x](missing-three.md)`; elsewhere: [site](https://example.com/x#y).',
        '[ref]: ./b.md#gone',
        '',
      ].join('\n'),
    );
    writeFileSync(join(dir, 'b.md'), '# B\n\n### The section\n\n## `run` it\n');
    expect(brokenLinks(dir, ['a.md', 'b.md'])).toEqual([
      'a.md:5: missing.md: no such file',
      'a.md:5: b.md#no-such-section: no heading of b.md has the anchor #no-such-section',
      'a.md:6: #nowhere: no heading of a.md has the anchor #nowhere',
      'a.md:11: ./b.md#gone: no heading of b.md has the anchor #gone',
    ]);
  });
});
