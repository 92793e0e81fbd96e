import type { Reason, Verdict } from '../core/status.js';
import { fail } from '../core/problem.js';
import { runChecks, type RunContext } from '../engine/verify.js';
import type { Ledger, Signer } from '../ledger/ledger.js';
import type { StoredReceipt } from '../receipt/receipt.js';
import type { CheckDef } from '../spec/model.js';
import type { CardContext } from './context.js';
import type { CardView } from './fold.js';
import type { ProofReceipt, ScriptUse } from './model.js';
import { closers } from './rules.js';
import { currentPins } from '../trust/trust.js';
import { readScript, scriptCheck, stageScript, useScript } from './script.js';

export interface ProofRun {
  readonly verdict: Verdict;
  readonly reason: Reason;
  readonly receipts: readonly StoredReceipt[];
  readonly recorded: readonly ProofReceipt[];
  readonly script: ScriptUse | null;
  /** The definitions that ran (for a script: the check it ran as, named by the script's path). */
  readonly checks: readonly CheckDef[];
}

/**
 * Runs a card's frozen proof, exactly: the snapshot's check definitions
 * through the same runner and verdict engine as `vouch verify` (never the
 * spec as it is now), or the proof script's bound bytes. One receipt per
 * check, appended to the same chain.
 */
export async function runProof(ctx: CardContext, view: CardView, ledger: Ledger, sign: Signer | undefined): Promise<ProofRun> {
  const proof = view.proof;
  const pins = currentPins(ctx.home, ctx.workspace.root);
  const run: RunContext = {
    workspace: ctx.workspace,
    home: ctx.home,
    spec: { sha256: proof.policy.spec_sha256, excerptBytes: proof.policy.excerpt_bytes },
    actor: ctx.by.via,
    env: ctx.env,
    ...(ctx.now && { now: ctx.now }),
    // What the person allowed to run applies to a card's frozen checks too (by check id and command).
    ...(pins && { trusted: { pins, toolConfigs: [] } }),
    ...(ctx.gate && { gate: ctx.gate }),
  };
  const options = { ...(sign && { sign }), ...(ctx.signal && { signal: ctx.signal }), ...(ctx.onEvent && { onEvent: ctx.onEvent }) };
  if (proof.kind === 'checks') {
    const receipts = await runChecks(run, proof.checks, ledger, options);
    return summarize(receipts, proof.checks, null);
  }

  const script = readScript(ctx.workspace.root, proof);
  if (!script.ok) return fail(script.error);
  const use = useScript(proof, view.script, script.value.sha256);
  if (!use.ok) return fail(use.error);
  // Binding a hash commits the card to a script: the verifier's act, not the worker's. Nor the gate's: what it runs
  // at a worker's stop is a script a verifier bound before, never one the worker's session may have left there.
  if (use.value.binding !== 'same' && ctx.gate) {
    return fail({
      code: 'card_script_unbound',
      message: `the proof script ${proof.path} has ${use.value.binding === 'first' ? 'never been run' : 'an authorised revision not yet run'}, so its hash is not bound: the gate runs only a script a verifier bound`,
      hint: `the verifier runs \`vouch card verify ${view.id}\` first (VOUCH_ROLE=verifier); after that the gate runs it at the worker's stop`,
    });
  }
  if (use.value.binding !== 'same' && !closers('independent').includes(ctx.by.role)) {
    return fail({
      code: 'card_role_refused',
      message: `the ${ctx.by.role} may not ${use.value.binding === 'first' ? 'bind' : 'bind a revised'} proof script: the first run of a script (or of an authorised revision) binds its hash, and that is the verifier's act`,
      expected: 'VOUCH_ROLE=verifier or coordinator',
      found: ctx.by.role,
      hint: 'the verifier runs `vouch card verify ID` first; after that anyone may run it',
    });
  }
  const staged = stageScript(script.value, proof.name, ctx.workspace.stateDir);
  try {
    const check = scriptCheck(view.id, proof, script.value.sha256, staged.path);
    const receipts = await runChecks(run, [check], ledger, options);
    return summarize(receipts, [check], use.value);
  } finally {
    staged.remove();
  }
}

function summarize(receipts: readonly StoredReceipt[], checks: readonly CheckDef[], script: ScriptUse | null): ProofRun {
  const recorded = receipts.map((receipt): ProofReceipt => ({
    check_id: receipt.body.check_id,
    receipt: receipt.body.id,
    hash: receipt.hash,
    verdict: receipt.body.verdict,
    reason: receipt.body.reason,
    fingerprint: receipt.body.fingerprint,
  }));
  const failed = recorded.find((r) => r.verdict === 'FAIL');
  const unknown = recorded.find((r) => r.verdict === 'UNKNOWN');
  // Stopped before every check ran: what did not run is not a pass.
  const cut = receipts.length < checks.length;
  const verdict: Verdict = failed ? 'FAIL' : unknown || cut ? 'UNKNOWN' : 'PASS';
  const reason: Reason = failed?.reason ?? unknown?.reason ?? (cut ? 'interrupted' : 'ok');
  return { verdict, reason, receipts, recorded, script, checks };
}
