import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

/*
 * `vouch allow` shows what changed since the last allow: the spec's lines
 * (from the copy kept beside the trust record under VOUCH_HOME) and every
 * pin that moved, loudly when an interpreter leaves a virtualenv;
 * "(already allowed)" only when neither moved.
 */

const SPEC = 'version: 1\nchecks:\n  - {id: tests, run: ["python3", "-c", "pass"], sources: ["*.py"]}\n';

function allow(rig: Rig, env: Record<string, string> = {}) {
  return rig.run(['allow'], { env });
}

describe('vouch allow shows what changed', () => {
  it('an edited spec: its added and removed lines, and the copy is kept under VOUCH_HOME, not in the workspace', async () => {
    const rig = new Rig().write({ 'a.py': '', 'vouch.yaml': SPEC });
    expect((await allow(rig)).code).toBe(0);
    rig.write({ 'vouch.yaml': SPEC.replace('"pass"', '"import a"') + '  - {id: lint, run: ["true"], sources: ["*.py"]}\n' });
    const again = await allow(rig);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('(replacing an earlier version)');
    expect(again.stdout).toContain('spec since the last allow: +2 -1 lines');
    expect(again.stdout).toContain('- ' + SPEC.split('\n')[2]);
    expect(again.stdout).toContain('+   - {id: lint, run: ["true"], sources: ["*.py"]}');
    const kept = readdirSync(join(rig.home, 'allowed-specs'));
    expect(kept).toHaveLength(1);
    expect(readFileSync(join(rig.home, 'allowed-specs', kept[0]!), 'utf8')).toBe(rig.read('vouch.yaml'));
    expect(readdirSync(join(rig.home, 'trust'))).toHaveLength(1);
    const json = (await allow(rig, {}).then(() => rig.run(['allow', '--json']))).json<{ changes: { spec: unknown; pins: unknown[] } }>();
    expect(json.changes).toEqual({ spec: null, pins: [] });
  });

  it('"(already allowed)" only when neither the spec nor any pin moved: a tool config that changed is named', async () => {
    const rig = new Rig().write({ 'a.py': '', 'vouch.yaml': SPEC, 'pytest.ini': '[pytest]\n' });
    await allow(rig);
    expect((await allow(rig)).stdout).toContain('(already allowed)');
    rig.write({ 'pytest.ini': '[pytest]\naddopts = --co\n' });
    const moved = await allow(rig);
    expect(moved.stdout).not.toContain('(already allowed)');
    expect(moved.stdout).toContain('(spec unchanged; pins moved)');
    expect(moved.stdout).toContain(`tool config ${rig.path('pytest.ini')} changed`);
  });

  it('re-allowed from a shell without the virtualenv: python3 moving out of it is a warning naming both, and --json lists the move', async () => {
    const rig = new Rig().write({ 'a.py': '', 'vouch.yaml': SPEC });
    const venv = rig.path('.venv');
    execFileSync('/usr/bin/python3', ['-m', 'venv', '--without-pip', venv]);
    const active = { PATH: `${venv}/bin:${process.env.PATH ?? ''}` };
    await allow(rig, active);
    const plain = await allow(rig, { PATH: process.env.PATH ?? '' });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).not.toContain('(already allowed)');
    expect(plain.stdout).toContain(`PATH: without ${venv}/bin`);
    expect(plain.stdout).toMatch(new RegExp(`python3 \\(tests\\): ${venv}/bin/python3 -> /\\S+python3`));
    expect(plain.stderr).toContain(`vouch: warning: python3 (tests) left the virtualenv ${venv}`);
    // Back with the venv active: the pin moved again, so not "(already allowed)" either; no warning entering one.
    const back = await rig.run(['allow', '--json'], { env: active });
    const changes = back.json<{ changes: { pins: { kind: string; before?: string; after?: string; leftVenv?: string | null }[] } }>().changes.pins;
    expect(changes.find((c) => c.kind === 'executable')).toMatchObject({ after: `${venv}/bin/python3`, leftVenv: null });
    expect(back.stderr).not.toContain('left the virtualenv');
  });
});
