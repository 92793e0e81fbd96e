import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

const SPEC = 'version: 1\nchecks:\n  - {id: t, run: ["touch", "ran.marker"], sources: ["src/**"]}\n';

describe('trust (allow / deny)', () => {
  it('refuses to run a spec that was never allowed, and says how to allow it', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a', 'vouch.yaml': SPEC });
    const result = await rig.run(['verify', '--json']);
    expect(result.code).toBe(1);
    expect(result.json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'spec_not_allowed' });
    expect(result.stderr).toContain('vouch allow');
    expect(existsSync(rig.path('ran.marker'))).toBe(false);
  });

  it('an edited spec is not allowed: status says spec_not_allowed, verify runs nothing', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(SPEC);
    await rig.run(['verify']);
    rig.write({ 'vouch.yaml': `${SPEC}# an agent slipped this in\n` });
    const status = await rig.run(['status', '--json']);
    expect(status.json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'spec_not_allowed', detail: 'vouch.yaml changed since it was allowed' });
    expect(status.json().checks[0].receipt).not.toBeNull();
    rig.write({ 'ran.marker': '' });
    const { rmSync } = await import('node:fs');
    rmSync(rig.path('ran.marker'));
    expect((await rig.run(['verify'])).code).toBe(1);
    expect(existsSync(rig.path('ran.marker'))).toBe(false);
  });

  it('keeps trust outside the workspace, in VOUCH_HOME', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(SPEC);
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(`${rig.home}/trust`).length).toBe(1);
    expect(existsSync(rig.path('.vouch/trust'))).toBe(false);
    // A different VOUCH_HOME has not allowed anything.
    const other = await rig.run(['status', '--json'], { env: { VOUCH_HOME: `${rig.home}/elsewhere` } });
    expect(other.json().checks[0].reason).toBe('spec_not_allowed');
  });

  it('deny withdraws trust; allow restores it', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(SPEC);
    await rig.run(['verify']);
    expect((await rig.run(['deny'])).code).toBe(0);
    expect((await rig.run(['status', '--json'])).json().checks[0].reason).toBe('spec_not_allowed');
    await rig.run(['allow']);
    expect((await rig.run(['status', '--json'])).json().checks[0].status).toBe('PASS');
  });

  it('refuses to allow an invalid spec, with every problem located', async () => {
    const rig = new Rig().write({ 'vouch.yaml': 'version: 1\nchecks:\n  - {id: t, run: "make test", sources: ["/etc/**"]}\n' });
    const result = await rig.run(['allow']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('vouch.yaml:3:18: checks[0].run: a plain-string command is refused');
    expect(result.stderr).toContain('vouch.yaml:3:41: checks[0].sources[0]: glob is absolute');
    expect(result.stderr).toContain('found:    "/etc/**"');
  });
});
