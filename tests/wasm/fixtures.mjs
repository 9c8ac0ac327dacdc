// The captured fixtures the wasm tests run on: CPU (fixtures/), then TPU
// (fixtures/tpu/, libtpu); a fixture is a schema-1 scenario with the key
// real JAX computed (`expected`). And the cache directories real JAX wrote
// (fixtures/cache_dirs), listed as the page's worker lists a folder.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository, its built site (build/web) and the native CLI. */
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const web = path.join(root, 'build/web');
export const cli = path.join(root, 'build/native/bin/cachekey');
const require = createRequire(import.meta.url);

/**
 * A fresh instance of one of the site's engine modules, loaded as the page
 * loads it (web/engine.mjs's CacheKeyEngine.load), from build/web.
 * @param {string} [module] its path under build/web without .js/.wasm:
 *   'cachekey_engine' (the worker's), 'cachekey_engine_key' (the first
 *   view's) or 'mlir/cachekey_engine_mlir'
 */
export async function loadEngine(module = 'cachekey_engine') {
  const { CacheKeyEngine } = await import(path.join(web, 'engine.mjs'));
  return CacheKeyEngine.load({ factory: require(path.join(web, module + '.js')),
    wasmBinary: fs.readFileSync(path.join(web, module + '.wasm')) });
}

/**
 * Every captured fixture under `root`, id → file.
 * @param {string} root the repository
 * @returns {Map<string, string>}
 */
export function capturedFixtures(root) {
  const files = new Map();
  for (const dir of ['fixtures', 'fixtures/tpu']) {
    for (const f of fs.readdirSync(path.join(root, dir)).filter((n) => n.endsWith('.json'))) {
      const file = path.join(root, dir, f);
      const j = JSON.parse(fs.readFileSync(file, 'utf8'));
      if (j.schema === 1 && j.expected) files.set(f.slice(0, -5), file);
    }
  }
  return files;
}

/**
 * The variants of fixtures/cache_dirs that hold a directory real JAX wrote
 * ("<release>/<variant>", each with cache/ and describe.json).
 * @param {string} dirs fixtures/cache_dirs
 * @returns {string[]}
 */
export function cacheDirVariants(dirs) {
  const variants = [];
  for (const r of fs.readdirSync(dirs)) {
    if (!fs.statSync(path.join(dirs, r)).isDirectory()) continue;
    for (const v of fs.readdirSync(path.join(dirs, r))) if (fs.existsSync(path.join(dirs, r, v, 'describe.json'))) variants.push(`${r}/${v}`);
  }
  return variants;
}

/** The folder as the page's worker lists it, and a reader that counts what it reads. */
export function listing(dir) {
  const names = fs.readdirSync(dir);
  const files = names.map((n) => ({ n, st: fs.lstatSync(path.join(dir, n)) }));
  const list = files.map(({ n, st }) => ({ name: n, type: st.isDirectory() ? 'dir' : 'file', size: st.size, mtime_ms: Math.floor(st.mtimeMs) }));
  const reads = { bytes: 0 };
  const reader = {
    read(i, offset, n) {
      const fd = fs.openSync(path.join(dir, files[i].n), 'r');
      const buf = Buffer.alloc(n);
      const got = fs.readSync(fd, buf, 0, n, offset);
      fs.closeSync(fd);
      reads.bytes += got;
      return new Uint8Array(buf.buffer, buf.byteOffset, got);
    },
  };
  return { list, reader, reads };
}
