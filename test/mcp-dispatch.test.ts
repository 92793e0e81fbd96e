import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { McpSession, textOf } from './helpers/mcp.js';
import { Rig } from './helpers/rig.js';

/*
 * vouch_dispatch_report through a real MCP client and a real `vouch mcp`
 * process: the claim is data with a strict schema, recorded as the agent's
 * words; this server grades nothing, a checker in another process does.
 */

const SPEC = `version: 1
checks:
  - id: tests
    run: ["sh", "-c", "grep -q good src/a.txt"]
    sources: ["src/**"]
`;

const CLAIM = { summary: 'a.txt is good', deliverables: [{ what: 'src/a.txt says good', evidence: 'executed', how: 'grep -q good src/a.txt' }] };

async function ready(): Promise<{ rig: Rig; id: string }> {
  const rig = new Rig().write({ 'src/a.txt': 'good\n' });
  await rig.spec(SPEC);
  const id = (await rig.run(['dispatch', 'new', '--prompt', 'make a.txt good', '--json'])).json().id as string;
  return { rig, id };
}

const record = async (rig: Rig, id: string) => (await rig.run(['dispatch', 'show', id, '--json'])).json();

describe('vouch_dispatch_report', () => {
  it('publishes a strict schema: a dispatch id and the claim, nothing else at any level', async () => {
    const { rig } = await ready();
    const mcp = await McpSession.connect(rig);
    const { tools } = await mcp.client.listTools();
    const tool = tools.find((t) => t.name === 'vouch_dispatch_report')!;
    const schema = tool.inputSchema as any;
    expect([schema.additionalProperties, Object.keys(schema.properties), schema.required]).toEqual([false, ['dispatch_id', 'claim'], ['dispatch_id', 'claim']]);
    expect(schema.properties.dispatch_id.pattern).toBe('^[0-9a-hjkmnp-tv-z]{6,26}$');
    const claim = schema.properties.claim;
    expect([claim.additionalProperties, Object.keys(claim.properties)]).toEqual([false, ['summary', 'deliverables']]);
    const item = claim.properties.deliverables.items;
    expect([item.additionalProperties, Object.keys(item.properties), item.properties.evidence.enum]).toEqual([
      false,
      ['what', 'evidence', 'how'],
      ['executed', 'observed', 'believed'],
    ]);
    expect(tool.annotations?.readOnlyHint).toBe(false);
  });

  it('records the claim as the agent words, from the server process; another process grades it', async () => {
    const { rig, id } = await ready();
    const mcp = await McpSession.connect(rig);
    const result = await mcp.call('vouch_dispatch_report', { dispatch_id: id.slice(0, 8), claim: CLAIM });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ id, state: 'reported', verdict: 'ungraded', tier: 'bridge' });
    expect(textOf(result)).toContain('not evidence');
    const reported = await record(rig, id);
    expect(reported.claim).toMatchObject({ via: 'mcp', summary: 'a.txt is good', deliverables: [CLAIM.deliverables[0]] });
    const serverPid = reported.transitions[1].writer.pid;
    expect(reported.transitions[1].writer).toMatchObject({ actor: 'mcp' });
    const graded = await rig.run(['dispatch', 'grade', id, '--json']);
    expect(graded.code, graded.stderr).toBe(0);
    const after = graded.json();
    expect(after.verdict).toBe('verified');
    expect(after.transitions[2].writer.pid).not.toBe(serverPid);
  });

  it.each([
    ['a command smuggled into the claim', { dispatch_id: 'ID', claim: { ...CLAIM, run: 'touch pwned' } }],
    ['a command next to the claim', { dispatch_id: 'ID', claim: CLAIM, command: 'touch pwned' }],
    [
      'a field smuggled into a deliverable',
      { dispatch_id: 'ID', claim: { summary: 's', deliverables: [{ what: 'w', evidence: 'executed', argv: ['touch', 'pwned'] }] } },
    ],
    ['an evidence kind that is not one', { dispatch_id: 'ID', claim: { summary: 's', deliverables: [{ what: 'w', evidence: 'tested' }] } }],
    ['a blank summary', { dispatch_id: 'ID', claim: { summary: '  ', deliverables: [] } }],
    ['a path for an id', { dispatch_id: '../../etc/passwd', claim: CLAIM }],
  ])('refuses %s before anything is recorded', async (_name, args) => {
    const { rig, id } = await ready();
    const mcp = await McpSession.connect(rig);
    const result = await mcp.call('vouch_dispatch_report', JSON.parse(JSON.stringify(args).replace('"ID"', JSON.stringify(id))));
    expect(result.isError).toBe(true);
    expect((await record(rig, id)).state).toBe('dispatched');
    expect(existsSync(rig.path('pwned'))).toBe(false);
  });

  it('keeps shell text in a claim as text: nothing runs', async () => {
    const { rig, id } = await ready();
    const mcp = await McpSession.connect(rig);
    const sneaky = {
      summary: '$(touch pwned) `touch pwned2`; touch pwned3',
      deliverables: [{ what: '; rm -rf .', evidence: 'believed', how: '$(touch pwned4)' }],
    };
    expect((await mcp.call('vouch_dispatch_report', { dispatch_id: id, claim: sneaky })).isError).toBeFalsy();
    expect((await record(rig, id)).claim.summary).toBe(sneaky.summary);
    for (const file of ['pwned', 'pwned2', 'pwned3', 'pwned4']) expect(existsSync(rig.path(file))).toBe(false);
  });

  it('refuses an illegal transition (a second report) and an unknown dispatch, with their codes', async () => {
    const { rig, id } = await ready();
    const mcp = await McpSession.connect(rig);
    expect((await mcp.call('vouch_dispatch_report', { dispatch_id: id, claim: CLAIM })).isError).toBeFalsy();
    const again = await mcp.call('vouch_dispatch_report', { dispatch_id: id, claim: CLAIM });
    expect(again.isError).toBe(true);
    expect(textOf(again)).toMatch(/is reported: it cannot move to reported[\s\S]*code: illegal_transition/);
    const unknown = await mcp.call('vouch_dispatch_report', { dispatch_id: '01m8zzzzzzzzzzzzzzzzzzzzzz', claim: CLAIM });
    expect(textOf(unknown)).toContain('code: dispatch_not_found');
  });
});
