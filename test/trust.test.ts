import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IN_CLAUDE_CODE, IN_CODEX, refused } from './helpers/cards.js';
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

  it.each([
    ['Claude Code', IN_CLAUDE_CODE],
    ['Codex', IN_CODEX],
    ['any agent declaring AI_AGENT', { AI_AGENT: 'some-agent' }],
  ])('an agent cannot allow its own edit of the spec: allow, deny and init --write are refused inside %s (agent_run, exit 4)', async (_name, env) => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(SPEC);
    rig.write({ 'vouch.yaml': `${SPEC}# an agent slipped this in\n` });
    const allow = await rig.run(['allow', '--json'], { env });
    refused(allow, 'agent_run');
    expect(allow.stderr).toContain('in their own terminal');
    expect((await rig.run(['status', '--json'])).json().checks[0]).toMatchObject({
      reason: 'spec_not_allowed',
      detail: 'vouch.yaml changed since it was allowed',
    });
    refused(await rig.run(['deny', '--json'], { env }), 'agent_run');
    const fresh = new Rig().write({ 'go.mod': 'module x\n', 'main.go': 'package main\n' });
    const init = await fresh.run(['init', '--write'], { env });
    expect(init.code).toBe(4);
    expect(init.stderr).toContain('agent_run');
    expect(existsSync(fresh.path('vouch.yaml'))).toBe(false);
    // Proposing a spec writes nothing, and stays open to the agent.
    expect((await fresh.run(['init'], { env })).code).toBe(0);
    // The person, at a terminal (no marker), allows it.
    expect((await rig.run(['allow'])).code).toBe(0);
    // The verifier service's own trust list and its tokens are a person's too.
    const served = await rig.run(['serve', 'allow', 'vouch.yaml', '--json'], { env });
    refused(served, 'agent_run');
    expect(served.stderr).toContain('vouch serve allow');
    expect((await rig.run(['serve', 'allowed', '--json'])).json()).toEqual([]);
    refused(await rig.run(['serve', 'token', 'add', 'agent', '--ledger', 'postgres://127.0.0.1:1/none', '--json'], { env }), 'agent_run');
  });

  it('keeps trust in $XDG_CONFIG_HOME/vouch when VOUCH_HOME is unset, else in ~/.config/vouch, never in the workspace', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    rig.write({ 'vouch.yaml': SPEC });
    const xdg = join(rig.home, 'xdg');
    const viaXdg = await rig.run(['allow'], { env: { VOUCH_HOME: undefined, XDG_CONFIG_HOME: xdg } });
    expect(viaXdg.code, viaXdg.stderr).toBe(0);
    expect(readdirSync(join(xdg, 'vouch')).length).toBeGreaterThan(0);
    expect((await rig.run(['status', '--json'], { env: { VOUCH_HOME: undefined, XDG_CONFIG_HOME: xdg } })).json().checks[0].reason).toBe('no_receipt');
    // The same workspace under another home is not allowed there.
    expect((await rig.run(['status', '--json'], { env: { VOUCH_HOME: undefined, XDG_CONFIG_HOME: undefined } })).json().checks[0].reason).toBe(
      'spec_not_allowed',
    );
    expect((await rig.run(['allow'], { env: { VOUCH_HOME: undefined, XDG_CONFIG_HOME: undefined } })).code).toBe(0);
    expect(existsSync(join(rig.home, '.config', 'vouch'))).toBe(true);
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
