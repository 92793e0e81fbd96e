import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

const SPEC = (extra = '') => `version: 1
checks:
  - id: t
    run: ["touch", "ran.marker"]
    sources: ["src/**"]
${extra}`;

describe('scopes', () => {
  it('a symlink in scope that resolves outside the workspace is UNKNOWN/path_escape and is never hashed', async () => {
    const outside = join(tmpdir(), `vouch-outside-${process.pid}-${Date.now()}`);
    writeFileSync(outside, 'secret outside');
    try {
      const rig = new Rig().write({ 'src/a.ts': 'a' }).symlink(outside, 'src/link.ts');
      await rig.spec(SPEC());
      const result = await rig.run(['verify', '--json']);
      expect(result.json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'path_escape' });
      expect(existsSync(rig.path('ran.marker'))).toBe(false);
      const receipt = (await rig.run(['show', result.json().checks[0].receipt, '--json'])).json();
      expect(receipt.manifest.files.map((f: string[]) => f[0])).not.toContain('src/link.ts');
      const status = await rig.run(['status', '--json']);
      expect(status.json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'path_escape' });
    } finally {
      rmSync(outside, { force: true });
    }
  });

  it('a scope directory that is a symlink leading outside is a path escape, not a walk outside', async () => {
    const outside = join(tmpdir(), `vouch-outside-dir-${process.pid}-${Date.now()}`);
    mkdirSync(outside);
    writeFileSync(join(outside, 'x.ts'), 'x');
    try {
      const rig = new Rig().write({ 'lib/a.ts': 'a' }).symlink(outside, 'src');
      await rig.spec(SPEC());
      const status = await rig.run(['verify', '--json']);
      expect(status.json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'path_escape' });
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('a symlink that stays inside is hashed by its target content', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a', 'shared/b.ts': 'b' }).symlink('../shared/b.ts', 'src/b.ts');
    await rig.spec(SPEC());
    expect((await rig.run(['verify', '--json'])).json().checks[0].status).toBe('PASS');
    rig.write({ 'shared/b.ts': 'changed' });
    expect((await rig.run(['status', '--json'])).json().checks[0]).toMatchObject({ status: 'STALE', reason: 'fingerprint_changed' });
  });

  it('never reads credential-shaped files: they are listed as refused and do not affect the fingerprint', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a', 'src/.env': 'TOKEN=1', 'src/server.pem': 'k', 'src/.ssh/id_rsa': 'k', 'src/.npmrc': '//x/:_authToken=1' });
    await rig.spec(SPEC());
    const verified = (await rig.run(['verify', '--json'])).json();
    expect(verified.checks[0].status).toBe('PASS');
    const shown = (await rig.run(['show', verified.checks[0].receipt, '--json'])).json();
    expect(shown.manifest.files.map((f: string[]) => f[0])).toEqual(['src/a.ts']);
    expect(shown.manifest.refused).toEqual([
      ['src/.env', 'credential'],
      ['src/.npmrc', 'credential'],
      ['src/.ssh/id_rsa', 'credential'],
      ['src/server.pem', 'credential'],
    ]);
    rig.write({ 'src/.env': 'TOKEN=2 changed' });
    expect((await rig.run(['status', '--json'])).json().checks[0].status).toBe('PASS');
  });

  it('a regular file replaced by a FIFO is refused without blocking', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a', 'src/b.ts': 'b' });
    await rig.spec(SPEC());
    expect((await rig.run(['verify', '--json'])).json().checks[0].status).toBe('PASS');
    rmSync(rig.path('src/b.ts'));
    execFileSync('mkfifo', [rig.path('src/b.ts')]);
    // Nobody ever writes to the FIFO: an open without O_NONBLOCK would hang until the rig's timeout.
    const status = await rig.run(['status', '--json'], { timeoutMs: 15_000 });
    expect(status.signal).toBeNull();
    expect(status.json().checks[0]).toMatchObject({ status: 'STALE', reason: 'fingerprint_changed' });
    const verified = await rig.run(['verify', '--json'], { timeoutMs: 15_000 });
    const receipt = (await rig.run(['show', verified.json().checks[0].receipt, '--json'])).json();
    expect(receipt.manifest.refused).toEqual([['src/b.ts', 'not_regular_file']]);
  });

  it('a declared glob that matches nothing is UNKNOWN/scope_empty and the command does not run', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(SPEC('    tests: ["tests/**/*.spec.ts"]\n'));
    const result = await rig.run(['verify', '--json']);
    expect(result.json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'scope_empty' });
    expect(result.json().checks[0].detail).toContain('tests/**/*.spec.ts');
    expect(existsSync(rig.path('ran.marker'))).toBe(false);
  });

  it('allow_missing accepts a glob that matches nothing', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(SPEC('    tests: ["tests/**"]\n    allow_missing: true\n'));
    expect((await rig.run(['verify', '--json'])).json().checks[0].status).toBe('PASS');
  });

  it('a scoped file changed while the check ran is UNKNOWN/changed_during_run', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["sh", "-c", "echo edit >> src/a.ts"], sources: ["src/**"]}\n');
    const result = await rig.run(['verify', '--json']);
    expect(result.json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'changed_during_run', detail: 'src/a.ts modified' });
  });

  it('a file added to scope during the run is a change too', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["touch", "src/new.ts"], sources: ["src/**"]}\n');
    expect((await rig.run(['verify', '--json'])).json().checks[0]).toMatchObject({
      status: 'UNKNOWN',
      reason: 'changed_during_run',
      detail: 'src/new.ts added',
    });
  });

  it('a declared artifact the run did not produce is UNKNOWN/artifact_missing; produced, it is PASS', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(`version: 1
checks:
  - {id: none, run: ["true"], sources: ["src/**"], artifacts: ["dist/out.txt"]}
  - {id: some, run: ["sh", "-c", "mkdir -p dist && echo built > dist/out.txt"], sources: ["src/**"], artifacts: ["dist/out.txt"]}
`);
    const result = (await rig.run(['verify', 'none', '--json'])).json();
    expect(result.checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'artifact_missing' });
    const built = (await rig.run(['verify', 'some', '--json'])).json();
    expect(built.checks[0].status).toBe('PASS');
    rig.write({ 'dist/out.txt': 'tampered' });
    expect((await rig.run(['status', 'some', '--json'])).json().checks[0]).toMatchObject({ status: 'STALE', detail: 'dist/out.txt modified' });
  });

  it('skips node_modules unless a glob names it', async () => {
    const rig = new Rig().write({ 'src/a.js': 'a', 'node_modules/dep/index.js': 'x' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["**/*.js"]}\n');
    expect((await rig.run(['verify', '--json'])).json().checks[0].status).toBe('PASS');
    rig.write({ 'node_modules/dep/index.js': 'changed' });
    expect((await rig.run(['status', '--json'])).json().checks[0].status).toBe('PASS');
    rig.write({ 'src/a.js': 'changed' });
    expect((await rig.run(['status', '--json'])).json().checks[0].status).toBe('STALE');
  });
});
