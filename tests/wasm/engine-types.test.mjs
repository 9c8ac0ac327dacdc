// The engine's JSON against the shapes web/engine-types.mjs declares (the
// types the page's modules read results through, checked by tsc): the real
// wasm module's answers for representative inputs (every captured fixture's
// key, comparisons that move several entries, every two-log case of
// tests/cases, and each as three logs, two capture folders, every cache
// folder real JAX wrote, the profiles, the version) are walked
// against the declared types, read with TypeScript's own checker from that file. Both
// ways fail: a member declared (and not optional) that the engine does not
// give, and a member the engine gives that is not declared. A member typed
// `Object` is not described further and is not walked.
//
// The declarations are the page's; the values are the engine's; neither is
// written from the other here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { cacheDirVariants, capturedFixtures, listing, loadEngine, root } from './fixtures.mjs';

const require = createRequire(import.meta.url);
// Debian's node-typescript (NODE_PATH=/usr/share/nodejs), the tsc scripts/test-web runs.
const ts = require('typescript');
const engine = await loadEngine();

// ------------------------------------------------------------ the declared types
const typesFile = path.join(root, 'web/engine-types.mjs');
// strictNullChecks: `?X` keeps its null (the page's own check has none); as
// there, `Object` is any.
const program = ts.createProgram([typesFile], {
  allowJs: true, checkJs: true, noEmit: true, strictNullChecks: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022,
});
const checker = program.getTypeChecker();
const source = program.getSourceFile(typesFile);
const exported = new Map(checker.getExportsOfModule(checker.getSymbolAtLocation(source)).map((s) => [s.name, s]));

/** The type declared as `name` in engine-types.mjs. */
function declared(name) {
  const sym = exported.get(name);
  assert.ok(sym, `engine-types.mjs declares ${name}`);
  return checker.getDeclaredTypeOfSymbol(sym);
}

/**
 * The problems of `value` against `type`, as "path: what" lines (none: it
 * matches).
 */
function problems(type, value, at = '$') {
  const F = ts.TypeFlags;
  if (type.flags & (F.Any | F.Unknown)) return [];
  if (type.isUnion()) {
    let best = null;
    // (a value that is there is reported against the members it could be)
    const F2 = F.Null | F.Undefined;
    const could = value === null || value === undefined ? type.types : type.types.filter((t) => !(t.flags & F2));
    for (const t of could) {
      const p = problems(t, value, at);
      if (!p.length) return [];
      if (!best || p.length < best.length) best = p;
    }
    return best;
  }
  if (type.flags & F.Null) return value === null ? [] : [`${at}: ${JSON.stringify(value)?.slice(0, 40)} is not null`];
  if (type.flags & F.Undefined) return value === undefined ? [] : [`${at}: is present`];
  if (type.flags & F.StringLike) return typeof value === 'string' ? [] : [`${at}: ${typeof value}, declared string`];
  if (type.flags & F.NumberLike) return typeof value === 'number' ? [] : [`${at}: ${typeof value}, declared number`];
  if (type.flags & F.BooleanLike) return typeof value === 'boolean' ? [] : [`${at}: ${typeof value}, declared boolean`];
  if (checker.isArrayType(type)) {
    if (!Array.isArray(value)) return [`${at}: ${value === null ? 'null' : typeof value}, declared an array`];
    const [elem] = checker.getTypeArguments(type);
    return value.flatMap((v, i) => problems(elem, v, `${at}[${i}]`));
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [`${at}: ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}, declared an object`];
  const out = [];
  const index = checker.getIndexTypeOfType(type, ts.IndexKind.String);
  const props = new Map(checker.getPropertiesOfType(type).map((p) => [p.name, p]));
  for (const [name, p] of props) {
    const optional = (p.flags & ts.SymbolFlags.Optional) !== 0;
    if (!(name in value)) {
      if (!optional) out.push(`${at}.${name}: declared, not given`);
      continue;
    }
    // (an optional member's type includes undefined: the union is walked)
    out.push(...problems(checker.getTypeOfSymbolAtLocation(p, source), value[name], `${at}.${name}`));
  }
  for (const [name, v] of Object.entries(value)) {
    if (props.has(name)) continue;
    if (index) out.push(...problems(index, v, `${at}.${name}`));
    else out.push(`${at}.${name}: given, not declared`);
  }
  return out;
}

const assertShape = (name, value, label) => assert.deepEqual(problems(declared(name), value), [], `${label} against ${name}`);

// ------------------------------------------------------------ the engine's answers
const fixtureFile = capturedFixtures(root);
for (const [id, file] of fixtureFile) assert.deepEqual(engine.registerFixture(id, fs.readFileSync(file, 'utf8')), { ok: true });

test('the checker fails a renamed member, a missing one and a wrong type (it can fail)', () => {
  const r = engine.computeKey({ schema: 1, base: 'add_1x1' });
  assert.equal(r.error, undefined);
  assertShape('KeyResult', r, 'add_1x1');
  const renamed = structuredClone(r);
  renamed.entries[2].byte_count = renamed.entries[2].bytes_len;
  delete renamed.entries[2].bytes_len;
  renamed.trace_levels = 3;
  assert.deepEqual(problems(declared('KeyResult'), renamed).sort(), [
    '$.entries[2].byte_count: given, not declared',
    '$.entries[2].bytes_len: declared, not given',
    '$.trace_levels: number, declared an array',
  ]);
});

test('every captured fixture\u2019s key has the declared KeyResult shape', () => {
  assert.ok(fixtureFile.size >= 40, String(fixtureFile.size));
  for (const id of fixtureFile.keys()) {
    const r = engine.computeKey({ schema: 1, base: id });
    assert.equal(r.error, undefined, `${id}: ${JSON.stringify(r.error)}`);
    assertShape('KeyResult', r, id);
  }
});

test('comparisons (entries moved by a flag, a jaxlib, compile options; keys equal) have the declared CompareResult shape', () => {
  const base = { schema: 1, base: 'add_1x1' };
  const perturbed = [
    { ...base, flags: { XLA_FLAGS: '--xla_cpu_enable_fast_math=true' }, jaxlib_version: '0.0.1' },
    { ...base, profile: '0.4.33' },
    { ...base, compression: 'zlib' },
    base,
  ];
  for (const b of perturbed) {
    const r = engine.compareScenarios(base, b);
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assertShape('CompareResult', r, JSON.stringify(b));
  }
  const resolved = engine.resolveScenario(base);
  assert.equal(resolved.error, undefined);
  assertShape('ResolvedScenario', resolved, 'add_1x1 resolved');
});

test('the profiles, the version and the pickers\u2019 choices have the declared Profiles, Version and ScenarioChoices shapes', () => {
  const p = engine.profiles();
  assert.ok(p.profiles.length >= 10);
  assertShape('Profiles', p, 'profiles()');
  assertShape('Version', engine.version(), 'version()');
  const c = engine.scenarioChoices();
  assert.ok(c.compression.length >= 2 && c.platform_versions.length >= 1, JSON.stringify(c));
  assertShape('ScenarioChoices', c, 'scenarioChoices()');
});

test('every two-log case of tests/cases has the declared LogComparison shape', () => {
  const cases = path.join(root, 'tests/cases');
  let n = 0;
  for (const c of fs.readdirSync(cases).sort()) {
    const f = path.join(cases, c, 'expect.json');
    if (!fs.existsSync(f)) continue;
    for (const e of JSON.parse(fs.readFileSync(f, 'utf8')).compare || []) {
      const read = (name) => fs.readFileSync(path.join(cases, c, name), 'utf8');
      const r = engine.compareLogs(read(e.a), read(e.b), e.a, e.b);
      if (r.error) continue; // a refusal is the engine's error, checked in logs.test.mjs
      assertShape('LogComparison', r, `${c}: ${e.a} vs ${e.b}`);
      n++;
    }
  }
  assert.ok(n >= 20, String(n));
});

test('two capture folders compared have the declared CaptureComparison shape', () => {
  const folder = (name) => {
    const dir = path.join(root, 'tests/web/data/folders', name);
    return Object.fromEntries(fs.readdirSync(dir).map((f) => [f, new Uint8Array(fs.readFileSync(path.join(dir, f)))]));
  };
  const r = engine.compareCaptureFolders(folder('run64'), folder('run128'), 'run64', 'run128');
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  assert.ok(r.differing.length > 0);
  assertShape('CaptureComparison', r, 'run64 vs run128');
});

// Three logs of every two-log case (its first log given again as the third
// run): the N-log comparison, whose programs say which runs share a key.
test('every two-log case of tests/cases given as three logs has the declared ManyLogComparison shape', async () => {
  const cases = path.join(root, 'tests/cases');
  let n = 0, odd = 0;
  for (const c of fs.readdirSync(cases).sort()) {
    const f = path.join(cases, c, 'expect.json');
    if (!fs.existsSync(f)) continue;
    for (const e of JSON.parse(fs.readFileSync(f, 'utf8')).compare || []) {
      const read = (name) => fs.readFileSync(path.join(cases, c, name), 'utf8');
      const r = await engine.compareManyLogSources([
        { source: read(e.a), name: e.a }, { source: read(e.b), name: e.b }, { source: read(e.a), name: `again-${e.a}` }]);
      if (r.error) continue; // a refusal is the engine's error, checked in logs.test.mjs
      assert.equal(r.pairs, undefined, 'three logs are not a pair');
      assertShape('ManyLogComparison', r, `${c}: ${e.a}, ${e.b}, ${e.a}`);
      n++;
      odd += r.programs.filter((p) => p.odd.length).length;
    }
  }
  assert.ok(n >= 20, String(n));
  assert.ok(odd >= 1, 'some program has an odd run out (the walk reaches odd[])');
});

test('every cache folder real JAX wrote, read with and without a cap, has the declared CacheReport shape', () => {
  const dirs = path.join(root, 'fixtures/cache_dirs');
  const variants = cacheDirVariants(dirs);
  assert.ok(variants.length >= 8, variants.join(' '));
  let evictions = 0, problems = 0;
  for (const rel of variants) {
    for (const options of [{}, { max_size: 4000 }]) {
      const { list, reader } = listing(path.join(dirs, rel, 'cache'));
      const r = engine.readCacheFolder(list, reader, 'cache', options);
      assert.equal(r.error, undefined, `${rel}: ${JSON.stringify(r.error)}`);
      assertShape('CacheReport', r, `${rel} ${JSON.stringify(options)}`);
      evictions += r.eviction ? 1 : 0;
      problems += r.problems.length;
    }
  }
  assert.ok(evictions >= 1 && problems >= 1, 'the walk reaches eviction and problems');
});
