import { describe, expect, it } from 'vitest';
import { as, card, kinds, refused } from './helpers/cards.js';
import { Rig } from './helpers/rig.js';

/*
 * Proof scripts: written by the verifier under .vouch/cards/<card>/ from the
 * card's done-when, bound by SHA-256 at their first run, changed only through
 * a revise-script decision that authorises exactly one new hash.
 */

const SPEC = `version: 1
checks:
  - id: tests
    run: ["true"]
    sources: ["src/**"]
`;
const PROOF = '#!/bin/sh\ngrep -q "annual" src/pricing.txt\n';

async function scriptCard(extra: readonly string[] = []): Promise<{ rig: Rig; id: string }> {
  const rig = new Rig().write({ 'src/pricing.txt': 'monthly and annual\n' });
  await rig.spec(SPEC);
  const result = await card(rig, [
    'open',
    '--goal',
    'pricing toggle',
    '--artifact',
    'src/pricing.txt',
    '--done-when',
    'the page offers monthly and annual',
    '--proof-script',
    'proof.sh',
    ...extra,
  ]);
  expect(result.code, result.stderr).toBe(0);
  return { rig, id: result.json().id as string };
}

const writeScript = (rig: Rig, id: string, body = PROOF) => rig.write({ [`.vouch/cards/${id}/proof.sh`]: body });

describe('proof scripts', () => {
  it('are always verified independently, even when the card asked for the cheaper mode', async () => {
    const { rig, id } = await scriptCard(['--verify', 'proof']);
    const shown = (await card(rig, ['show', id])).json();
    expect(shown).toMatchObject({ verify: 'independent', verify_requested: 'proof' });
    expect(shown.proof).toMatchObject({
      kind: 'script',
      name: 'proof.sh',
      path: `.vouch/cards/${id}/proof.sh`,
      scope: ['src/pricing.txt'],
      bound_sha256: null,
    });
    expect(shown.script).toEqual({ bound: null, pending: null });
  });

  it('refuses a verify before the verifier wrote the script, or of a script with no #! line, without spending an attempt', async () => {
    const { rig, id } = await scriptCard();
    refused(await card(rig, ['verify', id], as('verifier')), 'card_script_unusable');
    writeScript(rig, id, 'grep -q annual src/pricing.txt\n');
    const bare = await card(rig, ['verify', id], as('verifier'));
    refused(bare, 'card_script_unusable');
    expect(bare.json().error.message).toContain('#!');
    expect((await card(rig, ['show', id])).json().attempts).toBe(0);
  });

  it('the first run binds the hash, and only the verifier (or coordinator) may make it: a worker cannot bind a script', async () => {
    const { rig, id } = await scriptCard();
    writeScript(rig, id);
    refused(await card(rig, ['verify', id], as('worker')), 'card_role_refused');
    const first = await card(rig, ['verify', id], as('verifier'));
    expect(first.code, first.stderr).toBe(0);
    expect(first.json()).toMatchObject({ verdict: 'PASS', script: { name: 'proof.sh', binding: 'first', decision: null } });
    const bound = first.json().script.sha256 as string;
    expect(first.json().card.script.bound).toBe(bound);
    // Once bound, anyone may run it (the worker, for feedback), but only the verifier's PASS closes the card.
    expect((await card(rig, ['verify', id], as('worker'))).json()).toMatchObject({ verdict: 'PASS', script: { binding: 'same', sha256: bound } });
    refused(await card(rig, ['complete', id], as('verifier')), 'card_pass_not_independent');
    await card(rig, ['verify', id], as('verifier'));
    const done = await card(rig, ['complete', id], as('verifier'));
    expect(done.code, done.stderr).toBe(0);
    expect(done.json()).toMatchObject({ state: 'done', passed: true });
  });

  it('refuses a changed script at verify, and refuses to complete on the PASS of the script before the edit', async () => {
    const { rig, id } = await scriptCard();
    writeScript(rig, id);
    expect((await card(rig, ['verify', id], as('verifier'))).json().verdict).toBe('PASS');
    // A quieter script: passes whatever the page says.
    writeScript(rig, id, '#!/bin/sh\nexit 0\n');
    const verify = await card(rig, ['verify', id], as('verifier'));
    refused(verify, 'card_script_changed');
    expect(verify.json().error.hint).toContain('revise-script');
    const complete = await card(rig, ['complete', id], as('verifier'));
    refused(complete, 'card_stale');
    expect(complete.json().error.message).toContain('proof script changed');
    // Putting the bound bytes back makes the same PASS fresh again.
    writeScript(rig, id);
    expect((await card(rig, ['complete', id], as('verifier'))).code).toBe(0);
  });

  it('a revise-script decision authorises exactly one new hash, once; another change needs another decision', async () => {
    const { rig, id } = await scriptCard();
    writeScript(rig, id);
    await card(rig, ['verify', id], as('verifier'));
    refused(await card(rig, ['decide', id, 'revise-script', '--why', 'unchanged']), 'card_decision_invalid');
    const revised = '#!/bin/sh\ngrep -q "annual" src/pricing.txt && grep -q "monthly" src/pricing.txt\n';
    writeScript(rig, id, revised);
    refused(await card(rig, ['decide', id, 'revise-script', '--why', 'x', '--sha256', '0'.repeat(64)], as('coordinator')), 'card_decision_invalid');
    refused(await card(rig, ['decide', id, 'revise-script', '--why', 'x'], as('worker')), 'card_role_refused');
    const decision = await card(rig, ['decide', id, 'revise-script', '--why', 'also check monthly'], as('coordinator'));
    expect(decision.code, decision.stderr).toBe(0);
    const authorised = decision.json().script.pending;
    expect(authorised.sha256).toMatch(/^[0-9a-f]{64}$/);
    // Between the decision and the run, the script changes again: that hash was never authorised.
    writeScript(rig, id, '#!/bin/sh\nexit 0\n');
    refused(await card(rig, ['verify', id], as('verifier')), 'card_script_changed');
    writeScript(rig, id, revised);
    const run = await card(rig, ['verify', id], as('verifier'));
    expect(run.json()).toMatchObject({ verdict: 'PASS', script: { binding: 'revised', decision: authorised.decision, sha256: authorised.sha256 } });
    expect(run.json().card.script).toEqual({ bound: authorised.sha256, pending: null });
    // Used once: the next change is refused again.
    writeScript(rig, id, `${revised}# again\n`);
    refused(await card(rig, ['verify', id], as('verifier')), 'card_script_changed');
    expect(await kinds(rig, id)).toEqual(['opened', 'verdict', 'decision', 'verdict']);
  });

  it('covers the artifact (or --scope): the PASS goes STALE when the page changes', async () => {
    const { rig, id } = await scriptCard(['--scope', 'src/**']);
    expect((await card(rig, ['show', id])).json().proof.scope).toEqual(['src/**']);
    writeScript(rig, id);
    await card(rig, ['verify', id], as('verifier'));
    rig.write({ 'src/other.txt': 'new file in scope\n' });
    refused(await card(rig, ['complete', id], as('verifier')), 'card_stale');
  });

  it('runs the bytes it hashed: a FAIL script is a FAIL, recorded with the receipt it appended', async () => {
    const { rig, id } = await scriptCard();
    writeScript(rig, id, '#!/bin/sh\necho "no annual toggle" >&2\nexit 3\n');
    const run = await card(rig, ['verify', id], as('verifier'));
    expect(run.code).toBe(1);
    expect(run.json()).toMatchObject({ verdict: 'FAIL', reason: 'exit_code' });
    const receipt = (await rig.run(['show', run.json().receipts[0].receipt, '--json'])).json().receipt;
    expect(receipt).toMatchObject({ check_id: `card:${id}:proof.sh`, verdict: 'FAIL', exit_code: 3 });
    expect(receipt.stderr.excerpt).toContain('no annual toggle');
    expect(receipt.proves).toContain(`.vouch/cards/${id}/proof.sh`);
    // The private copy it ran from is gone.
    expect((await import('node:fs')).readdirSync(rig.path('.vouch/run'))).toEqual([]);
  });
});
