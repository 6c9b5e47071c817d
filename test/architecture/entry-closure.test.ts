/**
 * What each public entry loads (docs/design.md §2): the static import closure of the built entry
 * in dist/ (which the suite's global setup builds), walked through the import and re-export
 * specifiers of each built file. `a2a-replay/protocol` loads protocol files only; no entry loads
 * the recorder, the reference peer or the OpenTelemetry bridge unless they are its own layer; and
 * each entry loads.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

/** Each built file's specifiers, parsed once: the closures below walk the same files many times. */
const specifiersOf = new Map<string, string[]>();

/** The specifiers a built file imports or re-exports from at load time (not `import()`). */
function staticSpecifiers(file: string): string[] {
  const known = specifiersOf.get(file);
  if (known !== undefined) return known;
  const parsed = parseSpecifiers(file);
  specifiersOf.set(file, parsed);
  return parsed;
}

function parseSpecifiers(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  return source.statements.flatMap((s) =>
    (ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) &&
    s.moduleSpecifier &&
    ts.isStringLiteral(s.moduleSpecifier)
      ? [s.moduleSpecifier.text]
      : [],
  );
}

/** Files of dist/ (as `src/...js`) and packages (as their specifier) that loading `entry` loads. */
function closureOf(entry: string): Set<string> {
  const seen = new Set<string>();
  const pending = [join(DIST, entry)];
  while (pending.length > 0) {
    const file = pending.pop()!;
    const name = relative(DIST, file);
    if (seen.has(name)) continue;
    seen.add(name);
    for (const specifier of staticSpecifiers(file)) {
      if (specifier.startsWith('.')) pending.push(resolve(dirname(file), specifier));
      else seen.add(specifier);
    }
  }
  return seen;
}

const ENTRIES = ['src/index.js', ...readdirSync(join(DIST, 'src/public')).filter((f) => f.endsWith('.js'))].map((f) =>
  f.startsWith('src/') ? f : `src/public/${f}`,
);

/** The heavy layers, each as the files that stand for it. */
const LAYERS: Record<string, (file: string) => boolean> = {
  recorder: (f) => /^src\/intercept\/recording-(proxy|fetch|middleware)\.js$/.test(f),
  peer: (f) => f === 'src/peer/start-peer.js',
  tracing: (f) => f === 'src/tracing/span-bridge.js' || f.startsWith('@opentelemetry/'),
};
/** The layers an entry is about, and so loads. */
const OWN: Record<string, string[]> = {
  'src/index.js': ['recorder', 'peer'],
  'src/public/intercept.js': ['recorder'],
  'src/public/record.js': ['recorder'],
  'src/public/observe.js': [],
  'src/public/peer.js': ['peer'],
  'src/public/tracing.js': ['tracing'],
};

describe('the public entries, built', () => {
  it('has an entry per subpath of package.json', () => {
    const manifest = JSON.parse(readFileSync(join(DIST, '../package.json'), 'utf8')) as {
      exports: Record<string, { import?: string }>;
    };
    const subpaths = Object.values(manifest.exports).flatMap((e) =>
      e.import ? [e.import.replace('./dist/', '')] : [],
    );
    expect(subpaths.sort()).toEqual([...ENTRIES].sort());
  });

  it('a2a-replay/protocol loads protocol files only', () => {
    const closure = [...closureOf('src/public/protocol.js')].filter((f) => f !== 'src/public/protocol.js');
    expect(closure).toContain('src/protocol/types.js');
    expect(closure.filter((f) => !f.startsWith('src/protocol/'))).toEqual([]);
  });

  it('a layer of its own is loaded where it is asked for', () => {
    expect(closureOf('src/public/intercept.js').has('src/intercept/recording-proxy.js')).toBe(true);
    expect(closureOf('src/public/peer.js').has('src/peer/start-peer.js')).toBe(true);
    expect(closureOf('src/public/tracing.js').has('src/tracing/span-bridge.js')).toBe(true);
  });

  for (const entry of ENTRIES) {
    it(`${entry} loads without the recorder, the peer or the tracing bridge unless they are its own`, async () => {
      const closure = [...closureOf(entry)];
      const loaded = Object.entries(LAYERS)
        .filter(([layer]) => !(OWN[entry] ?? []).includes(layer))
        .flatMap(([layer, inLayer]) => closure.filter(inLayer).map((f) => `${layer}: ${f}`));
      expect(loaded).toEqual([]);
      const module = (await import(pathToFileURL(join(DIST, entry)).href)) as Record<string, unknown>;
      expect(Object.keys(module).length).toBeGreaterThan(0);
    });
  }
});

describe('what a command loads, built', () => {
  it('record loads no gRPC library (it relays gRPC as HTTP/2 frames), and its codec only once it starts', () => {
    expect([...closureOf('src/intercept/grpc-forward.js')].filter((f) => f.startsWith('@grpc/'))).toEqual([]);
    const closure = [...closureOf('cli/commands/record.js')];
    expect(closure).toContain('src/intercept/recording-proxy.js');
    expect(closure.filter((f) => f.startsWith('@grpc/') || f.startsWith('@bufbuild/'))).toEqual([]);
  });

  it('no command module loads a gRPC library or the protobuf codec with it', () => {
    const commands = readdirSync(join(DIST, 'cli/commands')).filter((f) => f.endsWith('.js'));
    const loading = commands.flatMap((f) =>
      [...closureOf(`cli/commands/${f}`)]
        .filter((m) => m.startsWith('@grpc/') || m.startsWith('@bufbuild/'))
        .map((m) => `${f}: ${m}`),
    );
    expect(loading).toEqual([]);
  });

  it('the observer loads no protobuf codec, so neither do the commands that only read logs', () => {
    for (const entry of ['src/observe/pause-observer.js', 'cli/commands/audit.js', 'cli/commands/lost.js']) {
      expect([...closureOf(entry)].filter((f) => f.startsWith('@bufbuild/') || f.startsWith('src/grpc/gen/'))).toEqual(
        [],
      );
    }
  });

  it('the program node starts (scripts/bundle-cli.mjs) loads commander and no other package', () => {
    const closure = [...closureOf('cli/main.js')];
    expect(closure.some((f) => /^cli\/chunk-.*\.js$/.test(f))).toBe(true);
    expect(closure.filter((f) => !f.startsWith('cli/') && !f.startsWith('node:'))).toEqual(['commander']);
    // Each command's chunk, loaded by import() once the command is named, as its module was.
    const commands = [
      ...readFileSync(join(DIST, 'cli/main.js'), 'utf8').matchAll(/import\("\.\/(chunk-[^"]+\.js)"\)/g),
    ];
    expect(commands.length).toBeGreaterThanOrEqual(13);
    const heavy = commands.flatMap(([, chunk]) =>
      [...closureOf(`cli/${chunk}`)]
        .filter((m) => /^@(grpc|bufbuild|opentelemetry)\//.test(m))
        .map((m) => `${chunk}: ${m}`),
    );
    expect(heavy).toEqual([]);
  });

  it('every command loads OpenTelemetry only when it is asked for (by import() at that point)', () => {
    const commands = readdirSync(join(DIST, 'cli/commands')).filter((f) => f.endsWith('.js'));
    expect(commands).toContain('record.js');
    const loading = commands.filter((f) =>
      [...closureOf(`cli/commands/${f}`)].some((m) => m.startsWith('@opentelemetry/')),
    );
    expect(loading).toEqual([]);
  });
});
