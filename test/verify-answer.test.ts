import { describe, expect, it } from 'vitest';
import { McpSession } from './helpers/mcp.js';
import { Rig } from './helpers/rig.js';

/*
 * One verify answer: `vouch verify --json` and the MCP tool `vouch_verify`
 * translate the same engine answer (engine/verify-answer.ts). For the same
 * checks on the same files they carry the same facts; only what names one
 * run (its receipt ids, how long it took) differs between two runs.
 */

const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';

const SPEC = `version: 1
checks:
  - {id: pass, run: ["sh", "-c", "echo fine"], sources: ["src/**"]}
  - {id: fail, run: ["sh", "-c", "echo 'AssertionError: 1 != 2' >&2; exit 1"], sources: ["src/**"]}
  - {id: env, run: ["sh", "-c", "echo 'sh: 1: deploy-tool: not found' >&2; exit 127"], sources: ["src/**"]}
  - {id: quoted, run: ["sh", "-c", "test -n '${TOKEN}'"], sources: ["src/**"], block: false}
  - {id: empty, run: ["true"], sources: ["missing/**"]}
`;

const IDS = ['pass', 'fail', 'env', 'quoted', 'empty'];

interface Entry {
  readonly id: string;
  readonly receipt: string | null;
  readonly duration_ms: number | null;
  readonly [field: string]: unknown;
}

/** The facts of an answer: everything but what names one run. */
function facts(answer: { ok: boolean; checks: Entry[] }) {
  return {
    ok: answer.ok,
    checks: answer.checks.map(({ receipt, duration_ms, ...rest }) => ({ ...rest, recorded: receipt !== null, timed: duration_ms !== null })),
  };
}

async function both(rig: Rig, env: Record<string, string> = {}) {
  const cli = await rig.run(['verify', '--json', ...IDS], { env });
  const mcp = await McpSession.connect(rig, { env });
  const tool = await mcp.call('vouch_verify', { check_ids: IDS });
  await mcp.close();
  return { cli: cli.json<{ ok: boolean; checks: Entry[] }>(), mcp: tool.structuredContent as { ok: boolean; checks: Entry[] } };
}

describe('one verify answer for the CLI and MCP', () => {
  it('the same checks on the same files: vouch_verify and verify --json carry the same facts, in the same order', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a\n' });
    await rig.spec(SPEC);
    // A variable the env check is not given: both name it, never its value.
    const { cli, mcp } = await both(rig, { DEPLOY_TOKEN: 'secret-value' });
    expect(facts(mcp)).toEqual(facts(cli));
    // And the facts are the ones each check earns, so equal answers are not equally empty.
    expect(cli.ok).toBe(false);
    expect(cli.checks.map((c) => [c.id, c.status, c.reason])).toEqual([
      ['pass', 'PASS', 'ok'],
      ['fail', 'FAIL', 'exit_code'],
      ['env', 'FAIL', 'exit_code'],
      ['quoted', 'PASS', 'ok'],
      ['empty', 'UNKNOWN', 'scope_empty'],
    ]);
    expect(cli.checks.find((c) => c.id === 'env')?.withheld_env).toContain('DEPLOY_TOKEN');
    expect(cli.checks.find((c) => c.id === 'fail')?.withheld_env).toBeUndefined();
    // proves is redacted once, when the spec is loaded: the same text on both.
    expect(JSON.stringify(mcp)).not.toContain(TOKEN);
    expect(JSON.stringify(cli)).not.toContain(TOKEN);
    expect(mcp.checks.every((c) => c.receipt !== null && c.receipt !== cli.checks.find((d) => d.id === c.id)?.receipt)).toBe(true);
  });

  it('a spec edited since it was allowed: both run nothing and answer UNKNOWN/spec_not_allowed for every check alike', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a\n' });
    await rig.spec(SPEC);
    rig.write({ 'vouch.yaml': `${SPEC}# edited\n` });
    const { cli, mcp } = await both(rig);
    expect(facts(mcp)).toEqual(facts(cli));
    expect(cli.checks.map((c) => [c.id, c.status, c.reason, c.receipt])).toEqual(IDS.map((id) => [id, 'UNKNOWN', 'spec_not_allowed', null]));
    expect((await rig.run(['log', '--json'])).json()).toEqual([]);
  });
});
