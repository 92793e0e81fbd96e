import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../src/core/jcs.js';
import { newId } from '../src/core/ids.js';
import { as, card, kinds, opened, refused } from './helpers/cards.js';
import { withLedgerDb } from './helpers/ledger-db.js';
import { Rig } from './helpers/rig.js';

/*
 * Audit after done (someone other than the worker runs the proof again), and
 * the card's own record under attack: an edited event is read as damaged and
 * caught by `vouch audit`.
 */

const SPEC = `version: 1
checks:
  - id: tests
    run: ["sh", "-c", "grep -q good src/a.txt"]
    sources: ["src/**"]
`;

async function workspace(spec = SPEC): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.txt': 'good\n' });
  await rig.spec(spec);
  return rig;
}

/** Verifies and completes a card on the files as they are. */
async function finish(rig: Rig, id: string): Promise<void> {
  expect((await card(rig, ['verify', id])).json().verdict).toBe('PASS');
  const done = await card(rig, ['complete', id]);
  expect(done.code, done.stderr).toBe(0);
}

describe('card audit: the proof of done cards, run again', () => {
  it('a proof script changed after done: the audit is recorded as UNKNOWN with the reason, opens a follow-up, and the board shows it not passing', async () => {
    const rig = await workspace();
    const result = await card(rig, [
      'open',
      '--goal',
      'make a good',
      '--artifact',
      'src/a.txt',
      '--done-when',
      'src/a.txt says good',
      '--proof-script',
      'proof.sh',
    ]);
    const id = result.json().id as string;
    rig.write({ [`.vouch/cards/${id}/proof.sh`]: '#!/bin/sh\ngrep -q good src/a.txt\n' });
    expect((await card(rig, ['verify', id], as('verifier'))).json().verdict).toBe('PASS');
    expect((await card(rig, ['complete', id], as('verifier'))).code).toBe(0);
    // After done, the script is quietly made to pass whatever.
    rig.write({ [`.vouch/cards/${id}/proof.sh`]: '#!/bin/sh\nexit 0\n' });
    const audit = await card(rig, ['audit', id], as('verifier'));
    expect(audit.code).toBe(1);
    const outcome = audit.json().cards[0];
    expect(outcome).toMatchObject({
      card: id,
      ran: false,
      verdict: 'UNKNOWN',
      reason: 'no_receipt',
      not_run: { code: 'card_script_changed' },
      follow_up: expect.stringMatching(/^c-/),
    });
    expect(await kinds(rig, id)).toEqual(['opened', 'verdict', 'completed', 'audit', 'audit', 'follow_up']);
    expect((await card(rig, ['show', outcome.follow_up])).json()).toMatchObject({ state: 'open', depth: 1, follow_up_of: { card: id } });
    expect((await card(rig, ['list'])).json().cards.find((c: { id: string }) => c.id === id)).toMatchObject({ state: 'done', audit: 'UNKNOWN' });
    expect((await rig.run(['card', 'list'])).stdout).toContain('audit UNKNOWN: not passing');
    expect((await rig.run(['card', 'show', id])).stdout).toContain('not run: card_script_changed');
  });

  it('an artifact deleted after done: the audit UNKNOWN opens a follow-up, and the board shows it not passing', async () => {
    const SCOPED = `version: 1
checks:
  - id: tests
    run: ["sh", "-c", "grep -q good src/a.txt"]
    sources: ["src/**"]
    artifacts: ["dist/out.txt"]
`;
    const rig = await workspace(SCOPED);
    rig.write({ 'dist/out.txt': 'built\n' });
    const id = await opened(rig, ['--proof', 'tests']);
    await finish(rig, id);
    rmSync(rig.path('dist/out.txt'));
    const audit = await card(rig, ['audit', id], as('verifier'));
    expect(audit.code).toBe(1);
    expect(audit.json().cards[0]).toMatchObject({ ran: true, verdict: 'UNKNOWN', follow_up: expect.stringMatching(/^c-/), follow_up_skipped: null });
    expect(await kinds(rig, id)).toEqual(['opened', 'verdict', 'completed', 'audit', 'audit', 'follow_up']);
    expect((await rig.run(['card', 'list'])).stdout).toContain('audit UNKNOWN: not passing');
  });

  it('--all with no done card is not a pass: exit 1, ok false, nothing_audited', async () => {
    const rig = await workspace();
    await opened(rig, ['--proof', 'tests']);
    const all = await card(rig, ['audit', '--all'], as('coordinator'));
    expect(all.code).toBe(1);
    expect(all.json()).toMatchObject({ ok: false, reason: 'nothing_audited', cards: [] });
    const text = await rig.run(['card', 'audit', '--all'], { env: as('coordinator') });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('nothing audited');
  });

  it('is refused for the worker and for a card that is not done', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    refused(await card(rig, ['audit', id]), 'card_not_done');
    await finish(rig, id);
    refused(await card(rig, ['audit', id], as('worker')), 'card_role_refused');
    refused(await card(rig, ['audit', '--all'], as('worker')), 'card_role_refused');
    refused(await card(rig, ['audit']), 'usage', 2);
  });

  it('records a PASS on the card and opens nothing', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    await finish(rig, id);
    const audit = await card(rig, ['audit', id], as('verifier'));
    expect(audit.code, audit.stderr).toBe(0);
    expect(audit.json()).toMatchObject({ ok: true, cards: [{ card: id, ran: true, verdict: 'PASS', follow_up: null }] });
    expect(await kinds(rig, id)).toEqual(['opened', 'verdict', 'completed', 'audit', 'audit']);
    expect((await card(rig, ['show', id])).json().state).toBe('done');
  });

  it('a FAIL reopens nothing silently: it is recorded on the done card and opens one follow-up linked to it, at most two deep', async () => {
    const rig = await workspace();
    const root = await opened(rig, ['--proof', 'tests']);
    await finish(rig, root);

    // Broken after done: the audit records it and opens follow-up 1.
    rig.write({ 'src/a.txt': 'broken\n' });
    const first = await card(rig, ['audit', root], as('coordinator'));
    expect(first.code).toBe(1);
    const one = first.json().cards[0].follow_up as string;
    expect(first.json().cards[0]).toMatchObject({ verdict: 'FAIL', reason: 'exit_code', follow_up: expect.stringMatching(/^c-/), follow_up_skipped: null });
    expect(await kinds(rig, root)).toEqual(['opened', 'verdict', 'completed', 'audit', 'audit', 'follow_up']);
    const rootShown = (await card(rig, ['show', root])).json();
    expect(rootShown).toMatchObject({ state: 'done', follow_ups: [one] });
    const oneShown = (await card(rig, ['show', one])).json();
    expect(oneShown).toMatchObject({ state: 'open', depth: 1, follow_up_of: { card: root, audit: first.json().cards[0].event }, proof: rootShown.proof });
    expect(oneShown.contract.goal).toBe(`Follow-up of ${root}: make a good`);
    expect((await card(rig, ['list'])).json().cards.find((c: { id: string }) => c.id === root)).toMatchObject({ audit: 'FAIL', follow_ups: [one] });

    // While follow-up 1 is open, auditing the root again records the FAIL but opens no second one.
    const again = await card(rig, ['audit', root], as('coordinator'));
    expect(again.json().cards[0]).toMatchObject({ verdict: 'FAIL', follow_up: null, follow_up_skipped: 'open_follow_up' });

    // Follow-up 1 is fixed and done, breaks again: follow-up 2.
    rig.write({ 'src/a.txt': 'good\n' });
    await finish(rig, one);
    rig.write({ 'src/a.txt': 'broken again\n' });
    const second = await card(rig, ['audit', one], as('verifier'));
    const two = second.json().cards[0].follow_up as string;
    expect(two).toMatch(/^c-/);
    expect((await card(rig, ['show', two])).json()).toMatchObject({ depth: 2, follow_up_of: { card: one } });

    // Follow-up 2 done and broken: recorded, and no third level.
    rig.write({ 'src/a.txt': 'good\n' });
    await finish(rig, two);
    rig.write({ 'src/a.txt': 'broken a third time\n' });
    const third = await rig.run(['card', 'audit', two], { env: as('verifier') });
    expect(third.code).toBe(1);
    expect(third.stdout).toContain('no follow-up, the chain is already two deep');
    const thirdJson = (await card(rig, ['show', two])).json();
    expect(thirdJson.events.at(-1)).toMatchObject({ kind: 'audit', verdict: 'FAIL', follow_up: null, follow_up_skipped: 'depth_limit' });
    expect(thirdJson.follow_ups).toEqual([]);
    expect((await card(rig, ['list'])).json().cards).toHaveLength(3);
  });

  it('--all audits every done card and only those', async () => {
    const rig = await workspace();
    const a = await opened(rig, ['--proof', 'tests']);
    const b = await opened(rig, ['--proof', 'tests']);
    await finish(rig, a);
    await finish(rig, b);
    const open = await opened(rig, ['--proof', 'tests']);
    const all = await card(rig, ['audit', '--all'], as('coordinator'));
    expect(all.code).toBe(0);
    expect(all.json().cards.map((c: { card: string }) => c.card)).toEqual([a, b]);
    expect(await kinds(rig, open)).toEqual(['opened']);
  });
});

/** Appends a card event as someone with write access but without the key would: a correct hash, a correct link, no signature. */
function forgeCardEvent(rig: Rig, card: string, body: Record<string, unknown>): void {
  withLedgerDb(rig, (db) => {
    const last = db.prepare('SELECT hash FROM chain ORDER BY seq DESC LIMIT 1').pluck().get() as string;
    const by = { role: 'verifier', role_from: 'VOUCH_ROLE', agent: null, via: 'cli' };
    const full = { v: 1, kind: 'card', id: newId(), at: new Date().toISOString(), subject: card, by, ...body, prev_hash: last };
    const text = canonicalize(full);
    db.prepare(
      "INSERT INTO chain (id, kind, check_id, manifest, created_at, hash, body, subject, signature) VALUES (?, 'card', NULL, NULL, ?, ?, ?, ?, NULL)",
    ).run(full.id, Date.now(), createHash('sha256').update(text).digest('hex'), text, card);
  });
}

/** The id of the newest verdict event of a card. */
async function newestVerdict(rig: Rig, id: string): Promise<string> {
  const events = (await card(rig, ['show', id])).json().events as { kind: string; id: string }[];
  return events.filter((e) => e.kind === 'verdict').at(-1)!.id;
}

describe("a card's record under attack", () => {
  it('a forged unsigned "completed" on a card whose events are signed reads DAMAGED, never done', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'good\n' });
    expect((await rig.run(['keys', 'generate'])).code).toBe(0);
    await rig.spec(`${SPEC}signing_key: default\n`);
    const id = await opened(rig, ['--proof', 'tests']);
    expect((await card(rig, ['verify', id])).json().verdict).toBe('PASS');
    // The work breaks; instead of proving it again, the attacker appends a completed naming the old PASS.
    rig.write({ 'src/a.txt': 'broken\n' });
    refused(await card(rig, ['complete', id]), 'card_stale');
    forgeCardEvent(rig, id, { event: 'completed', verdict_event: await newestVerdict(rig, id), receipts: [] });
    const shown = await card(rig, ['show', id]);
    expect(shown.json()).toMatchObject({ ok: false, state: 'damaged', passed: false, damage: expect.stringContaining('once signed, always signed') });
    expect((await card(rig, ['list'])).json().cards[0]).toMatchObject({ id, state: 'damaged', passed: false });
  });

  it('a forged "completed" naming a FAIL verdict, or no verdict at all, reads DAMAGED, never done', async () => {
    const rig = await workspace();
    rig.write({ 'src/a.txt': 'bad\n' });
    const id = await opened(rig, ['--proof', 'tests']);
    expect((await card(rig, ['verify', id])).json().verdict).toBe('FAIL');
    forgeCardEvent(rig, id, { event: 'completed', verdict_event: await newestVerdict(rig, id), receipts: [] });
    expect((await card(rig, ['show', id])).json()).toMatchObject({
      ok: false,
      state: 'damaged',
      passed: false,
      damage: expect.stringContaining('a FAIL verdict'),
    });
    refused(await card(rig, ['complete', id]), 'card_damaged', 2);

    const other = await opened(rig, ['--proof', 'tests']);
    forgeCardEvent(rig, other, { event: 'completed', verdict_event: '01kzzzzzzzzzzzzzzzzzzzzzzz', receipts: [] });
    expect((await card(rig, ['show', other])).json()).toMatchObject({ state: 'damaged', damage: expect.stringContaining('no verdict of the proof in force') });
  });

  it('an unsigned receipt does not close a card once the allowed spec requires signatures, though the card was opened without', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    expect((await card(rig, ['verify', id])).json().verdict).toBe('PASS');
    expect((await card(rig, ['show', id])).json().complete_now).toEqual({ ok: true });
    // A person now requires signatures and allows it: the unsigned PASS no longer counts.
    expect((await rig.run(['keys', 'generate'])).code).toBe(0);
    await rig.spec(`${SPEC}signing_key: default\nrequire_signature: true\n`);
    const refusal = await card(rig, ['complete', id]);
    expect(refusal.code, refusal.stderr).toBe(4);
    expect(refusal.json().error.message).toContain('signature');
    expect((await card(rig, ['show', id])).json().complete_now).toMatchObject({ ok: false });
    expect((await rig.run(['card', 'show', id])).stdout).not.toContain('complete now: allowed');
    expect(await kinds(rig, id)).toEqual(['opened', 'verdict']);
    // A signed PASS of the same proof closes it.
    expect((await card(rig, ['verify', id])).json().verdict).toBe('PASS');
    expect((await card(rig, ['complete', id])).code).toBe(0);
  });

  it('reads an edited verdict as damaged, refuses to act on the card, and `vouch audit` names the entry', async () => {
    const rig = await workspace();
    rig.write({ 'src/a.txt': 'bad\n' });
    const id = await opened(rig, ['--proof', 'tests']);
    expect((await card(rig, ['verify', id])).json().verdict).toBe('FAIL');
    rig.write({ 'src/a.txt': 'good\n' });
    // The attacker turns the FAIL into a PASS in place.
    withLedgerDb(rig, (db) =>
      db
        .prepare(
          `UPDATE chain SET body = replace(replace(body, '"verdict":"FAIL"', '"verdict":"PASS"'), '"reason":"exit_code"', '"reason":"ok"') WHERE kind = 'card' AND body LIKE '%"event":"verdict"%'`,
        )
        .run(),
    );
    const shown = await card(rig, ['show', id]);
    expect(shown.code).toBe(1);
    expect(shown.json()).toMatchObject({ ok: false, state: 'damaged', passed: false });
    expect(shown.json().events.map((e: { kind: string }) => e.kind)).toEqual(['opened', 'damaged']);
    refused(await card(rig, ['complete', id]), 'card_damaged', 2);
    refused(await card(rig, ['verify', id]), 'card_damaged', 2);
    expect((await card(rig, ['list'])).json().cards[0]).toMatchObject({ id, state: 'damaged', passed: false });
    expect((await rig.run(['card', 'list'])).stdout).toContain('DAMAGED');
    const audit = await rig.run(['audit', '--json']);
    expect(audit.code).toBe(1);
    expect(audit.json().findings).toEqual([expect.objectContaining({ kind: 'card', code: 'body_altered' })]);
  });

  it('catches an event moved to another card by its subject column', async () => {
    const rig = await workspace();
    const a = await opened(rig, ['--proof', 'tests']);
    const b = await opened(rig, ['--proof', 'tests']);
    await card(rig, ['verify', a]);
    // Card a's PASS is filed under card b, body untouched.
    withLedgerDb(rig, (db) => db.prepare(`UPDATE chain SET subject = ? WHERE kind = 'card' AND body LIKE '%"event":"verdict"%'`).run(b));
    expect((await card(rig, ['show', b])).json()).toMatchObject({ ok: false, state: 'damaged' });
    refused(await card(rig, ['complete', b]), 'card_damaged', 2);
    const audit = (await rig.run(['audit', '--json'])).json();
    expect(audit.findings).toEqual([expect.objectContaining({ kind: 'card', code: 'row_mismatch', detail: expect.stringContaining('subject') })]);
  });

  it('catches a deleted verdict: the card reads as damaged, and the chain shows the gap', async () => {
    const rig = await workspace();
    rig.write({ 'src/a.txt': 'bad\n' });
    const id = await opened(rig, ['--proof', 'tests']);
    await card(rig, ['verify', id]);
    rig.write({ 'src/a.txt': 'good\n' });
    await card(rig, ['verify', id]);
    // Remove the FAIL verdict: the card now reads as one clean PASS...
    withLedgerDb(rig, (db) => db.prepare(`DELETE FROM chain WHERE kind = 'card' AND body LIKE '%"verdict":"FAIL"%'`).run());
    // ...but its attempts are numbered, so the card does not fold,
    const shown = (await card(rig, ['show', id])).json();
    expect(shown).toMatchObject({ state: 'damaged' });
    expect(shown.damage).toContain('a verdict is missing');
    refused(await card(rig, ['complete', id]), 'card_damaged', 2);
    // and the chain shows the hole.
    const audit = (await rig.run(['audit', '--json'])).json();
    expect(audit.findings.map((f: { code: string }) => f.code)).toContain('gap');
  });

  it('signs card events when the workspace signs, and reads an event with a forged signature as damaged', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'good\n' });
    expect((await rig.run(['keys', 'generate'])).code).toBe(0);
    await rig.spec(`${SPEC}signing_key: default\n`);
    const id = await opened(rig, ['--proof', 'tests']);
    await card(rig, ['verify', id]);
    const events = (await card(rig, ['show', id])).json().events;
    expect(events.map((e: { signed: boolean }) => e.signed)).toEqual([true, true]);
    expect((await rig.run(['audit'])).code).toBe(0);
    // A signature copied from another event does not verify over this one.
    withLedgerDb(rig, (db) => {
      const [first, second] = db.prepare(`SELECT seq, signature FROM chain WHERE kind = 'card' ORDER BY seq`).all() as { seq: number; signature: string }[];
      db.prepare('UPDATE chain SET signature = ? WHERE seq = ?').run(first!.signature, second!.seq);
    });
    expect((await card(rig, ['show', id])).json()).toMatchObject({ state: 'damaged' });
    expect((await rig.run(['audit', '--json'])).json().findings.map((f: { code: string }) => f.code)).toEqual(['signature_invalid']);
  });
});
