import { describe, expect, it } from 'vitest';
import { sha256, type Sha256 } from '../core/digest.js';
import { foldCard, type CardEntry } from './fold.js';
import type { CardActor, CardEvent, OpenedEvent, ProofSnapshot, VerdictEvent } from './model.js';
import { snapshotScript } from './snapshot.js';

const by: CardActor = { role: 'owner', role_from: 'default', agent: null, via: 'cli' };
const policy = { spec_sha256: sha256('spec'), excerpt_bytes: 4096, signing_key: null, require_signature: false };
const proofOf = (name: string): ProofSnapshot => snapshotScript(policy, { card: 'c-00000000', name, scope: ['src/**'], timeout: 60, boundSha256: null });

let seq = 0;
const entry = (body: Partial<CardEvent> & { event: CardEvent['event'] }): CardEntry => ({
  intact: true,
  seq: ++seq,
  hash: sha256(String(seq)),
  signed: false,
  body: { v: 1, kind: 'card', id: `e${seq}`, at: new Date(seq * 1000).toISOString(), subject: 'c-00000000', by, ...body } as CardEvent,
});
const opened = (extra: Partial<OpenedEvent> = {}) =>
  entry({
    event: 'opened',
    goal: 'g',
    artifact: 'src/a',
    done_when: 'd',
    lands_at: null,
    budget_attempts: 2,
    verify: 'independent',
    verify_requested: 'proof',
    proof: proofOf('p.sh'),
    follow_up_of: null,
    depth: 0,
    ...extra,
  });
const verdict = (attempt: number, result: 'PASS' | 'FAIL', digest: Sha256, script: Sha256 | null = null, extra: Partial<VerdictEvent> = {}) =>
  entry({
    event: 'verdict',
    proof_digest: digest,
    verdict: result,
    reason: result === 'PASS' ? 'ok' : 'exit_code',
    attempt,
    receipts: [],
    script: script ? { name: 'p.sh', sha256: script, binding: 'first', decision: null } : null,
    ...extra,
  });

const digestOf = (e: CardEntry): Sha256 => (e.intact && e.body.event === 'opened' ? e.body.proof.digest : sha256('none'));
const idOf = (e: CardEntry | undefined): string => (e?.intact ? e.body.id : '');

const fold = (entries: CardEntry[]) => {
  const result = foldCard('c-00000000', entries);
  if (result.kind !== 'ok') throw new Error(result.why);
  return result.view;
};

describe('foldCard: a card is what its events say', () => {
  it('an opened card is open and ungraded', () => {
    expect(fold([opened()])).toMatchObject({ state: 'open', grade: 'ungraded', attempts: 0, overBudget: false });
  });

  it('grades by the newest verdict of the proof in force, and a reprove starts it over', () => {
    const first = opened();
    const digest = digestOf(first);
    const view = fold([first, verdict(1, 'FAIL', digest), verdict(2, 'PASS', digest)]);
    expect(view).toMatchObject({ grade: 'PASS', attempts: 2, overBudget: true });
    const newProof = proofOf('q.sh');
    const reproved = fold([
      first,
      verdict(1, 'FAIL', digest),
      entry({ event: 'decision', decision: 'reprove', why: 'w', changes: null, script_sha256: null, into: null, proof: newProof }),
    ]);
    expect(reproved).toMatchObject({ grade: 'ungraded', attempts: 1, verdicts: [] });
    expect(reproved.proof.digest).toBe(newProof.digest);
  });

  it('owner_close is its own state, never done', () => {
    const view = fold([opened(), entry({ event: 'owner_close', why: 'w', last_verdict: null })]);
    expect(view.state).toBe('owner_closed');
    expect(view.completed).toBeNull();
  });

  it('a revise-script decision is pending until a run uses it, then it is the bound hash', () => {
    const first = opened();
    const digest = digestOf(first);
    const [a, b] = [sha256('a'), sha256('b')];
    const pending = fold([
      first,
      verdict(1, 'PASS', digest, a),
      entry({ event: 'decision', decision: 'revise_script', why: 'w', changes: null, script_sha256: b, into: null, proof: null }),
    ]);
    expect(pending.script).toEqual({ bound: a, pending: { decision: idOf(pending.events[2]), sha256: b } });
    const used = fold([
      first,
      verdict(1, 'PASS', digest, a),
      entry({ event: 'decision', decision: 'revise_script', why: 'w', changes: null, script_sha256: b, into: null, proof: null }),
      verdict(2, 'PASS', digest, null, { script: { name: 'p.sh', sha256: b, binding: 'revised', decision: 'x' } }),
    ]);
    expect(used.script).toEqual({ bound: b, pending: null });
  });

  it('refuses to fold a card with a damaged event, a missing origin, a second origin, or a hole in its attempts', () => {
    const first = opened();
    const digest = digestOf(first);
    expect(foldCard('c', [first, { intact: false, seq: 99, hash: sha256('h'), why: 'altered' }]).kind).toBe('damaged');
    expect(foldCard('c', [entry({ event: 'claimed' })]).kind).toBe('damaged');
    expect(foldCard('c', [first, opened()]).kind).toBe('damaged');
    const hole = foldCard('c', [first, verdict(2, 'PASS', digest)]);
    expect(hole).toMatchObject({ kind: 'damaged', why: expect.stringContaining('a verdict is missing') });
  });

  it('a forged completed event closes nothing: it must name a PASS verdict of the proof in force, else the card is damaged, never done', () => {
    const first = opened();
    const digest = digestOf(first);
    const completed = (verdictEvent: string) => entry({ event: 'completed', verdict_event: verdictEvent, receipts: [] });
    const fail = verdict(1, 'FAIL', digest);
    expect(foldCard('c', [first, fail, completed(idOf(fail))])).toMatchObject({ kind: 'damaged', why: expect.stringContaining('a FAIL verdict') });
    expect(foldCard('c', [first, completed('01nosuchverdict')])).toMatchObject({
      kind: 'damaged',
      why: expect.stringContaining('no verdict of the proof in force'),
    });
    // A PASS of a proof since replaced by a reprove closes nothing either.
    const oldPass = verdict(1, 'PASS', digest);
    const reprove = entry({ event: 'decision', decision: 'reprove', why: 'w', changes: null, script_sha256: null, into: null, proof: proofOf('q.sh') });
    expect(foldCard('c', [first, oldPass, reprove, completed(idOf(oldPass))]).kind).toBe('damaged');
    const pass = verdict(1, 'PASS', digest);
    expect(fold([first, pass, completed(idOf(pass))]).state).toBe('done');
  });

  it('refuses a proof that no longer matches its own digest', () => {
    const tampered = opened({ proof: { ...proofOf('p.sh'), scope: ['**'] } as ProofSnapshot });
    expect(foldCard('c', [tampered])).toMatchObject({ kind: 'damaged', why: expect.stringContaining('digest') });
  });
});
