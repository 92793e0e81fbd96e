import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

const SPEC = `version: 1
checks:
  - id: unit
    run: ["true"]
    sources: ["src/**"]
    tests: ["test/**"]
  - id: lint
    run: ["true"]
    sources: ["src/**"]
    block: false
`;

const statusOf = async (rig: Rig, id = 'unit') => (await rig.run(['status', '--json'])).json().checks.find((c: { id: string }) => c.id === id);

describe('status', () => {
  it('is UNKNOWN/no_receipt before anything ran', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a', 'test/a.ts': 't' });
    await rig.spec(SPEC);
    const result = await rig.run(['status', '--json']);
    expect(result.code).toBe(1);
    expect(result.json().checks[0]).toMatchObject({ id: 'unit', status: 'UNKNOWN', reason: 'no_receipt', receipt: null, blocking: true });
  });

  it('turns PASS into STALE when a covered file is edited, and back to PASS when it is restored', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a', 'test/a.ts': 't' });
    await rig.spec(SPEC);
    await rig.run(['verify']);
    const pass = await rig.run(['status', '--json']);
    expect(pass.code).toBe(0);
    expect(pass.json().ok).toBe(true);
    rig.write({ 'test/a.ts': 't2' });
    const stale = await rig.run(['status', '--json']);
    expect(stale.code).toBe(1);
    expect(stale.json().checks[0]).toMatchObject({ status: 'STALE', reason: 'fingerprint_changed', changed: { modified: ['test/a.ts'] } });
    rig.write({ 'test/a.ts': 't' });
    expect(await statusOf(rig)).toMatchObject({ status: 'PASS', reason: 'ok' });
  });

  it('detects an edit within the same second that keeps the size', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'aaaa', 'test/a.ts': 't' });
    await rig.spec(SPEC);
    await rig.run(['verify']);
    rig.write({ 'src/a.ts': 'bbbb' });
    expect(await statusOf(rig)).toMatchObject({ status: 'STALE', reason: 'fingerprint_changed' });
  });

  it('turns PASS into STALE/definition_changed when the check definition changes (once the new spec is allowed)', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a', 'test/a.ts': 't' });
    await rig.spec(SPEC);
    await rig.run(['verify']);
    await rig.spec(SPEC.replace('run: ["true"]\n    sources: ["src/**"]\n    tests', 'run: ["true", "--changed"]\n    sources: ["src/**"]\n    tests'));
    expect(await statusOf(rig)).toMatchObject({ status: 'STALE', reason: 'definition_changed' });
    // The advisory check's definition did not change: still PASS.
    expect(await statusOf(rig, 'lint')).toMatchObject({ status: 'PASS' });
  });

  it('keeps the PASS when only prose or policy changes (proves, block)', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a', 'test/a.ts': 't' });
    await rig.spec(SPEC);
    await rig.run(['verify']);
    await rig.spec(SPEC.replace('    block: false\n', '    block: true\n    proves: "Lint is clean."\n'));
    expect(await statusOf(rig, 'lint')).toMatchObject({ status: 'PASS' });
  });

  it('a FAIL also goes STALE after an edit: the old failure no longer describes the files', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a', 'test/a.ts': 't' });
    await rig.spec(SPEC.replace('run: ["true"]', 'run: ["false"]'));
    await rig.run(['verify', 'unit']);
    expect(await statusOf(rig)).toMatchObject({ status: 'FAIL', reason: 'exit_code' });
    rig.write({ 'src/a.ts': 'fixed' });
    expect(await statusOf(rig)).toMatchObject({ status: 'STALE' });
  });

  it('judges only blocking checks for the exit code; an advisory failure never gates', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a', 'test/a.ts': 't' });
    await rig.spec(
      SPEC.replace('    run: ["true"]\n    sources: ["src/**"]\n    block: false', '    run: ["false"]\n    sources: ["src/**"]\n    block: false'),
    );
    const verify = await rig.run(['verify', '--json']);
    expect(verify.json().checks.map((c: { status: string }) => c.status)).toEqual(['PASS', 'FAIL']);
    expect(verify.code).toBe(0);
    expect((await rig.run(['status'])).code).toBe(0);
    // Asked about the advisory check alone, its own result is the answer: nothing graded is never a pass.
    expect((await rig.run(['status', 'lint'])).code).toBe(1);
  });

  it('selects checks by id and refuses an unknown id with exit 2', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a', 'test/a.ts': 't' });
    await rig.spec(SPEC);
    const one = await rig.run(['status', 'lint', '--json']);
    expect(one.json().checks.map((c: { id: string }) => c.id)).toEqual(['lint']);
    const bad = await rig.run(['status', 'unti']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('no check "unti" in vouch.yaml (did you mean "unit"?)');
  });

  it('colours the table on a terminal, and not with NO_COLOR=1 or --no-color', async () => {
    const { execFileSync } = await import('node:child_process');
    const { CLI } = await import('./helpers/rig.js');
    const rig = new Rig().write({ 'src/a.ts': 'a', 'test/a.ts': 't' });
    await rig.spec(SPEC);
    await rig.run(['verify', 'unit']);
    // `script` gives the command a pseudo-terminal, as an interactive shell would.
    const onTty = (env: Record<string, string | undefined>, ...args: string[]) =>
      execFileSync('script', ['-qec', `${process.execPath} ${CLI} status ${args.join(' ')}`, '/dev/null'], { cwd: rig.root, env: rig.env(env) }).toString();
    const coloured = onTty({ NO_COLOR: undefined });
    expect(coloured).toMatch(/\u001b\[[0-9;]*m\s*PASS/);
    expect(coloured).toMatch(/PASS\S*\s+unit/);
    expect(onTty({ NO_COLOR: '1' })).not.toContain('\u001b[');
    expect(onTty({ NO_COLOR: undefined }, '--no-color')).not.toContain('\u001b[');
  });

  it('prints a human table without colour when piped', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a', 'test/a.ts': 't' });
    await rig.spec(SPEC);
    await rig.run(['verify', 'unit']);
    const result = await rig.run(['status'], { env: { NO_COLOR: undefined } });
    expect(result.stdout).not.toContain('\u001b[');
    expect(result.stdout).toMatch(/PASS\s+unit/);
    expect(result.stdout).toMatch(/UNKNOWN\s+lint \(advisory\)\s+no_receipt/);
  });
});
