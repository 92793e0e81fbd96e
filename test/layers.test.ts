import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('..', import.meta.url));

/** Lints `text` as if it were the file at `path` (relative to the repository), with the repository's own ESLint config. */
async function restrictedImports(path: string, text: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: REPO });
  const [result] = await eslint.lintText(text, { filePath: `${REPO}${path}` });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('the layer rules (eslint/layers.js, part of eslint.config.js)', () => {
  it('a domain file that imports the CLI or the stop orchestration above it is a lint error', async () => {
    // An existing file's path, so the type-aware parser knows it; the text is the probe's.
    const found = await restrictedImports('src/gate/guard.ts', "import { Cli } from '../cli/io.js';\nimport { decideStop } from '../stop/decide.js';\nexport const probe = [Cli, decideStop];\n");
    expect(found).toHaveLength(2);
    expect(found[0]).toContain('src/gate/ may not import cli/');
  });

  it('storage that reaches up into the gate is a lint error, and core imports nothing', async () => {
    expect(await restrictedImports('src/ledger/ledger.ts', "import type { GateContext } from './../gate/context.js';\nexport type Probe = GateContext;\n")).toEqual([
      expect.stringContaining('src/ledger/ may not import'),
    ]);
    expect(await restrictedImports('src/core/status.ts', "import { isInside } from '../scope/inside.js';\nexport const probe = isInside;\n")).toEqual([
      expect.stringContaining('src/core/ imports nothing'),
    ]);
  });

  it('imports the layer is allowed are not flagged (the rule is not a blanket ban)', async () => {
    expect(await restrictedImports('src/gate/guard.ts', "import { sha256 } from '../core/digest.js';\nimport type { Ledger } from '../ledger/ledger.js';\nexport const probe: [typeof sha256, Ledger | null] = [sha256, null];\n")).toEqual([]);
    expect(await restrictedImports('src/cli/main.ts', "import { Cli } from './io.js';\nexport const probe = Cli;\n")).toEqual([]);
  });
});
