import { describe, expect, it } from 'vitest';
import { rows } from './helpers/ledger-db.js';
import { Rig } from './helpers/rig.js';

/** Two passing checks, each covering its own file, and one that fails while fail.txt says so. */
const SPEC = `version: 1
checks:
  - {id: a, run: ["node", "-e", "0"], sources: ["src/a.txt"]}
  - {id: b, run: ["node", "-e", "0"], sources: ["src/b.txt"]}
  - {id: f, run: ["node", "-e", "process.exit(require('fs').readFileSync('src/f.txt', 'utf8').trim() === 'fail' ? 1 : 0)"], sources: ["src/f.txt"]}
`;

async function workspace(): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.txt': 'a', 'src/b.txt': 'b', 'src/f.txt': 'ok' });
  await rig.spec(SPEC);
  return rig;
}

function receiptCount(rig: Rig): number {
  return rows(rig).filter((row) => row.kind === 'receipt').length;
}

describe('vouch verify --stale', () => {
  it('runs nothing when every selected check is a fresh PASS, says so, names them, and exits 0', async () => {
    const rig = await workspace();
    expect((await rig.run(['verify'])).code).toBe(0);
    const before = receiptCount(rig);

    const text = await rig.run(['verify', '--stale']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/nothing needed running: fresh PASS .*: a, b, f/);

    const json = await rig.run(['verify', '--stale', '--json']);
    expect(json.code).toBe(0);
    expect(json.json()).toMatchObject({
      ok: true,
      checks: [],
      fresh: [
        { id: 'a', status: 'PASS' },
        { id: 'b', status: 'PASS' },
        { id: 'f', status: 'PASS' },
      ],
    });
    expect(receiptCount(rig)).toBe(before);
  });

  it('runs a check turned STALE by an edit, and only it; the fresh ones count in the verdict', async () => {
    const rig = await workspace();
    await rig.run(['verify']);
    rig.write({ 'src/b.txt': 'b, edited' });
    const before = receiptCount(rig);

    const result = await rig.run(['verify', '--stale', '--json']);
    expect(result.code).toBe(0);
    const answer = result.json();
    expect(answer.checks.map((c: { id: string }) => c.id)).toEqual(['b']);
    expect(answer.checks[0].status).toBe('PASS');
    expect(answer.fresh.map((c: { id: string }) => c.id)).toEqual(['a', 'f']);
    expect(answer.ok).toBe(true);
    expect(receiptCount(rig)).toBe(before + 1);
    expect((await rig.run(['status', 'b', '--json'])).json().checks[0].status).toBe('PASS');
  });

  it('runs a check whose definition changed (STALE by definition)', async () => {
    const rig = await workspace();
    await rig.run(['verify']);
    await rig.spec(SPEC.replace('{id: a, run: ["node", "-e", "0"]', '{id: a, run: ["node", "-e", "1"]'));
    const result = await rig.run(['verify', '--stale', '--json']);
    expect(result.json().checks.map((c: { id: string }) => c.id)).toEqual(['a']);
  });

  it('does not run an unchanged FAIL (same files, definition and pins): it still counts (exit 1); --rerun-failed runs it; an edit makes it run', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a', 'src/b.txt': 'b', 'src/f.txt': 'fail' });
    await rig.spec(SPEC);
    expect((await rig.run(['verify'])).code).toBe(1);
    const before = receiptCount(rig);

    const text = await rig.run(['verify', '--stale']);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/nothing needed running: fresh PASS .*: a, b; unchanged FAIL .*--rerun-failed runs it\): f/);
    expect(receiptCount(rig)).toBe(before);
    const json = await rig.run(['verify', '--stale', '--json']);
    expect(json.code).toBe(1);
    expect(json.json()).toMatchObject({
      ok: false,
      checks: [],
      fresh: expect.arrayContaining([{ id: 'f', status: 'FAIL', blocking: true, receipt: expect.any(String), recorded_at: expect.any(String) }]),
    });
    expect(receiptCount(rig)).toBe(before);

    const rerun = await rig.run(['verify', '--stale', '--rerun-failed', '--json']);
    expect(rerun.code).toBe(1);
    expect(rerun.json()).toMatchObject({ ok: false, checks: [{ id: 'f', status: 'FAIL' }] });
    expect(receiptCount(rig)).toBe(before + 1);

    rig.write({ 'src/f.txt': 'fail\n\n' });
    const edited = await rig.run(['verify', '--stale', '--json']);
    expect(edited.json()).toMatchObject({ checks: [{ id: 'f', status: 'FAIL' }] });
    expect(receiptCount(rig)).toBe(before + 2);
  });

  it('refuses --rerun-failed without --stale (usage, exit 2)', async () => {
    const rig = await workspace();
    const result = await rig.run(['verify', '--rerun-failed']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--rerun-failed is used only with --stale');
  });

  it('runs a check that has no receipt yet', async () => {
    const rig = await workspace();
    await rig.run(['verify', 'a']);
    const result = await rig.run(['verify', '--stale', '--json']);
    expect(result.json().checks.map((c: { id: string }) => c.id)).toEqual(['b', 'f']);
  });

  it('combines with check ids: only the named checks are considered', async () => {
    const rig = await workspace();
    await rig.run(['verify']);
    rig.write({ 'src/b.txt': 'b, edited' });

    const onlyA = await rig.run(['verify', '--stale', 'a']);
    expect(onlyA.code).toBe(0);
    expect(onlyA.stdout).toMatch(/nothing needed running: fresh PASS .*: a$/m);

    const both = await rig.run(['verify', '--stale', 'a', 'b', '--json']);
    expect(both.json()).toMatchObject({ ok: true, checks: [{ id: 'b', status: 'PASS' }], fresh: [{ id: 'a' }] });
  });

  it('treats a PASS recorded inside an agent run as fresh, as `vouch status` does (the gate judges agent evidence itself)', async () => {
    const rig = await workspace();
    await rig.run(['verify'], { env: { AI_AGENT: 'some-agent' } });
    const status = (await rig.run(['status', 'a', '--json'])).json().checks[0];
    expect(status).toMatchObject({ status: 'PASS', agent_run: { agent: 'some-agent' } });
    const result = await rig.run(['verify', '--stale', '--json']);
    expect(result.json()).toMatchObject({ ok: true, checks: [] });
    expect(result.json().fresh[0]).toMatchObject({ id: 'a', agent_run: { agent: 'some-agent' } });
  });

  it('runs nothing when the spec is not allowed, and says so', async () => {
    const rig = await workspace();
    await rig.run(['verify']);
    rig.write({ 'vouch.yaml': `${SPEC}# edited\n` });
    const result = await rig.run(['verify', '--stale', '--json']);
    expect(result.code).toBe(1);
    expect(result.json().checks.every((c: { reason: string }) => c.reason === 'spec_not_allowed')).toBe(true);
  });

  it('is refused with --remote (usage, exit 2)', async () => {
    const rig = await workspace();
    const result = await rig.run(['verify', '--stale', '--remote', 'https://verifier.example']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--stale');
  });

  it('is in the help text', async () => {
    const rig = new Rig();
    const help = await rig.run(['verify', '--help']);
    expect(help.stdout + help.stderr).toContain('--stale');
  });
});
