import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { collect, Rig } from './helpers/rig.js';
import { withLedgerDb } from './helpers/ledger-db.js';
import { canonicalize } from '../src/core/jcs.js';

/*
 * Dispatches from the command line: the order, the claim, the checker, the
 * close, and the board, through the built CLI in real processes.
 */

const SPEC = (extra = '') => `version: 1
checks:
  - id: tests
    run: ["sh", "-c", "grep -q good src/a.txt || { echo 'src/a.txt is not good' >&2; exit 1; }"]
    sources: ["src/**"]
  - id: leaf-only
    run: ["true"]
    sources: ["src/**"]
    tier: leaf
  - id: advisory
    run: ["false"]
    sources: ["src/**"]
    block: false
${extra}`;

const CLAIM = JSON.stringify({
  summary: 'src/a.txt is good now',
  deliverables: [{ what: 'src/a.txt contains good', evidence: 'executed', how: 'grep -q good src/a.txt' }],
});

async function ready(): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.txt': 'good\n', 'claim.json': CLAIM });
  await rig.spec(SPEC());
  return rig;
}

async function order(rig: Rig, ...args: string[]): Promise<any> {
  const result = await rig.run([
    'dispatch',
    'new',
    '--json',
    ...(args.includes('--prompt') || args.includes('--prompt-file') ? [] : ['--prompt', 'make a.txt good']),
    ...args,
  ]);
  expect(result.code, result.stderr).toBe(0);
  return result.json();
}

const report = (rig: Rig, id: string, file = 'claim.json') => rig.run(['dispatch', 'report', id, '--report', file, '--json']);
const board = async (rig: Rig, ...args: string[]) => (await rig.run(['fleet', '--json', ...args])).json().dispatches as any[];

describe('vouch dispatch new', () => {
  it('records the order before any work: prompt, inferred tier and why, the checks of its tier, and the pinned spec', async () => {
    const rig = await ready();
    const d = await order(rig);
    expect(d).toMatchObject({
      ok: true,
      state: 'dispatched',
      tier: 'bridge',
      tier_source: 'inferred',
      verdict: 'ungraded',
      prompt: 'make a.txt good',
      prompt_source: 'flag',
    });
    expect(d.id).toMatch(/^[0-9a-z]{26}$/);
    expect(d.tier_basis).toBe('inferred: no parent and no ordering session: it tops its chain');
    expect(d.spec_sha256).toBe(
      createHash('sha256')
        .update(readFileSync(rig.path('vouch.yaml')))
        .digest('hex'),
    );
    expect(d.prompt_sha256).toBe(createHash('sha256').update('make a.txt good').digest('hex'));
    // The tier's checks, advisory ones included and marked; a check of another tier is not in it.
    expect(d.manifest.checks.map((c: any) => [c.id, c.block])).toEqual([
      ['tests', true],
      ['advisory', false],
    ]);
    expect(d.transitions).toEqual([
      expect.objectContaining({
        from: null,
        to: 'dispatched',
        why: 'ordered with vouch dispatch new',
        writer: expect.objectContaining({ actor: 'cli', pid: expect.any(Number) }),
      }),
    ]);
  });

  it('infers the tier from the parent chain (bridge → lane → leaf) and marks a declared one on the board', async () => {
    const rig = await ready();
    const top = await order(rig);
    const mid = await order(rig, '--parent', top.id);
    const low = await order(rig, '--parent', mid.id.slice(0, 10));
    const declared = await order(rig, '--parent', low.id, '--tier', 'coordinator');
    expect([top.tier, mid.tier, low.tier, declared.tier]).toEqual(['bridge', 'lane', 'leaf', 'coordinator']);
    expect(mid.tier_basis).toBe(`inferred: one level below the top of its chain (${top.id} → this dispatch)`);
    expect(low.tier_basis).toBe(`inferred: 2 levels below the top of its chain (${top.id} → ${mid.id} → this dispatch)`);
    expect([low.parent, declared.tier_source, declared.tier_basis]).toEqual([mid.id, 'declared', 'declared: coordinator']);
    // Only the leaf's own checks and untiered ones grade a leaf.
    expect(low.manifest.checks.map((c: any) => c.id)).toEqual(['tests', 'leaf-only', 'advisory']);
    const text = (await rig.run(['fleet'])).stdout;
    expect(text).toMatch(new RegExp(`${declared.id}\\s+dispatched\\s+coordinator!`));
    expect(text).toMatch(new RegExp(`${low.id}\\s+dispatched\\s+leaf\\s`));
  });

  it('links a dispatch to a card that is on record', async () => {
    const rig = await ready();
    const opened = await rig.run([
      'card',
      'open',
      '--goal',
      'make a.txt good',
      '--artifact',
      'src/a.txt',
      '--done-when',
      'tests pass',
      '--proof',
      'tests',
      '--json',
    ]);
    expect(opened.code, opened.stderr).toBe(0);
    const card = opened.json().id as string;
    expect((await order(rig, '--card', card)).card).toBe(card);
  });

  it('reads a long prompt from a file or stdin', async () => {
    const rig = await ready();
    rig.write({ 'prompt.md': '# Task\n\nRewrite the parser.\n' });
    expect((await order(rig, '--prompt-file', 'prompt.md')).prompt).toBe('# Task\n\nRewrite the parser.\n');
    const piped = await rig.run(['dispatch', 'new', '--prompt-file', '-', '--tier', 'coordinator', '--json'], { stdin: 'from stdin' });
    expect(piped.json()).toMatchObject({ prompt: 'from stdin', prompt_source: 'stdin', tier: 'coordinator', tier_source: 'declared' });
  });

  it.each([
    [['--prompt', 'a', '--prompt-file', 'b'], /give the prompt exactly once/],
    [[], /give the prompt exactly once/],
    [['--prompt', '  '], /the prompt is empty/],
    [['--prompt', 'a', '--tier', 'captain'], /--tier is not a tier/],
    [['--prompt', 'a', '--parent', 'zzzzzzzzzz'], /no dispatch "zzzzzzzzzz"/],
    [['--prompt', 'a', '--card', '<script>'], /--card is not a valid id/],
    [['--prompt', 'a', '--card', 'c-nosuchcd'], /no card "c-nosuchcd" in this ledger/],
    [['--prompt-file', 'missing.md'], /cannot read --prompt-file missing.md: ENOENT/],
  ])('refuses %j with exit 2 and says why', async (args, message) => {
    const rig = await ready();
    const result = await rig.run(['dispatch', 'new', ...args, '--json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.json().ok).toBe(false);
  });
});

describe('vouch dispatch report', () => {
  it('records the claim, validated, with a located error for a bad one', async () => {
    const rig = await ready();
    const d = await order(rig);
    rig.write({ 'bad.json': '{\n  "summary": "done",\n  "deliverables": [{"what": "x", "evidence": "tested"}]\n}\n' });
    const bad = await rig.run(['dispatch', 'report', d.id, '--report', 'bad.json']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('bad.json:3:46: deliverables[0].evidence: must be "executed" or "observed" or "believed"');
    expect((await board(rig))[0].state).toBe('dispatched');
    const piped = await rig.run(['dispatch', 'report', d.id, '--report', '-', '--json'], { stdin: CLAIM });
    expect(piped.json()).toMatchObject({
      state: 'reported',
      verdict: 'ungraded',
      claim: { via: 'cli', summary: 'src/a.txt is good now', claim_sha256: createHash('sha256').update(CLAIM).digest('hex') },
    });
  });
});

describe('vouch dispatch grade: the checker', () => {
  it('verifies a claim the checks of its tier bear out, from another process than the one that reported it', async () => {
    const rig = await ready();
    const d = await order(rig);
    const reported = (await report(rig, d.id)).json();
    const graded = await rig.run(['dispatch', 'grade', d.id, '--json']);
    expect(graded.code, graded.stderr).toBe(0);
    const g = graded.json();
    expect(g).toMatchObject({
      ok: true,
      graded: true,
      state: 'verified',
      verdict: 'verified',
      grade: { outcome: 'verified', tier: 'bridge', basis: 'whole_tier', spec_sha256: d.spec_sha256 },
    });
    expect(g.grade.checks).toEqual([expect.objectContaining({ id: 'tests', status: 'PASS', reason: 'ok', receipt: expect.any(String) })]);
    const [, byReport, byGrade] = g.transitions;
    expect(byReport.writer.pid).toBe(reported.transitions[1].writer.pid);
    expect(byGrade.writer.pid).not.toBe(byReport.writer.pid);
    expect(byGrade.writer).toMatchObject({ actor: 'cli' });
    // The checker ran the check itself: a receipt by this grade is in the log.
    const log = (await rig.run(['log', '--json'])).json();
    expect(log[0]).toMatchObject({ check_id: 'tests', verdict: 'PASS', id: g.grade.checks[0].receipt });
  });

  it('contradicts a false "done" (exit 1), quoting the check; the agent reports again on the same dispatch', async () => {
    const rig = await ready();
    const d = await order(rig);
    rig.write({ 'src/a.txt': 'bad\n' });
    await report(rig, d.id);
    const graded = await rig.run(['dispatch', 'grade', d.id]);
    expect(graded.code).toBe(1);
    expect(graded.stdout).toContain('tests FAIL (exit_code)');
    expect(graded.stdout).toContain('src/a.txt is not good');
    expect((await board(rig))[0]).toMatchObject({ state: 'contradicted', verdict: 'contradicted' });
    rig.write({ 'src/a.txt': 'good\n' });
    expect((await report(rig, d.id)).json()).toMatchObject({ state: 'reported', verdict: 'ungraded' });
    expect((await rig.run(['dispatch', 'grade', d.id])).code).toBe(0);
  });

  it('records no verdict where its tier selects no blocking check: ungraded, exit 1, never verified', async () => {
    const rig = await ready();
    // Every blocking check tiered away from coordinator (an untiered one would apply there too).
    await rig.spec(SPEC().replace('sources: ["src/**"]\n  - id: leaf-only', 'sources: ["src/**"]\n    tier: bridge\n  - id: leaf-only'));
    const ordered = await rig.run(['dispatch', 'new', '--prompt', 'plan the work', '--tier', 'coordinator', '--json']);
    expect(ordered.stderr).toContain('no blocking check applies at tier coordinator: nothing will grade this dispatch, and it will read ungraded');
    const d = ordered.json();
    expect(d.manifest.checks.map((c: any) => c.id)).toEqual(['advisory']);
    await report(rig, d.id);
    const graded = await rig.run(['dispatch', 'grade', d.id, '--json']);
    expect(graded.code).toBe(1);
    expect(graded.json()).toMatchObject({
      ok: false,
      graded: false,
      state: 'reported',
      verdict: 'ungraded',
      why: 'no blocking check applies at tier coordinator',
    });
    expect(graded.stderr).toContain('an absent grade is not a pass');
    expect((await board(rig))[0].transitions).toHaveLength(2);
  });

  it('refuses to grade on pin drift (exit 5), saying so, and records nothing', async () => {
    const rig = await ready();
    const d = await order(rig);
    await report(rig, d.id);
    await rig.spec(SPEC('# a check loosened while the agent worked\n'));
    const graded = await rig.run(['dispatch', 'grade', d.id, '--json']);
    expect(graded.code).toBe(5);
    expect(graded.stderr).toMatch(/pinned vouch.yaml [0-9a-f]{64}, and it is [0-9a-f]{64} now: it is not graded against a spec that changed/);
    expect(graded.json().error.code).toBe('pin_drift');
    expect((await board(rig))[0]).toMatchObject({ state: 'reported', verdict: 'ungraded' });
  });

  it('refuses while vouch.yaml is not allowed: no verdict, exit 1', async () => {
    const rig = await ready();
    const d = await order(rig);
    await report(rig, d.id);
    expect((await rig.run(['deny'])).code).toBe(0);
    const graded = await rig.run(['dispatch', 'grade', d.id]);
    expect(graded.code).toBe(1);
    expect(graded.stderr).toContain('spec_not_allowed');
    expect((await board(rig))[0].verdict).toBe('ungraded');
  });
});

describe('illegal transitions are refused with exit 4, and write nothing', () => {
  it.each([
    ['grade before any report', [], ['grade']],
    ['report twice', ['report'], ['report']],
    ['grade twice', ['report', 'grade'], ['grade']],
    ['report a verified dispatch', ['report', 'grade'], ['report']],
    ['report after terminated', ['close'], ['report']],
    ['grade after terminated', ['report', 'close'], ['grade']],
    ['close twice', ['close'], ['close']],
  ])('%s', async (_name, steps, [last]) => {
    const rig = await ready();
    const d = await order(rig);
    const args = (step: string) => (step === 'report' ? ['--report', 'claim.json'] : step === 'close' ? ['--reason', 'test'] : []);
    for (const step of steps) expect((await rig.run(['dispatch', step, d.id, ...args(step)])).code, step).toBe(0);
    const before = (await board(rig))[0].transitions.length;
    const refused = await rig.run(['dispatch', last!, d.id, ...args(last!), '--json']);
    expect(refused.code).toBe(4);
    expect(refused.json().error).toMatchObject({ code: 'illegal_transition', message: expect.stringMatching(/^dispatch \S+ is \w+: it cannot move to \w+$/) });
    expect((await board(rig))[0].transitions).toHaveLength(before);
  });

  it('two processes closing at once: one closes it, the other is refused (4), and the record stays intact', async () => {
    const rig = await ready();
    const d = await order(rig);
    const [a, b] = await Promise.all([0, 1].map((i) => collect(rig.spawn(['dispatch', 'close', d.id, '--reason', `closer ${i}`]))));
    expect([a!.code, b!.code].sort()).toEqual([0, 4]);
    const [record] = await board(rig);
    expect([record.state, record.damage, record.transitions.length]).toEqual(['terminated', null, 2]);
  });
});

describe('the board', () => {
  it('shows a dispatch that never reported, newest first, and never leaves the verdict blank', async () => {
    const rig = await ready();
    const silent = await order(rig, '--prompt', 'went quiet');
    const done = await order(rig, '--prompt', 'finished');
    await report(rig, done.id);
    await rig.run(['dispatch', 'grade', done.id]);
    await rig.run(['dispatch', 'close', done.id]);
    const all = await board(rig);
    expect(all.map((d) => [d.id, d.state, d.verdict])).toEqual([
      [done.id, 'terminated', 'verified'],
      [silent.id, 'dispatched', 'ungraded'],
    ]);
    expect((await board(rig, '--open')).map((d) => d.id)).toEqual([silent.id]);
    const text = (await rig.run(['fleet'])).stdout;
    const lines = text.split('\n').filter((l) => l.includes(silent.id) || l.includes(done.id));
    expect(lines[0]).toMatch(/terminated\s+bridge\s+\S+.*verified\s+finished/);
    expect(lines[1]).toMatch(/dispatched\s+bridge\s+\S+.*ungraded\s+went quiet/);
    expect(text).toContain('2 shown · 1 open · 2 in all');
    expect((await board(rig, '--limit', '1')).map((d) => d.id)).toEqual([done.id]);
  });

  it('a damaged record reads DAMAGED on the board and is not graded (exit 2)', async () => {
    const rig = await ready();
    const d = await order(rig);
    rig.write({ 'src/a.txt': 'bad\n' });
    await report(rig, d.id);
    expect((await rig.run(['dispatch', 'grade', d.id])).code).toBe(1);
    // Someone rewrites the contradiction into a pass, without the hash.
    withLedgerDb(rig, (db) =>
      db.prepare(`UPDATE chain SET body = replace(body, '"event":"contradicted"', '"event":"verified"') WHERE kind = 'dispatch'`).run(),
    );
    const [read] = await board(rig);
    expect([read.state, read.verdict]).toEqual(['damaged', 'damaged']);
    expect(read.damage).toMatch(/no longer matches its hash: it was altered/);
    expect((await rig.run(['fleet'])).stdout).toMatch(/DAMAGED\s+bridge\s+.*DAMAGED\s+make a.txt good/);
    const report2 = await rig.run(['dispatch', 'report', d.id, '--report', 'claim.json', '--json']);
    expect([report2.code, report2.json().error.code]).toEqual([2, 'dispatch_damaged']);
    // Closing it is still possible; its verdict stays damaged.
    expect((await rig.run(['dispatch', 'close', d.id, '--reason', 'record altered; redo'])).code).toBe(0);
    expect((await board(rig))[0]).toMatchObject({ state: 'terminated', verdict: 'damaged' });
    expect((await rig.run(['audit', '--json'])).json().findings).toEqual([expect.objectContaining({ kind: 'dispatch', code: 'body_altered' })]);
  });

  it('a prompt carrying terminal escape sequences is shown as text, never played to the terminal', async () => {
    const rig = await ready();
    const d = await order(rig, '--prompt', '\u001b]0;pwned\u0007\u001b[2Jclear the screen');
    const text = (await rig.run(['fleet'])).stdout + (await rig.run(['dispatch', 'show', d.id])).stdout;
    expect(text).not.toContain('\u001b');
    expect(text).toContain('\\x1b]0;pwned\\x07\\x1b[2Jclear the screen');
    // The record keeps the exact bytes.
    expect((await board(rig))[0].prompt).toBe('\u001b]0;pwned\u0007\u001b[2Jclear the screen');
  });

  it('flags DRIFT where a pin is not the vouch.yaml in force: a marker in the board row, drift {pinned, now} in --json, and in dispatch show', async () => {
    const rig = await ready();
    const before = await order(rig, '--prompt', 'ordered before the edit');
    const pinned = before.spec_sha256 as string;
    await rig.spec(SPEC('# loosened while the agent worked\n'));
    const now = createHash('sha256')
      .update(readFileSync(rig.path('vouch.yaml')))
      .digest('hex');
    const after = await order(rig, '--prompt', 'ordered after the edit');

    const listed = await rig.run(['fleet', '--json']);
    expect(listed.json().spec_sha256).toBe(now);
    expect(listed.json().dispatches.map((d: any) => [d.id, d.drift])).toEqual([
      [after.id, null],
      [before.id, { pinned, now }],
    ]);
    // --format json is --json.
    expect((await rig.run(['fleet', '--format', 'json'])).json()).toEqual({
      ...listed.json(),
      dispatches: listed.json().dispatches.map((d: any) => ({ ...d, age_seconds: expect.any(Number) })),
    });

    const text = (await rig.run(['fleet', '--format', 'text'])).stdout;
    const row = (id: string) => text.split('\n').find((l) => l.includes(id))!;
    expect(row(before.id)).toMatch(/ungraded DRIFT\s+ordered before the edit/);
    expect(row(after.id)).not.toContain('DRIFT');
    expect(text).toContain(`DRIFT: 1 dispatch pins a vouch.yaml other than the one in force (${now})`);

    const shown = await rig.run(['dispatch', 'show', before.id]);
    expect(shown.stdout.split('\n')[0]).toMatch(/verdict ungraded · DRIFT$/);
    expect(shown.stdout).toContain(`DRIFT      vouch.yaml is ${now} now, not its pin: it cannot be graded (pin drift)`);
    expect((await rig.run(['dispatch', 'show', before.id, '--json'])).json().drift).toEqual({ pinned, now });
    expect((await rig.run(['dispatch', 'show', after.id])).stdout).not.toContain('DRIFT');

    // A vouch.yaml that is not valid now is a drift from every pin: nothing is in force to grade against.
    rig.write({ 'vouch.yaml': 'version: 1\nchecks: []\n' });
    expect((await rig.run(['fleet', '--json'])).json().dispatches.map((d: any) => d.drift)).toEqual([
      { pinned: now, now: null },
      { pinned, now: null },
    ]);
  });

  it('--format takes text or json, and says so', async () => {
    const rig = await ready();
    const wrong = await rig.run(['fleet', '--format', 'yaml']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--format expects one of text, json');
    expect(wrong.stderr).toContain('"yaml"');
    expect((await rig.run(['fleet', '--json', '--format', 'text'])).code).toBe(2);
  });

  it('an empty workspace has an empty board', async () => {
    const rig = await ready();
    expect(await board(rig)).toEqual([]);
    expect((await rig.run(['fleet'])).stdout).toContain('no dispatches recorded yet');
  });
});

describe('signed dispatches', () => {
  /** Appends a transition to the chain as someone with write access but without the key would: a valid hash, a valid link. */
  function forge(rig: Rig, subject: string, body: Record<string, unknown>, signature: string | null): void {
    withLedgerDb(rig, (db) => {
      const last = db.prepare('SELECT hash FROM chain ORDER BY seq DESC LIMIT 1').pluck().get() as string;
      const full = { v: 1, kind: 'dispatch', id: '01m8f0rgedtrans1t10n000000', at: new Date().toISOString(), subject, ...body, prev_hash: last };
      const text = canonicalize(full);
      db.prepare(
        "INSERT INTO chain (id, kind, check_id, manifest, created_at, hash, body, subject, signature) VALUES (?, 'dispatch', NULL, NULL, ?, ?, ?, ?, ?)",
      ).run(full.id, Date.now(), createHash('sha256').update(text).digest('hex'), text, subject, signature);
    });
  }

  const verdict = (from: string) => ({
    event: 'verified',
    from,
    why: 'trust me',
    writer: { pid: 1, ppid: 0, actor: 'cli', client: null, host: 'x' },
    grade: { tier: 'bridge', spec_sha256: '0'.repeat(64), basis: 'whole_tier', checks: [] },
  });

  it.each([
    ['unsigned, after a signed order', null, /is unsigned where signatures are required/],
    [
      'with a signature that does not verify',
      JSON.stringify({ alg: 'ed25519', keyid: 'a'.repeat(64), sig: `${'A'.repeat(86)}==` }),
      /signature that does not hold/,
    ],
  ])('a forged "verified" %s reads DAMAGED, never verified', async (_name, signature, why) => {
    const { signedWorkspace, audit } = await import('./helpers/signed.js');
    const rig = await signedWorkspace(new Rig(), 1);
    rig.write({ 'claim.json': CLAIM });
    const d = await order(rig);
    await report(rig, d.id);
    expect((await board(rig))[0].transitions.every((t: any) => t.signed)).toBe(true);
    forge(rig, d.id, verdict('reported'), signature);
    const [read] = await board(rig);
    expect([read.state, read.verdict]).toEqual(['damaged', 'damaged']);
    expect(read.damage).toMatch(why);
    expect((await audit(rig)).report.findings.map((f: any) => f.code)).toEqual([signature === null ? 'signature_missing' : 'signature_untrusted']);
  });
});
