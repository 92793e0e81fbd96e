import { describe, expect, it } from 'vitest';
import type { GateDecision } from '../src/gate/decision.js';
import { gateContext } from '../src/session/contexts.js';
import { Session } from '../src/session/session.js';
import { decideStop } from '../src/stop/decide.js';
import { Rig } from './helpers/rig.js';

// The gate's rules as a table, decided in this process (no client spawned, no hook payload): each row is a
// situation and the decision decideStop must take. The CLI and real-client tests drive the same function.

const GOOD = 'exports.add = (a, b) => a + b;\n';
const BROKEN = 'exports.add = (a, b) => a - b;\n';
const TEST = "const { add } = require('../src/add.js');\nif (add(2, 2) !== 4) { console.error('add(2, 2) returned ' + add(2, 2)); process.exit(1); }\n";
const CHECK = '  - {id: t, run: ["node", "test/add.test.js"], sources: ["src/**"], tests: ["test/**"]}\n';

async function stop(rig: Rig, session = 's1', cwd = rig.root): Promise<GateDecision> {
  const live = new Session({ env: rig.env(), cwd, dir: cwd });
  try {
    return await decideStop(
      {
        client: 'claude-code',
        event: 'Stop',
        session,
        agentId: null,
        cwd,
        stopHookActive: false,
        claim: 'Done.',
        agentType: null,
        transcriptPath: null,
        runningAgents: [],
      },
      gateContext(live),
    );
  } finally {
    await live.close();
  }
}

const brief = (d: GateDecision) => [d.kind, d.reason];

/** A project as a person leaves it before a session: allowed and, unless asked not to, verified (a PASS on record). */
async function project(spec: string, allow = true): Promise<Rig> {
  const rig = new Rig().write({ 'src/add.js': GOOD, 'test/add.test.js': TEST, 'vouch.yaml': spec });
  if (!allow) return rig;
  expect((await rig.run(['allow'])).code).toBe(0);
  const verified = await rig.run(['verify']);
  expect([0, 1]).toContain(verified.code);
  return rig;
}

describe('decideStop, as a table of situations', () => {
  it.each([
    ['no vouch.yaml anywhere up', null, ['allow', 'no_spec']],
    ['a vouch.yaml that is not valid', 'version: 1\nchecks: []\n', ['block', 'spec_invalid']],
    ['a vouch.yaml no person allowed', `version: 1\nchecks:\n${CHECK}`, ['block', 'spec_not_allowed']],
  ] as const)('%s: %j', async (_name, spec, expected) => {
    const rig = spec === null ? new Rig() : await project(spec, false);
    expect(brief(await stop(rig))).toEqual(expected);
  });

  it('a session that changed nothing is let go; a broken covered file blocks (the gate ran the check); the same stop again at max_blocks escapes; fixed, it is allowed', async () => {
    const rig = await project(`version: 1\ngate: {max_blocks: 2}\nchecks:\n${CHECK}`);
    expect(brief(await stop(rig))).toEqual(['allow', 'nothing_relevant']);
    rig.write({ 'src/add.js': BROKEN });
    const blocked = await stop(rig);
    expect(brief(blocked)).toEqual(['block', 'not_passing']);
    expect(blocked.findings.map((f) => [f.id, f.status, f.ranNow])).toEqual([['t', 'FAIL', true]]);
    expect(blocked.blocks).toBe(1);
    // max_blocks blocks in a row with no file change; the next stop is let through, recorded as escaped.
    expect(brief(await stop(rig))).toEqual(['block', 'not_passing']);
    expect(brief(await stop(rig))).toEqual(['escaped', 'max_blocks']);
    rig.write({ 'src/add.js': GOOD });
    expect(brief(await stop(rig))).toEqual(['allow', 'all_pass']);
  });

  it('on_stop: require runs nothing: a changed covered file with no fresh PASS blocks, and the check never ran', async () => {
    const rig = await project(`version: 1\ngate: {on_stop: require}\nchecks:\n${CHECK}`);
    await stop(rig);
    rig.write({ 'src/add.js': GOOD.replace('a + b', 'b + a') });
    const receipts = async () => (await rig.run(['log', '--json'])).json<{ check_id?: string }[]>().filter((r) => r.check_id === 't').length;
    const before = await receipts();
    const blocked = await stop(rig);
    expect(brief(blocked)).toEqual(['block', 'not_passing']);
    expect(blocked.findings.map((f) => [f.id, f.status, f.ranNow])).toEqual([['t', 'STALE', false]]);
    expect(await receipts()).toBe(before);
  });

  it("a protected file that differs from the session's first look blocks, whatever wrote it", async () => {
    const rig = await project(`version: 1\nprotect: ["test/**"]\nchecks:\n${CHECK}`);
    await stop(rig);
    rig.write({ 'test/add.test.js': 'process.exit(0)\n' });
    expect(brief(await stop(rig))).toEqual(['block', 'protected_changed']);
  });

  it('only advisory checks cover what changed: nothing blocks', async () => {
    const rig = await project(`version: 1\nchecks:\n  - {id: t, run: ["node", "test/add.test.js"], sources: ["src/**"], tests: ["test/**"], block: false}\n`);
    await stop(rig);
    rig.write({ 'src/add.js': BROKEN });
    expect((await stop(rig)).kind).toBe('allow');
  });

  it("two sessions are judged apart: one session's blocks never count for another", async () => {
    const rig = await project(`version: 1\ngate: {max_blocks: 1}\nchecks:\n${CHECK}`);
    await stop(rig, 'a');
    await stop(rig, 'b');
    rig.write({ 'src/add.js': BROKEN });
    expect(brief(await stop(rig, 'a'))).toEqual(['block', 'not_passing']);
    expect(brief(await stop(rig, 'a'))).toEqual(['escaped', 'max_blocks']);
    // b's first block is its own: a's escape does not carry over.
    expect(brief(await stop(rig, 'b'))).toEqual(['block', 'not_passing']);
  });
});
