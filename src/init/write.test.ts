import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeProposedSpec } from './write.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function project(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-init-write-')));
  dirs.push(root);
  for (const file of ['index.js', 'test/a.js']) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), '');
  }
  return root;
}

describe('writeProposedSpec (init --write)', () => {
  it('writes a spec whose every glob covers files of its own group', async () => {
    const root = project();
    const text = 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["**/*.js"], tests: ["test/**"]}\n';
    const written = await writeProposedSpec(root, text);
    expect(written.ok).toBe(true);
    expect(readFileSync(join(root, 'vouch.yaml'), 'utf8')).toBe(text);
  });

  it('refuses, writing nothing, a spec with a glob that matches nothing or whose files all went to another group, naming each', async () => {
    const root = project();
    const written = await writeProposedSpec(root, 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["test/**", "src/**"], tests: ["**/*.js"]}\n');
    expect(written.ok).toBe(false);
    if (written.ok) return;
    expect(written.error).toMatchObject({ code: 'proposal_scope_empty', message: expect.stringContaining('was not written: 2 of its globs') });
    expect(written.error.more!.map((item) => `${item.where}: ${item.message}`)).toEqual([
      'check t: sources glob "test/**" matches 1 file, all taken by tests (inputs are tried first, then tests, sources, artifacts), so it covers none as sources: verify answers UNKNOWN (scope_empty)',
      'check t: sources glob "src/**" matches no readable file: verify answers UNKNOWN (scope_empty)',
    ]);
    expect(existsSync(join(root, 'vouch.yaml'))).toBe(false);
  });

  it('never overwrites a spec', async () => {
    const root = project();
    writeFileSync(join(root, 'vouch.yaml'), 'mine\n');
    const written = await writeProposedSpec(root, 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["index.js"]}\n');
    expect(written).toMatchObject({ ok: false, error: { code: 'spec_exists' } });
    expect(readFileSync(join(root, 'vouch.yaml'), 'utf8')).toBe('mine\n');
  });
});
