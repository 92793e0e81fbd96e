import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

/*
 * vouch doctor on real workspaces: what install wrote read back from the
 * files themselves, the ledger audited, nothing written.
 */

const SPEC = `version: 1
checks:
  - id: unit
    run: ["node", "-e", "process.exit(0)"]
    sources: ["src/**"]
`;

interface Line {
  area: string;
  status: 'ok' | 'off' | 'fail';
  reason: string;
  detail: string;
}

async function doctor(rig: Rig, env: Record<string, string> = {}) {
  const result = await rig.run(['doctor', '--json'], { env });
  const report = JSON.parse(result.stdout) as { ok: boolean; lines: Line[] };
  const by = (area: string) => report.lines.find((line) => line.area === area);
  return { code: result.code, report, by, reasons: Object.fromEntries(report.lines.map((line) => [line.area, [line.status, line.reason]])) };
}

async function workspace(spec = SPEC) {
  const rig = new Rig().write({ 'src/a.js': 'module.exports = 1;\n' });
  execFileSync('git', ['init', '-q'], { cwd: rig.root });
  await rig.spec(spec);
  const env = { HERMES_HOME: join(rig.home, 'hermes') };
  return { rig, env };
}

describe('vouch doctor', () => {
  it('tells an unwired workspace (every client off, nothing promised: exit 0) from a wired one (Claude Code with its box, Hermes, git, the ledger intact)', async () => {
    const { rig, env } = await workspace();
    const before = await doctor(rig, env);
    expect(before.code).toBe(0);
    expect(before.reasons).toMatchObject({
      workspace: ['ok', 'workspace_found'],
      trust: ['ok', 'trusted'],
      pins: ['ok', 'pins_held'],
      'claude-code (project)': ['off', 'not_wired'],
      'codex (project)': ['off', 'not_wired'],
      hermes: ['off', 'not_wired'],
      'git-hooks': ['off', 'not_wired'],
      mcp: ['off', 'not_wired'],
      ledger: ['off', 'ledger_empty'],
    });

    for (const target of ['claude-code', 'hermes', 'git-hooks']) expect((await rig.run(['install', target], { env })).code).toBe(0);
    expect((await rig.run(['install', 'mcp', '--client', 'cursor', '--write'], { env })).code).toBe(0);
    expect((await rig.run(['verify'])).code).toBe(0);
    const after = await doctor(rig, env);
    expect(after.code).toBe(0);
    expect(after.reasons).toMatchObject({
      'claude-code (project)': ['ok', 'wired'],
      'claude-code (user)': ['off', 'not_wired'],
      'codex (project)': ['off', 'not_wired'],
      hermes: ['ok', 'wired'],
      'git-hooks': ['ok', 'wired'],
      mcp: ['ok', 'wired'],
      ledger: ['ok', 'ledger_intact'],
      sandbox: ['ok', 'sandbox_ready'],
    });
    expect(after.by('claude-code (project)')!.detail).toContain('the box on');
    const text = await rig.run(['doctor'], { env });
    expect(text.stdout).toMatch(/^ok {3}claude-code \(project\) {2}wired: /m);
    expect(text.stdout).toContain('everything promised here is in force');
  }, 120_000);

  it('attack: the wiring install wrote is taken out behind its back (Claude Code hooks emptied, the Hermes plugin deleted): those lines FAIL, wiring_lost, exit 1', async () => {
    const { rig, env } = await workspace();
    for (const target of ['claude-code', 'hermes']) expect((await rig.run(['install', target], { env })).code).toBe(0);
    writeFileSync(rig.path('.claude/settings.json'), '{}\n');
    rmSync(join(env.HERMES_HOME, 'plugins', 'vouch', '__init__.py'));
    const { code, reasons, by } = await doctor(rig, env);
    expect(code).toBe(1);
    expect(reasons['claude-code (project)']).toEqual(['fail', 'wiring_lost']);
    expect(reasons.hermes).toEqual(['fail', 'wiring_lost']);
    expect(by('hermes')!.detail).toContain('__init__.py: vouch installed it and it is gone');
    expect(reasons['codex (project)']).toEqual(['off', 'not_wired']);
  }, 120_000);

  it('gate.require_box with the gate installed --no-sandbox: FAIL (every stop would be blocked, box_off); an edited vouch.yaml is not allowed: FAIL', async () => {
    const { rig, env } = await workspace(`${SPEC}gate: {require_box: true}\n`);
    expect((await rig.run(['install', 'claude-code', '--no-sandbox'], { env })).code).toBe(0);
    const boxless = await doctor(rig, env);
    expect(boxless.code).toBe(1);
    expect(boxless.reasons['claude-code (project)']).toEqual(['fail', 'wired_no_box']);
    expect(boxless.reasons.box).toEqual(['fail', 'box_required_off']);

    rig.write({ 'vouch.yaml': `${SPEC}gate: {require_box: true, max_blocks: 5}\n` });
    const edited = await doctor(rig, env);
    expect(edited.reasons.trust).toEqual(['fail', 'not_trusted']);
    expect(edited.by('trust')!.detail).toContain('changed since it was allowed');
  }, 120_000);

  it('outside any workspace: the user-wide wiring only, and it says so', async () => {
    const rig = new Rig();
    const { code, reasons } = await doctor(rig, { HERMES_HOME: join(rig.home, 'hermes') });
    expect(code).toBe(0);
    expect(reasons.workspace).toEqual(['off', 'no_workspace']);
    expect(reasons['claude-code (user)']).toEqual(['off', 'not_wired']);
    expect(reasons['claude-code (project)']).toBeUndefined();
    expect(reasons.ledger).toBeUndefined();
  }, 60_000);
});
