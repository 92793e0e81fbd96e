import type { Problem } from '../core/problem.js';
import { signatureJudge } from '../engine/signature-status.js';
import { landing } from '../engine/git.js';
import { judgeCurrent } from '../engine/status.js';
import { TreeReader } from '../engine/tree-reader.js';
import type { Ledger } from '../ledger/ledger.js';
import type { StoredReceipt } from '../receipt/receipt.js';
import type { Snapshot } from '../scope/snapshot.js';
import type { CheckDef } from '../spec/model.js';
import { signaturesRequired, type CardPlace } from './context.js';
import type { Stored, CardView } from './fold.js';
import type { ProofReceipt, VerdictEvent } from './model.js';
import { closers } from './rules.js';
import { scopeMatcher } from '../scope/covers.js';
import { readScript, scriptCheck } from './script.js';
import { checkPinsDigest } from '../trust/pins-digest.js';
import { currentPins } from '../trust/trust.js';

/**
 * Whether the card may close now, by its contract alone (who asks is
 * judged by rules.ts): the newest verdict of the proof in force is a PASS,
 * recorded after the newest claim, run by a role whose PASS counts, with no
 * FAIL of the same check definitions since, and still fresh: every receipt
 * it names is intact, validly signed where required, and matches the files
 * (and the proof script) as they are now. Returns the PASS, or the first
 * reason it does not close. Every receipt is judged against one look at the
 * files.
 */
export async function judgeCompletion(
  place: CardPlace,
  ledger: Ledger,
  view: CardView,
): Promise<{ readonly ok: true; readonly pass: Stored<VerdictEvent> } | { readonly ok: false; readonly problem: Problem }> {
  const { workspace, home } = place;
  const reader = new TreeReader({ workspace, home });
  try {
    let snapshot: Snapshot | undefined;
    // The spec as it is now may require signatures the card's frozen policy did not: a receipt it would refuse never closes the card.
    const required = await signaturesRequired(place, view.proof.policy);
    return await judgeAgainst(workspace.root, home, ledger, view, required, () => (snapshot ??= reader.snapshot()));
  } finally {
    reader.close();
  }
}

async function judgeAgainst(
  root: string,
  home: string,
  ledger: Ledger,
  view: CardView,
  requireSignature: boolean,
  files: () => Snapshot,
): Promise<{ readonly ok: true; readonly pass: Stored<VerdictEvent> } | { readonly ok: false; readonly problem: Problem }> {
  const refuse = (problem: Problem) => ({ ok: false as const, problem });
  const newest = view.verdicts[view.verdicts.length - 1];
  if (!newest) {
    const reproved = view.attempts > 0;
    return refuse({
      code: 'card_no_verdict',
      message: `card ${view.id} has no verdict of its proof${reproved ? ' in force (the proof was changed since the last run)' : ''}: nothing has proven it done`,
      hint: `run the proof: \`vouch card verify ${view.id}\``,
    });
  }
  const pass = newest.body;
  if (pass.verdict !== 'PASS') {
    return refuse({
      code: 'card_not_passing',
      message: `the newest verdict of card ${view.id}'s proof is ${pass.verdict} (${pass.reason}), attempt ${pass.attempt}: only a PASS closes it`,
      hint: `fix the work, then \`vouch card verify ${view.id}\``,
    });
  }
  if (view.lastClaim && view.lastClaim.seq > newest.seq) {
    return refuse({
      code: 'card_pass_before_claim',
      message: `the newest PASS (attempt ${pass.attempt}, ${pass.at}) was recorded before the newest claim (${view.lastClaim.body.at}): the work done since the claim is unproven`,
      hint: `run the proof again: \`vouch card verify ${view.id}\``,
    });
  }
  if (!closers(view.verify).includes(pass.by.role)) {
    return refuse({
      code: 'card_pass_not_independent',
      message: `card ${view.id} is verified independently, and its newest PASS was run by the ${pass.by.role}: a PASS counts only when a ${closers(view.verify).join(' or ')} ran it`,
      hint: `a verifier runs \`vouch card verify ${view.id}\` (VOUCH_ROLE=verifier)`,
    });
  }
  const judge = signatureJudge(home, requireSignature);
  // The pins in force, whatever spec they were taken for: the card's proof ran under them (cards/run.ts).
  const pins = currentPins(home, root);
  const scriptNow = view.proof.kind === 'script' ? readScript(root, view.proof) : null;
  const judged: StoredReceipt[] = [];
  for (const recorded of pass.receipts) {
    const found = await ledger.findReceipt(recorded.receipt);
    const receipt = found.kind === 'found' ? found.receipt : undefined;
    if (!receipt || receipt.hash !== recorded.hash || !receipt.intact) {
      return refuse({
        code: 'card_not_passing',
        message: `the PASS names receipt ${recorded.receipt} (${recorded.check_id}), which ${!receipt ? 'is no longer in the ledger (removed by gc?)' : 'no longer matches what the verdict recorded: the ledger was altered'}`,
        hint: `run the proof again: \`vouch card verify ${view.id}\``,
      });
    }
    const made = receipt.body.agent_run;
    if (made !== undefined && receipt.body.gate === undefined && receipt.body.remote === undefined) {
      return refuse({
        code: 'card_pass_self_made',
        message: `the PASS of ${recorded.check_id} (receipt ${recorded.receipt}) was recorded inside an agent run (${made.agent}, seen by ${made.marker}): evidence made inside an agent's run never closes a card`,
        hint: `a person (or CI) runs the proof outside the agent: \`vouch card verify ${view.id}\`; then complete it`,
      });
    }
    const check = checkFor(view, recorded, scriptNow);
    if (!check) {
      return refuse({
        code: 'card_stale',
        message: `the proof script ${view.proof.kind === 'script' ? view.proof.path : ''} cannot be read now, so the PASS cannot be judged fresh`,
        hint: 'the verifier restores the script as it was bound',
      });
    }
    const status = await judgeCurrent(files, check, receipt, ledger, judge, true, { home, verifierKey: null }, pins && checkPinsDigest(pins, check, root));
    if (status.status === 'STALE') {
      return refuse({
        code: 'card_stale',
        message: `the PASS of ${recorded.check_id} is STALE (${status.reason}): ${status.reason === 'definition_changed' ? 'the proof script changed since it ran' : (status.detail ?? 'files it covered changed since')}`,
        hint: `run the proof again on the files as they are: \`vouch card verify ${view.id}\``,
      });
    }
    if (status.status !== 'PASS') {
      return refuse({
        code: 'card_not_passing',
        message: `the PASS of ${recorded.check_id} does not hold now: ${status.status} (${status.reason})${status.detail ? `: ${status.detail}` : ''}`,
        hint: `\`vouch card verify ${view.id}\``,
      });
    }
    const since = await failedSince(ledger, receipt);
    if (since) {
      return refuse({
        code: 'card_failed_since',
        message: `${recorded.check_id} FAILed after the PASS (receipt ${since.body.id}, ${since.body.finished_at}, ${since.body.reason}), with the same definition: one green run does not outweigh a red one after it`,
        hint: `find out why, then \`vouch card verify ${view.id}\``,
      });
    }
    judged.push(receipt);
  }
  const written = await writtenSince(ledger, view, judged, scriptNow);
  if (written) return refuse(written);
  const landsAt = view.contract.lands_at;
  if (landsAt !== null) {
    const unlanded = await notLanded(root, view.id, landsAt, judged);
    if (unlanded) return refuse(unlanded);
  }
  return { ok: true, pass: newest };
}

/**
 * A card that names --lands-at BRANCH closes only on a PASS taken on a clean
 * commit that is on that branch: the proof ran on exactly the bytes of a
 * commit, and that commit has landed. The first reason it has not, if any.
 */
async function notLanded(root: string, card: string, branch: string, receipts: readonly StoredReceipt[]): Promise<Problem | undefined> {
  const hint = `land the work on ${branch}, then run the proof there: \`vouch card verify ${card}\``;
  for (const receipt of receipts) {
    const git = receipt.body.git;
    const what = `the PASS of ${receipt.body.check_id} (receipt ${receipt.body.id})`;
    if (git === null || git.head === null)
      return { code: 'card_not_landed', message: `card ${card} lands at ${branch}, and ${what} was taken outside any git commit`, hint };
    if (git.dirty)
      return {
        code: 'card_not_landed',
        message: `card ${card} lands at ${branch}, and ${what} was taken on uncommitted changes (at ${git.head.slice(0, 12)}): no commit holds the bytes it proved`,
        hint: `commit the work and land it on ${branch}, then \`vouch card verify ${card}\``,
      };
    const where = await landing(root, git.head, branch);
    if (where === 'landed') continue;
    const why =
      where === 'no_ref'
        ? `no branch or commit named ${branch} exists here`
        : where === 'no_git'
          ? 'the workspace is not in a git repository now'
          : `commit ${git.head.slice(0, 12)} it was taken at is not on ${branch}`;
    return { code: 'card_not_landed', message: `card ${card} lands at ${branch}, and ${what} has not landed: ${why}`, hint };
  }
  return undefined;
}

function checkFor(view: CardView, recorded: ProofReceipt, scriptNow: ReturnType<typeof readScript> | null): CheckDef | undefined {
  if (view.proof.kind === 'checks') return view.proof.checks.find((check) => check.id === recorded.check_id);
  if (!scriptNow?.ok) return undefined;
  return scriptCheck(view.id, view.proof, scriptNow.value.sha256);
}

/**
 * A FAIL of the same check definition recorded after this receipt (by
 * `vouch verify`, the gate, another card), if any. Every receipt of the
 * check after the PASS is read, however many: a window would let a FAIL
 * drown under enough green runs after it.
 */
export async function failedSince(ledger: Pick<Ledger, 'listReceipts'>, pass: StoredReceipt): Promise<StoredReceipt | undefined> {
  const newer = await ledger.listReceipts({ checkId: pass.body.check_id, afterSeq: pass.seq, limit: Number.MAX_SAFE_INTEGER });
  return newer.find(
    (receipt) => receipt.seq > pass.seq && receipt.intact && receipt.body.verdict === 'FAIL' && receipt.body.definition_digest === pass.body.definition_digest,
  );
}

/**
 * A PASS closes a card only when it is newer than the last change to what
 * it covers: an agent's recorded write of a path in the proof's scope (or a
 * write vouch could not read, which may have touched anything) after the
 * run began refuses it, even when the files hash as they did (changed, then
 * changed back). The trail is the agents' own account, so it can only
 * refuse a close here, never allow one.
 */
async function writtenSince(
  ledger: Ledger,
  view: CardView,
  receipts: readonly StoredReceipt[],
  scriptNow: ReturnType<typeof readScript> | null,
): Promise<Problem | undefined> {
  const started = Math.min(...receipts.map((r) => Date.parse(r.body.started_at)));
  if (!Number.isFinite(started)) return undefined;
  const checks = receipts.flatMap((r) => {
    const check = checkFor(view, { check_id: r.body.check_id } as ProofReceipt, scriptNow);
    return check ? [check] : [];
  });
  const matchers = checks.map(scopeMatcher);
  for (const entry of await ledger.entriesSince(new Date(started), ['trail'])) {
    const body = entry.body;
    if (body === null || entry.createdAt <= started) continue;
    const paths = Array.isArray(body.paths) ? body.paths.filter((p): p is string => typeof p === 'string') : [];
    const hit = paths.find((path) => matchers.some((match) => match(path)));
    if (hit === undefined && body.opaque_writes !== true) continue;
    const what = hit !== undefined ? `${hit} was written` : 'a write vouch could not read (it may have touched anything) was made';
    return {
      code: 'card_changed_since',
      message: `${what} after the PASS of card ${view.id} began (${typeof body.tool === 'string' ? body.tool : 'a tool'} in session ${typeof body.session === 'string' ? body.session : '?'}, ${new Date(entry.createdAt).toISOString()}): only a PASS newer than the last change closes a card`,
      hint: `run the proof again on the files as they are now: \`vouch card verify ${view.id}\``,
    };
  }
  return undefined;
}
