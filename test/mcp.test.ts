import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { FOOTER, PASS_MEANS, CLAIMS_ARE_NOT_EVIDENCE } from '../src/mcp/text.js';
import { CHECK_ID_PATTERN } from '../src/spec/fields.js';
import { opened } from './helpers/cards.js';
import { McpSession, textOf } from './helpers/mcp.js';
import { Rig } from './helpers/rig.js';

const SPEC = `version: 1
checks:
  - id: pass
    run: ["sh", "-c", "echo all good"]
    sources: ["src/**"]
    proves: "The pass check exits 0 on src."
  - id: fail
    run: ["sh", "-c", "echo boom >&2; exit 3"]
    sources: ["src/**"]
  - id: slow
    run: ["sh", "-c", "sleep 1; echo done"]
    sources: ["src/**"]
    block: false
`;

async function workspace(): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.ts': 'export const a = 1;\n' });
  await rig.spec(SPEC);
  return rig;
}

describe('vouch mcp: tools and their schemas', () => {
  it('lists exactly its tools, each taking ids only, with unknown keys refused and an output schema', async () => {
    const mcp = await McpSession.connect(await workspace());
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'vouch_checks',
      'vouch_status',
      'vouch_verify',
      'vouch_receipt',
      'vouch_dispatch_report',
      'vouch_report',
      'vouch_card_open',
      'vouch_card_show',
      'vouch_card_verify',
      'vouch_card_complete',
      'vouch_card_decide',
    ]);
    const allowedArguments: Record<string, string[]> = {
      vouch_checks: [],
      vouch_status: ['check_ids'],
      vouch_verify: ['check_ids'],
      vouch_receipt: ['receipt_id'],
      vouch_dispatch_report: ['dispatch_id', 'claim'],
      vouch_report: [],
      vouch_card_open: ['goal', 'artifact', 'done_when', 'proof', 'proof_script', 'budget_attempts', 'budget_tokens'],
      vouch_card_show: ['card_id'],
      vouch_card_verify: ['card_id'],
      vouch_card_complete: ['card_id'],
      vouch_card_decide: ['card_id', 'decision', 'why', 'question'],
    };
    for (const tool of tools) {
      const schema = tool.inputSchema as { type: string; additionalProperties: unknown; properties: Record<string, any>; required?: string[] };
      expect(schema.type).toBe('object');
      expect(schema.additionalProperties, tool.name).toBe(false);
      expect(Object.keys(schema.properties ?? {}), tool.name).toEqual(allowedArguments[tool.name]);
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.description, tool.name).toBeTruthy();
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    const statusIds = (byName.vouch_status!.inputSchema.properties as any).check_ids;
    expect(statusIds.type).toBe('array');
    expect(statusIds.items).toMatchObject({ type: 'string', pattern: CHECK_ID_PATTERN.source });
    expect(byName.vouch_status!.inputSchema.required ?? []).toEqual([]);
    expect(byName.vouch_verify!.inputSchema.required).toEqual(['check_ids']);
    expect((byName.vouch_verify!.inputSchema.properties as any).check_ids.items.pattern).toBe(CHECK_ID_PATTERN.source);
    expect((byName.vouch_receipt!.inputSchema.properties as any).receipt_id).toMatchObject({ type: 'string', pattern: '^[0-9a-hjkmnp-tv-z]{6,26}$' });
    expect(byName.vouch_verify!.annotations?.readOnlyHint).toBe(false);
    for (const name of ['vouch_checks', 'vouch_status', 'vouch_receipt', 'vouch_report']) expect(byName[name]!.annotations?.readOnlyHint, name).toBe(true);
    expect(mcp.errors).toEqual([]);
  });

  it('vouch_checks lists the configured checks, what each proves, and whether the spec is allowed', async () => {
    const mcp = await McpSession.connect(await workspace());
    const result = await mcp.call('vouch_checks', {});
    expect(result.isError).toBeFalsy();
    const data = result.structuredContent as any;
    expect(data.spec.trust).toBe('allowed');
    expect(data.checks.map((c: any) => c.id)).toEqual(['pass', 'fail', 'slow']);
    expect(data.checks[0]).toMatchObject({ proves: 'The pass check exits 0 on src.', blocking: true, run: ['sh', '-c', 'echo all good'], sources: ['src/**'] });
    expect(data.checks[2].blocking).toBe(false);
    expect(textOf(result)).toContain('- pass: The pass check exits 0 on src.');
  });
});

describe('vouch mcp: every answer says what a PASS proves and that claims are not evidence', () => {
  it('every tool, answering or refusing, ends its text with the shared footer', async () => {
    const rig = await workspace();
    const card = await opened(rig, ['--proof', 'pass']);
    const dispatch = (await rig.run(['dispatch', 'new', '--prompt', 'make a.ts good', '--json'])).json().id as string;
    const mcp = await McpSession.connect(rig);
    const receipt = ((await mcp.call('vouch_verify', { check_ids: ['fail'] })).structuredContent as any).checks[0].receipt as string;
    // In call order: the card is verified before it is completed, so each answers (not refuses).
    const calls: Record<string, Record<string, unknown>> = {
      vouch_checks: {},
      vouch_status: {},
      vouch_verify: { check_ids: ['pass'] },
      vouch_receipt: { receipt_id: receipt },
      vouch_dispatch_report: { dispatch_id: dispatch, claim: { summary: 'done', deliverables: [{ what: 'a.ts', evidence: 'believed', how: 'trust me' }] } },
      vouch_report: {},
      vouch_card_show: { card_id: card },
      vouch_card_verify: { card_id: card },
      vouch_card_open: { goal: 'g', artifact: 'a.ts', done_when: 'd', proof: ['pass'] },
      vouch_card_decide: { card_id: card, decision: 'ask', question: 'which one?' },
      vouch_card_complete: { card_id: card },
    };
    // Opening and deciding are a coordinator's: its own server says so.
    const coordinator = await McpSession.connect(rig, { env: { VOUCH_ROLE: 'coordinator' } });
    const COORDINATOR_TOOLS = new Set(['vouch_card_open', 'vouch_card_decide']);
    const { tools } = await mcp.client.listTools();
    expect(Object.keys(calls).sort()).toEqual(tools.map((t) => t.name).sort());
    expect(FOOTER).toContain(PASS_MEANS);
    expect(FOOTER).toContain(CLAIMS_ARE_NOT_EVIDENCE);
    for (const [name, args] of Object.entries(calls)) {
      // An agent's own run never closes a card: a person runs the proof before the agent completes it.
      if (name === 'vouch_card_complete') expect((await rig.run(['card', 'verify', card])).code).toBe(0);
      const result = await (COORDINATOR_TOOLS.has(name) ? coordinator : mcp).call(name, args);
      expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy();
      expect(textOf(result).endsWith(`\n\n${FOOTER}`), `${name}:\n${textOf(result)}`).toBe(true);
      // Said once, not twice.
      expect(textOf(result).split(PASS_MEANS), name).toHaveLength(2);
    }
    // A refusal (an expected problem) ends with it too.
    const refused = await mcp.call('vouch_receipt', { receipt_id: 'zzzzzzzz' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused).endsWith(`\n\n${FOOTER}`), textOf(refused)).toBe(true);
  });
});

describe('vouch mcp: verification', () => {
  it('verifies a passing and a failing check through the engine, one receipt each, recorded with actor mcp', async () => {
    const rig = await workspace();
    const mcp = await McpSession.connect(rig);
    const result = await mcp.call('vouch_verify', { check_ids: ['pass', 'fail'] });
    expect(result.isError).toBeFalsy();
    const data = result.structuredContent as any;
    expect(data.ok).toBe(false);
    expect(data.ran).toBe(true);
    expect(data.checks.map((c: any) => [c.id, c.status, c.reason, c.exit_code])).toEqual([
      ['pass', 'PASS', 'ok', 0],
      ['fail', 'FAIL', 'exit_code', 3],
    ]);
    const text = textOf(result);
    expect(text).toContain('A PASS means');
    expect(text).toContain('are not evidence');

    // The same ledger the CLI reads: the receipts are real and say who asked.
    const log = (await rig.run(['log', '--json'])).json();
    expect(log.map((r: any) => [r.check_id, r.verdict, r.actor]).sort()).toEqual([
      ['fail', 'FAIL', 'mcp'],
      ['pass', 'PASS', 'mcp'],
    ]);
    const cliStatus = (await rig.run(['status', 'pass', 'fail', '--json'])).json();
    expect(cliStatus.checks.map((c: any) => c.status)).toEqual(['PASS', 'FAIL']);

    const status = await mcp.call('vouch_status', { check_ids: ['pass', 'fail'] });
    expect((status.structuredContent as any).checks.map((c: any) => [c.id, c.status, c.receipt])).toEqual([
      ['pass', 'PASS', data.checks[0].receipt],
      ['fail', 'FAIL', data.checks[1].receipt],
    ]);
    expect((status.structuredContent as any).ok).toBe(false);
  });

  it('vouch_status answers a client that validates the output schema: a fresh receipt carries only the schema fields', async () => {
    const mcp = await McpSession.connect(await workspace());
    await mcp.client.listTools(); // The SDK client validates structured content against the schemas it listed.
    await mcp.call('vouch_verify', { check_ids: ['pass', 'fail'] });
    const status = await mcp.call('vouch_status', {});
    expect(status.isError, textOf(status)).toBeFalsy();
    // agent_run is a schema field: a receipt an MCP caller made is marked as made inside an agent run.
    expect(Object.keys((status.structuredContent as any).checks[0]).sort()).toEqual([
      'agent_run',
      'blocking',
      'detail',
      'id',
      'proves',
      'reason',
      'receipt',
      'recorded_at',
      'status',
    ]);
  });

  it('a PASS turns STALE for status as soon as a covered file changes', async () => {
    const rig = await workspace();
    const mcp = await McpSession.connect(rig);
    await mcp.call('vouch_verify', { check_ids: ['pass'] });
    expect(((await mcp.call('vouch_status', { check_ids: ['pass'] })).structuredContent as any).ok).toBe(true);
    rig.write({ 'src/a.ts': 'export const a = 2;\n' });
    const after = (await mcp.call('vouch_status', { check_ids: ['pass'] })).structuredContent as any;
    expect(after.ok).toBe(false);
    expect(after.checks[0]).toMatchObject({ status: 'STALE', reason: 'fingerprint_changed', changed: { modified: ['src/a.ts'] } });
  });

  it('sends progress notifications while a check runs, rising with each one', async () => {
    const mcp = await McpSession.connect(await workspace());
    const progress: { progress: number; message?: string }[] = [];
    const result = await mcp.call('vouch_verify', { check_ids: ['slow', 'pass'] }, { onprogress: (p) => progress.push(p) });
    expect((result.structuredContent as any).checks.map((c: any) => c.status)).toEqual(['PASS', 'PASS']);
    const messages = progress.map((p) => p.message);
    expect(messages[0]).toBe('slow (1 of 2): started');
    expect(messages.some((m) => /^slow: PASS \(ok\) in /.test(m ?? ''))).toBe(true);
    expect(messages.some((m) => /^slow \(1 of 2\): running for /.test(m ?? ''))).toBe(true);
    // Side by side where there are cores for it (the engine's default, side-by-side.ts): pass starts while slow runs.
    expect(messages).toContain(availableParallelism() > 1 ? 'slow, pass (2 of 2 started, 2 side by side): started' : 'pass (2 of 2): started');
    const values = progress.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
  });

  it('vouch_receipt returns the receipt as recorded, with the redacted output of a failure', async () => {
    const mcp = await McpSession.connect(await workspace());
    const verified = (await mcp.call('vouch_verify', { check_ids: ['fail'] })).structuredContent as any;
    const id = verified.checks[0].receipt as string;
    for (const asked of [id, id.slice(0, 12)]) {
      const result = await mcp.call('vouch_receipt', { receipt_id: asked });
      expect(result.isError).toBeFalsy();
      const data = result.structuredContent as any;
      expect(data.intact).toBe(true);
      expect(data.receipt).toMatchObject({
        id,
        check_id: 'fail',
        verdict: 'FAIL',
        reason: 'exit_code',
        exit_code: 3,
        actor: 'mcp',
        argv: ['sh', '-c', 'echo boom >&2; exit 3'],
      });
      expect(data.receipt.stderr.excerpt).toBe('boom\n');
      expect(textOf(result)).toContain('boom');
    }
  });
});
