import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { as, card, opened } from './helpers/cards.js';
import { McpSession, textOf } from './helpers/mcp.js';
import { Rig } from './helpers/rig.js';

/*
 * The task-card tools over real MCP stdio (the SDK's own client, a real
 * `vouch mcp` process): ids only, the same engine and refusals as the CLI,
 * and a caller that is always an agent (worker unless VOUCH_ROLE says).
 */

// tests leaves a marker each time it runs, so a call that ran nothing is visible.
const SPEC = `version: 1
checks:
  - id: tests
    run: ["sh", "-c", "touch ran-tests; grep -q good src/a.txt"]
    sources: ["src/**"]
`;

async function workspace(): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.txt': 'good\n' });
  await rig.spec(SPEC);
  return rig;
}

const TOOLS = ['vouch_card_show', 'vouch_card_verify', 'vouch_card_complete'] as const;

describe('card tools over MCP', () => {
  it('take a card id and nothing else: a command, a path, a role or a force beside it is refused and nothing runs', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    const mcp = await McpSession.connect(rig);
    const { tools } = await mcp.client.listTools();
    for (const name of TOOLS) {
      const tool = tools.find((t) => t.name === name)!;
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false, required: ['card_id'] });
      expect((tool.inputSchema.properties as any).card_id).toMatchObject({ type: 'string', pattern: '^c-[0-9a-hjkmnp-tv-z]{8}$' });
      for (const [key, value] of Object.entries({
        argv: ['touch', 'pwned'],
        command: 'touch pwned',
        path: '/etc/passwd',
        role: 'owner',
        force: true,
        why: 'because',
        proof: ['tests'],
      })) {
        const result = await mcp.call(name, { card_id: id, [key]: value });
        expect(result.isError, `${name} with ${key}`).toBe(true);
        expect(textOf(result)).toContain(`Unrecognized key: "${key}"`);
      }
      for (const bad of ['../../etc', 'c-ABCDEFGH', `${id}; rm -rf /`, '']) {
        expect((await mcp.call(name, { card_id: bad })).isError, `${name} ${bad}`).toBe(true);
      }
    }
    expect(existsSync(rig.path('pwned'))).toBe(false);
    expect(existsSync(rig.path('ran-tests'))).toBe(false);
    expect((await card(rig, ['show', id])).json().events).toHaveLength(1);
  });

  it('vouch_card_show: the card, its events by kind, and whether it would close now', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    const mcp = await McpSession.connect(rig);
    const shown = await mcp.call('vouch_card_show', { card_id: id });
    expect(shown.isError).toBeFalsy();
    const data = shown.structuredContent as any;
    expect(data.card).toMatchObject({ id, state: 'open', grade: 'ungraded', passed: false });
    expect(data.card.events.map((e: { kind: string }) => e.kind)).toEqual(['opened']);
    expect(data.complete_now).toMatchObject({ ok: false, code: 'card_no_verdict' });
    expect(textOf(shown)).toContain('It would not close now: card_no_verdict');
    const missing = await mcp.call('vouch_card_show', { card_id: 'c-zzzzzzzz' });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('code: card_not_found');
  });

  it("vouch_card_verify runs the frozen proof as the worker by default; its own PASS never closes the card (card_pass_self_made); a person's run does, and vouch_card_complete then closes it", async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    const mcp = await McpSession.connect(rig);
    const refusedNow = await mcp.call('vouch_card_complete', { card_id: id });
    expect(refusedNow.isError).toBe(true);
    expect(textOf(refusedNow)).toContain('code: card_no_verdict');
    const verified = await mcp.call('vouch_card_verify', { card_id: id });
    expect(verified.isError, textOf(verified)).toBeFalsy();
    expect(verified.structuredContent).toMatchObject({ ok: true, verdict: 'PASS', attempt: 1 });
    expect(existsSync(rig.path('ran-tests'))).toBe(true);
    const receipt = (await rig.run(['show', (await card(rig, ['show', id])).json().events[1].receipts[0].receipt as string, '--json'])).json().receipt;
    expect(receipt).toMatchObject({ actor: 'mcp', agent_run: { agent: 'mcp-client', marker: 'MCP' } });
    const selfMade = await mcp.call('vouch_card_complete', { card_id: id });
    expect(selfMade.isError).toBe(true);
    expect(textOf(selfMade)).toContain('code: card_pass_self_made');
    // A person runs the proof in their own terminal; the agent may then close the card on that PASS.
    expect((await card(rig, ['verify', id])).code).toBe(0);
    const done = await mcp.call('vouch_card_complete', { card_id: id });
    expect(done.isError, textOf(done)).toBeFalsy();
    expect((done.structuredContent as any).card).toMatchObject({ state: 'done', passed: true });
    const events = (await card(rig, ['show', id])).json().events;
    expect(events.slice(1).map((e: { kind: string; by: unknown }) => [e.kind, e.by])).toEqual([
      ['verdict', { role: 'worker', role_from: 'default', agent: 'mcp-client', via: 'mcp' }],
      ['verdict', { role: 'owner', role_from: 'default', agent: null, via: 'cli' }],
      ['completed', { role: 'worker', role_from: 'default', agent: 'mcp-client', via: 'mcp' }],
      // The proof once more as the card closes, in the process that closed it.
      ['audit', { role: 'worker', role_from: 'default', agent: 'mcp-client', via: 'mcp' }],
    ]);
  });

  it("an independent card: the worker's server is refused, a verifier's own run through MCP does not close it, a verifier's run outside the agent does", async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests', '--verify', 'independent']);
    const worker = await McpSession.connect(rig);
    await worker.call('vouch_card_verify', { card_id: id });
    const byWorker = await worker.call('vouch_card_complete', { card_id: id });
    expect(textOf(byWorker)).toContain('code: card_role_refused');
    const verifier = await McpSession.connect(rig, { env: as('verifier') });
    const early = await verifier.call('vouch_card_complete', { card_id: id });
    expect(textOf(early)).toContain('code: card_pass_not_independent');
    expect((await verifier.call('vouch_card_verify', { card_id: id })).structuredContent).toMatchObject({ verdict: 'PASS' });
    expect(textOf(await verifier.call('vouch_card_complete', { card_id: id }))).toContain('code: card_pass_self_made');
    expect((await card(rig, ['verify', id], as('verifier'))).code).toBe(0);
    const done = await verifier.call('vouch_card_complete', { card_id: id });
    expect(done.isError, textOf(done)).toBeFalsy();
  });

  it('a server whose entry claims the owner is refused: an MCP caller is an agent', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    const mcp = await McpSession.connect(rig, { env: as('owner') });
    for (const name of TOOLS) expect(textOf(await mcp.call(name, { card_id: id })), name).toContain('code: card_agent_run');
    expect(existsSync(rig.path('ran-tests'))).toBe(false);
  });
});

describe('intake over MCP: vouch_card_open and vouch_card_decide', () => {
  it('a coordinator opens a card from a request in one call, its proof frozen from the allowed checks, and gets the contract in one line', async () => {
    const rig = await workspace();
    const worker = await McpSession.connect(rig);
    const request = { goal: 'make a good', artifact: 'src/a.txt', done_when: 'src/a.txt says good', proof: ['tests'], budget_tokens: 50000 };
    const byWorker = await worker.call('vouch_card_open', request);
    expect(byWorker.isError).toBe(true);
    expect(textOf(byWorker)).toContain('code: card_role_refused');
    const coordinator = await McpSession.connect(rig, { env: { VOUCH_ROLE: 'coordinator' } });
    const unknown = await coordinator.call('vouch_card_open', { ...request, proof: ['rm-rf'] });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('code: check_not_found');
    const result = await coordinator.call('vouch_card_open', request);
    expect(result.isError, textOf(result)).toBeFalsy();
    const data = result.structuredContent as { card: { id: string; contract: Record<string, unknown> }; contract_line: string };
    expect(data.contract_line).toBe(`src/a.txt · proof tests (frozen) · budget 5 attempts, 50000 tokens · ${data.card.id} · owned by the coordinator`);
    expect(data.card.contract).toMatchObject({ budget_tokens: 50000 });
    const shown = (await card(rig, ['show', data.card.id])).json();
    expect(shown.events[0]).toMatchObject({ kind: 'opened', by: { role: 'coordinator', via: 'mcp', agent: 'mcp-client' } });
    // The coordinator's one decision, from inside its run; a second on the same event is refused.
    const asked = await coordinator.call('vouch_card_decide', { card_id: data.card.id, decision: 'ask', question: 'monthly or annual first?' });
    expect(asked.isError, textOf(asked)).toBeFalsy();
    const again = await coordinator.call('vouch_card_decide', { card_id: data.card.id, decision: 'retry', why: 'x' });
    expect(textOf(again)).toContain('code: card_decision_taken');
  });
});
