import { describe, expect, it } from 'vitest';
import { claimFromMessage, parseClaim } from './claim.js';

const good = { summary: 'add() fixed', deliverables: [{ what: 'src/add.js returns a + b', evidence: 'executed', how: 'node test/add.test.js exited 0' }] };

describe('parseClaim', () => {
  it('accepts a claim and makes the optional field explicit', () => {
    const parsed = parseClaim(JSON.stringify({ summary: 's', deliverables: [{ what: 'w', evidence: 'believed' }] }), 'c.json');
    expect(parsed).toEqual({ ok: true, value: { summary: 's', deliverables: [{ what: 'w', evidence: 'believed', how: null }] } });
    expect(parseClaim(JSON.stringify(good), 'c.json').ok).toBe(true);
  });

  it('locates a wrong evidence kind at file:line:col, with what was expected and found', () => {
    const text = '{\n  "summary": "done",\n  "deliverables": [\n    {"what": "tests", "evidence": "tested"}\n  ]\n}\n';
    const parsed = parseClaim(text, 'claim.json');
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error.code).toBe('claim_invalid');
    expect(parsed.error.more).toEqual([
      expect.objectContaining({
        where: 'claim.json:4:35',
        message: 'deliverables[0].evidence: must be "executed" or "observed" or "believed"',
        found: 'tested',
      }),
    ]);
  });

  it.each([
    ['not JSON', '{"summary": "x",', /not valid JSON/, 'c.json:1:'],
    ['a missing summary', '{"deliverables": []}', /missing required key "summary"/, 'c.json:1:1'],
    ['a blank summary', '{"summary": "   ", "deliverables": []}', /summary: must not be blank/, 'c.json:1:13'],
    ['an unknown key, with a suggestion', '{"summary": "x", "deliverable": []}', /unknown key "deliverable" \(did you mean "deliverables"\?\)/, 'c.json:1:18'],
    ['deliverables that are not a list', '{"summary": "x", "deliverables": "all of it"}', /deliverables: wrong type: expected array/, 'c.json:1:34'],
    ['a command smuggled in as a field', '{"summary": "x", "deliverables": [], "run": "rm -rf ."}', /unknown key "run"/, 'c.json:1:38'],
  ])('refuses %s, saying where', (_name, text, message, where) => {
    const parsed = parseClaim(text, 'c.json');
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    const problems = parsed.error.more ?? [parsed.error];
    const named = problems.find((p) => message.test(p.message));
    expect(named, problems.map((p) => p.message).join('\n')).toBeDefined();
    expect(named!.where).toContain(where);
  });

  it('refuses a claim over 64 KiB without parsing it', () => {
    const parsed = parseClaim(JSON.stringify({ summary: 'x'.repeat(70_000), deliverables: [] }), 'big.json');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error.message).toMatch(/bytes; at most 65536/);
  });
});

describe('claimFromMessage', () => {
  it('reads a message that is a claim as one', () => {
    expect(claimFromMessage(JSON.stringify(good))).toEqual({ claim: { ...good, deliverables: [{ ...good.deliverables[0] }] }, structured: true });
  });

  it('reads the last ```json block of a message', () => {
    const message = `Done.\n\n\`\`\`json\n${JSON.stringify(good)}\n\`\`\`\n`;
    expect(claimFromMessage(message).structured).toBe(true);
  });

  it('keeps free text as the summary, with no deliverables (never invented)', () => {
    expect(claimFromMessage('All done, tests pass.')).toEqual({ claim: { summary: 'All done, tests pass.', deliverables: [] }, structured: false });
    // A JSON-looking message that is not a valid claim is still kept, as words.
    expect(claimFromMessage('{"summary": ""}').claim.summary).toBe('{"summary": ""}');
  });
});
