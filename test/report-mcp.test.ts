import { describe, expect, it } from 'vitest';
import { REPORT_SCHEMA, schemaErrors } from './helpers/json-schema.js';
import { withLedgerDb } from './helpers/ledger-db.js';
import { McpSession, textOf } from './helpers/mcp.js';
import { Rig } from './helpers/rig.js';

/*
 * vouch_report through the MCP SDK's own client against a real `vouch mcp`:
 * the report model as structured content, the same as `vouch report
 * --format json`, valid against the published schema; read-only.
 */

const SPEC = `version: 1
checks:
  - id: tests
    run: ["sh", "-c", "grep -q good src/a.txt"]
    sources: ["src/**"]
`;

/** A PASS, a dispatch ordered before vouch.yaml changed (it drifts) and one after, and a card. */
async function workspace(): Promise<{ rig: Rig; before: string; after: string }> {
  const rig = new Rig().write({ 'src/a.txt': 'good\n' });
  await rig.spec(SPEC);
  expect((await rig.run(['verify'])).code).toBe(0);
  const before = (await rig.run(['dispatch', 'new', '--prompt', 'before the edit', '--json'])).json().id as string;
  await rig.spec(`${SPEC}# edited\n`);
  const after = (await rig.run(['dispatch', 'new', '--prompt', 'after the edit', '--json'])).json().id as string;
  const card = await rig.run(['card', 'open', '--goal', 'keep a good', '--artifact', 'src/a.txt', '--done-when', 'tests pass', '--proof', 'tests', '--json'], {
    env: { VOUCH_ROLE: 'owner' },
  });
  expect(card.code, card.stderr).toBe(0);
  return { rig, before, after };
}

/** The parts of a report that depend on when it was made. */
function timeless(model: any): any {
  return { ...model, generated_at: 'T', dispatches: model.dispatches.map((d: any) => ({ ...d, age_seconds: 0 })) };
}

const entries = (rig: Rig) => withLedgerDb(rig, (db) => (db.prepare('SELECT count(*) AS n FROM chain').get() as { n: number }).n);

describe('vouch_report (MCP)', () => {
  it('is listed read-only, takes no arguments, and declares the report schema as its output', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'good\n' });
    await rig.spec(SPEC);
    const mcp = await McpSession.connect(rig);
    const tool = (await mcp.client.listTools()).tools.find((t) => t.name === 'vouch_report')!;
    expect(tool.annotations?.readOnlyHint).toBe(true);
    expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
    expect(Object.keys(tool.inputSchema.properties ?? {})).toEqual([]);
    expect(tool.outputSchema?.required).toEqual(expect.arrayContaining(['kind', 'spec', 'checks', 'sessions', 'dispatches', 'cards', 'integrity']));
    expect(Object.keys(tool.outputSchema?.properties ?? {})).toEqual(Object.keys(REPORT_SCHEMA.properties as object));
    // attack: an argument (a path, a format) is refused, not read.
    const refused = await mcp.call('vouch_report', { path: '/etc/passwd' });
    expect(refused.isError).toBe(true);
  });

  it('answers the report model: valid against schema/report.schema.json, the same as vouch report --format json, drift flagged, and records nothing', async () => {
    const { rig, before, after } = await workspace();
    const recorded = entries(rig);
    const mcp = await McpSession.connect(rig);
    const result = await mcp.call('vouch_report', {});
    expect(result.isError, textOf(result)).toBeFalsy();
    const model = result.structuredContent as any;
    expect(schemaErrors(REPORT_SCHEMA, model)).toEqual([]);
    const cli = JSON.parse((await rig.run(['report', '--format', 'json', '--out', '-'])).stdout);
    expect(timeless(model)).toEqual(timeless(cli));
    expect(model.dispatches.find((d: any) => d.id === before).drift).toEqual({ pinned: expect.stringMatching(/^[0-9a-f]{64}$/), now: model.spec.sha256 });
    expect(model.dispatches.find((d: any) => d.id === after).drift).toBeNull();
    expect(model.checks.map((c: any) => [c.id, c.now.status])).toEqual([['tests', 'PASS']]);
    // The text is the summary, with the drift called out.
    const text = textOf(result);
    expect(text).toContain('| Checks now | 1 PASS |');
    expect(text).toContain('> **DRIFT**: 1 dispatch pins a vouch.yaml other than the one in force.');
    expect(text).toContain(`> - ${before} pins`);
    // Read-only: nothing was appended to the ledger.
    expect(entries(rig)).toBe(recorded);
  });

  it('an invalid vouch.yaml is reported in the model, not an error', async () => {
    const { rig } = await workspace();
    rig.write({ 'vouch.yaml': 'version: 1\nchecks: nope\n' });
    const mcp = await McpSession.connect(rig);
    const result = await mcp.call('vouch_report', {});
    expect(result.isError, textOf(result)).toBeFalsy();
    const model = result.structuredContent as any;
    expect(schemaErrors(REPORT_SCHEMA, model)).toEqual([]);
    expect(model.spec).toMatchObject({ valid: false, sha256: null });
    expect(model.summary.checks).toBeNull();
    expect(model.summary.dispatches.drift).toBe(2);
  });
});
