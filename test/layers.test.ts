import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { LAYERED, TIERS } from '../lint/layers.mjs';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const DEPCRUISE = join(REPO, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

const trees: string[] = [];
afterAll(() => {
  for (const tree of trees) rmSync(tree, { recursive: true, force: true });
});

interface Violation {
  readonly rule: { readonly name: string };
  readonly from: string;
  readonly to: string;
}

/**
 * Runs the repository's own dependency-cruiser config over a probe tree
 * (files written inline, shaped like src/) and returns what it found.
 */
function cruise(files: Record<string, string>): Promise<Violation[]> {
  const root = mkdtempSync(join(tmpdir(), 'vouch-layers-'));
  trees.push(root);
  writeFileSync(
    join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', strict: true }, include: ['src'] }),
  );
  writeFileSync(join(root, 'package.json'), JSON.stringify({ type: 'module' }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [DEPCRUISE, 'src', '--config', join(REPO, '.dependency-cruiser.mjs'), '--output-type', 'json'],
      { cwd: root, maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        try {
          const out = JSON.parse(stdout) as { summary: { violations: Violation[] } };
          resolve(out.summary.violations);
        } catch {
          reject(new Error(`dependency-cruiser gave no JSON (${error?.message ?? ''}): ${stderr}`));
        }
      },
    );
  });
}

const names = (violations: readonly Violation[]) => violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();

describe('the layers (lint/layers.mjs, checked by dependency-cruiser in npm run lint)', () => {
  it('every folder of src/ has a tier, and every tier names folders that exist', () => {
    const folders = readdirSync(join(REPO, 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(folders.filter((folder) => !LAYERED.includes(folder))).toEqual([]);
    expect(LAYERED.filter((folder) => folder !== '' && !folders.includes(folder))).toEqual([]);
    expect(new Set(LAYERED).size).toBe(LAYERED.length);
    expect(TIERS.every((tier) => tier.folders.length > 0)).toBe(true);
  });

  it('each kind the old path-word rule missed is an error: a dynamic import, a path that climbs too far, a type-only import, a re-export', async () => {
    const found = await cruise({
      'src/cli/main.ts': 'export const main = 1;\n',
      'src/gate/dynamic.ts': "export async function probe() { return (await import('../cli/main.js')).main; }\n",
      'src/gate/climbs.ts': "import { main } from '../../src/cli/main.js';\nexport const probe = main;\n",
      'src/gate/typed.ts': "import type { Note } from '../stop/note.js';\nexport type Probe = Note;\n",
      'src/stop/note.ts': 'export interface Note { readonly id: string }\n',
      'src/ledger/again.ts': "export * from '../gate/typed.js';\n",
    });
    expect(names(found)).toEqual([
      'layer-gate: src/gate/climbs.ts -> src/cli/main.ts',
      'layer-gate: src/gate/dynamic.ts -> src/cli/main.ts',
      'layer-gate: src/gate/typed.ts -> src/stop/note.ts',
      'layer-ledger: src/ledger/again.ts -> src/gate/typed.ts',
    ]);
  });

  it('siblings of one tier may not import each other (gate and cards), nor may a folder with no tier exist', async () => {
    const found = await cruise({
      'src/cards/card.ts': 'export const card = 1;\n',
      'src/gate/sibling.ts': "import { card } from '../cards/card.js';\nexport const probe = card;\n",
      'src/newfolder/thing.ts': "import { sha } from '../core/sha.js';\nexport const probe = sha;\n",
      'src/core/sha.ts': 'export const sha = 1;\n',
    });
    expect(names(found)).toEqual(['layer-gate: src/gate/sibling.ts -> src/cards/card.ts', 'unlayered-folder: src/newfolder/thing.ts -> src/core/sha.ts']);
  });

  it('a cycle is an error even inside one folder, and an import that does not resolve is one too', async () => {
    const found = await cruise({
      'src/engine/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'src/engine/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
      'src/engine/c.ts': "import { gone } from './gone.js';\nexport const c = gone;\n",
    });
    // A cycle is reported once, at the first of its files.
    expect(names(found)).toEqual(['no-circular: src/engine/a.ts -> src/engine/b.ts', 'not-to-unresolvable: src/engine/c.ts -> ./gone.js']);
  });

  it('what the layers allow is not flagged: a lower tier, a subfolder of its own folder (install/targets -> install/mcp), a unit test beside the code', async () => {
    const found = await cruise({
      'src/core/digest.ts': 'export const digest = 1;\n',
      'src/install/mcp/entry.ts': 'export const entry = 1;\n',
      'src/install/targets/codex.ts':
        "import { entry } from '../mcp/entry.js';\nimport { digest } from '../../core/digest.js';\nexport const probe = [entry, digest];\n",
      'src/cli/main.ts': 'export const main = 1;\n',
      'src/gate/guard.test.ts': "import { main } from '../cli/main.js';\nexport const probe = main;\n",
    });
    expect(names(found)).toEqual([]);
  });

  it('src/ as it is has no violation (the same check npm run lint makes)', async () => {
    const out = await new Promise<string>((resolve) => {
      execFile(
        process.execPath,
        [DEPCRUISE, 'src', '--config', '.dependency-cruiser.mjs', '--output-type', 'json'],
        { cwd: REPO, maxBuffer: 64 << 20 },
        (_error, stdout) => resolve(stdout),
      );
    });
    const parsed = JSON.parse(out) as { summary: { violations: Violation[]; totalCruised: number } };
    expect(names(parsed.summary.violations)).toEqual([]);
    expect(parsed.summary.totalCruised).toBeGreaterThan(300);
  });
});
