// The captured fixtures the wasm tests run on: CPU (fixtures/), then TPU
// (fixtures/tpu/, libtpu); a fixture is a schema-1 scenario with the key
// real JAX computed (`expected`).
import fs from 'node:fs';
import path from 'node:path';

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
