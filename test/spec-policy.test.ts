import { existsSync, readdirSync, utimesSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

// The settings a person keeps in vouch.yaml (so changing them needs `vouch allow`):
// default excludes, limits on a scope, whole logs kept or not, and gc's retention.

const PY = {
  'src/a.py': 'a = 1\n',
  '.venv/lib/site.py': 'x = 1\n',
  'src/__pycache__/a.cpython-311.pyc': 'pyc',
  'build/gen.py': 'g = 1\n',
  'dist/out.py': 'o = 1\n',
  'pkg/.tox/t.py': 't\n',
};

async function files(rig: Rig, id: string): Promise<string[]> {
  const shown = await rig.run(['checks', '--files', '--json']);
  expect(shown.code, shown.stderr).toBe(0);
  const check = (shown.json().checks as { id: string; files: { path: string }[] }[]).find((c) => c.id === id)!;
  return check.files.map((f) => f.path).sort();
}

function logFiles(rig: Rig): string[] {
  return existsSync(rig.path('.vouch/logs')) ? readdirSync(rig.path('.vouch/logs')).filter((name) => name.endsWith('.gz')) : [];
}

describe('default excludes: virtualenvs, caches and build outputs are out of a scope unless named', () => {
  it('a hand-written **/*.py does not take in .venv, __pycache__, build, dist or .tox', async () => {
    const rig = new Rig().write(PY);
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["**/*.py", "**/*.pyc"]}\n');
    expect(await files(rig, 't')).toEqual(['src/a.py']);
  });

  it('an edit inside .venv leaves the PASS fresh; an edit of a source makes it STALE', async () => {
    const rig = new Rig().write(PY);
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["**/*.py"]}\n');
    expect((await rig.run(['verify'])).code).toBe(0);
    rig.write({ '.venv/lib/site.py': 'x = 2\n', 'build/gen.py': 'g = 2\n' });
    expect((await rig.run(['status', '--json'])).json().checks[0].status).toBe('PASS');
    rig.write({ 'src/a.py': 'a = 2\n' });
    expect((await rig.run(['status', '--json'])).json().checks[0].status).toBe('STALE');
  });

  it('a glob that names the folder takes it in; the others stay out', async () => {
    const rig = new Rig().write(PY);
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**", "build/**"]}\n');
    expect(await files(rig, 't')).toEqual(['build/gen.py', 'src/a.py']);
    const json = (await rig.run(['checks', '--json'])).json().checks[0];
    expect(json.default_excludes).not.toContain('**/build/**');
    expect(json.default_excludes).toContain('**/__pycache__/**');
  });

  it('default_excludes: false hashes them like any folder', async () => {
    const rig = new Rig().write(PY);
    await rig.spec('version: 1\ndefault_excludes: false\nchecks:\n  - {id: t, run: ["true"], sources: ["**/*.py"]}\n');
    expect(await files(rig, 't')).toEqual(['.venv/lib/site.py', 'build/gen.py', 'dist/out.py', 'pkg/.tox/t.py', 'src/a.py']);
  });

  it('an artifact or an input in such a folder is still read: the defaults touch sources and tests only', async () => {
    const rig = new Rig().write({ ...PY, 'dist/app.js': 'x' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"], artifacts: ["**/app.js"], inputs: ["**/site.py"]}\n');
    expect(await files(rig, 't')).toEqual(['.venv/lib/site.py', 'dist/app.js', 'src/a.py']);
  });
});

describe('limits: a scope past them is UNKNOWN scope_too_large and its command is not run', () => {
  it('max_files', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a', 'src/b.txt': 'b', 'src/c.txt': 'c' });
    await rig.spec('version: 1\nlimits: {max_files: 2}\nchecks:\n  - {id: t, run: ["sh", "-c", "touch ran"], sources: ["src/**"]}\n');
    const result = await rig.run(['verify', '--json']);
    expect(result.code).not.toBe(0);
    const receipt = (await rig.run(['show', 't', '--json'])).json().receipt;
    expect(receipt).toMatchObject({ verdict: 'UNKNOWN', reason: 'scope_too_large', ran: false });
    expect(receipt.detail).toContain('3 files in scope, more than limits.max_files (2)');
    expect(existsSync(rig.path('ran'))).toBe(false);
  });

  it('max_bytes, and within both it runs', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'x'.repeat(2000) });
    await rig.spec('version: 1\nlimits: {max_bytes: 1000}\nchecks:\n  - {id: t, run: ["sh", "-c", "touch ran"], sources: ["src/**"]}\n');
    await rig.run(['verify']);
    expect((await rig.run(['show', 't', '--json'])).json().receipt).toMatchObject({ verdict: 'UNKNOWN', reason: 'scope_too_large' });
    await rig.spec('version: 1\nlimits: {max_bytes: 3000, max_files: 1}\nchecks:\n  - {id: t, run: ["sh", "-c", "touch ran"], sources: ["src/**"]}\n');
    expect((await rig.run(['verify'])).code).toBe(0);
    expect(existsSync(rig.path('ran'))).toBe(true);
  });
});

describe('whole logs: kept by default, never with retention.logs: false or excerpt_bytes: 0', () => {
  for (const [name, setting] of [
    ['retention.logs: false', 'retention: {logs: false}\n'],
    ['excerpt_bytes: 0', 'excerpt_bytes: 0\n'],
  ] as const) {
    it(`${name} keeps the hashes only: no file in .vouch/logs, and show --log says why`, async () => {
      const rig = new Rig().write({ 'src/a.txt': 'a' });
      await rig.spec(`version: 1\n${setting}checks:\n  - {id: t, run: ["sh", "-c", "echo secret-ish output"], sources: ["src/**"]}\n`);
      expect((await rig.run(['verify'])).code).toBe(0);
      expect(logFiles(rig)).toEqual([]);
      const receipt = (await rig.run(['show', 't', '--json'])).json().receipt;
      expect(receipt.log).toBeUndefined();
      expect(receipt.stdout.sha256).toMatch(/^[0-9a-f]{64}$/);
      const log = await rig.run(['show', 't', '--log']);
      expect(log.code).toBe(6);
      expect(log.stderr).toContain('keeps none (retention.logs: false or excerpt_bytes: 0)');
    });
  }

  it('by default the whole log is kept', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["sh", "-c", "echo out"], sources: ["src/**"]}\n');
    await rig.run(['verify']);
    expect(logFiles(rig)).toHaveLength(1);
  });
});

describe('gc with no flags applies retention:, and the audit is intact after it', () => {
  it('per_check from the spec; a flag overrides its part', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    await rig.spec('version: 1\nretention: {per_check: 2}\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
    for (let i = 0; i < 4; i++) expect((await rig.run(['verify'])).code).toBe(0);
    const gc = await rig.run(['gc', '--json']);
    expect(gc.code, gc.stderr).toBe(0);
    expect(gc.json()).toMatchObject({ ok: true, removed: 2, policy: { keepDays: 30, keepPerCheck: 2, logDays: null } });
    expect((await rig.run(['audit'])).code).toBe(0);
    const flagged = await rig.run(['gc', '--keep-per-check', '1', '--json']);
    expect(flagged.json()).toMatchObject({ removed: 1, policy: { keepPerCheck: 1 } });
    expect((await rig.run(['audit'])).code).toBe(0);
    expect((await rig.run(['status', '--json'])).json().checks[0].status).toBe('PASS');
  });

  it('log_days removes the whole logs older than that and keeps their receipts', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    await rig.spec('version: 1\nretention: {log_days: 1}\nchecks:\n  - {id: t, run: ["sh", "-c", "echo out"], sources: ["src/**"]}\n');
    await rig.run(['verify']);
    const [old] = logFiles(rig);
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    utimesSync(rig.path(`.vouch/logs/${old}`), twoDaysAgo, twoDaysAgo);
    rig.write({ 'src/a.txt': 'b' });
    await rig.run(['verify']);
    expect(logFiles(rig)).toHaveLength(2);
    const gc = await rig.run(['gc', '--json']);
    expect(gc.json()).toMatchObject({ ok: true, removed: 0, logsRemoved: 1 });
    expect(logFiles(rig)).toHaveLength(1);
    expect(logFiles(rig)).not.toContain(old);
    expect((await rig.run(['show', 't', '--log'])).code).toBe(0);
    expect((await rig.run(['audit'])).code).toBe(0);
  });
});
