import type { Sha256 } from '../core/digest.js';
import type { Problem } from '../core/problem.js';
import type { Reason, Status } from '../core/status.js';
import type { Ledger } from '../ledger/ledger.js';
import type { AgentRunRecord, GateStamp, StoredReceipt } from '../receipt/receipt.js';
import { diffManifests, type Group, type ManifestDiff } from '../scope/manifest.js';
import type { Snapshot } from '../scope/snapshot.js';
import type { CheckDef } from '../spec/model.js';
import { toolConfigDetail, toolConfigDrift } from '../trust/pins.js';
import { checkPinsDigest } from '../trust/pins-digest.js';
import { hasInputs, inputDetail, inputDrift } from '../trust/input-pins.js';
import { notAllowedWords, trustState } from '../trust/trust.js';
import type { EngineContext } from './context.js';
import { ALL_GROUPS, computeFingerprint, fingerprintsAndInputs, INPUT_GROUPS, type Fingerprint } from './fingerprint.js';
import { TreeReader } from './tree-reader.js';
import { describeChanges } from './verdict.js';
import { signatureJudge, type SignatureJudge } from './signature-status.js';
import type { Verifiers } from './remote-status.js';

/** A check's current standing: its latest receipt judged against the files as they are now. */
export interface CheckStatus {
  readonly id: string;
  readonly status: Status;
  readonly reason: Reason;
  readonly blocking: boolean;
  /** Id of the latest receipt, or null when there is none. */
  readonly receipt: string | null;
  /** One line for people. */
  readonly detail: string | null;
  /** When the latest receipt was recorded. */
  readonly recorded_at: string | null;
  /** For STALE by fingerprint: which paths changed since the receipt. */
  readonly changed?: ManifestDiff;
  /** For a receipt recorded by `vouch verify --remote`: the key id of the verifier that signed it. */
  readonly verifier?: string;
  /** True when the status is the latest receipt's own verdict, on files that still match it. */
  readonly fresh?: boolean;
  /** The check's fingerprint digest as the files are now, when it was computed. */
  readonly fingerprint?: Sha256;
  /** The latest receipt was recorded inside an agent run (see receipt.ts `agent_run`). */
  readonly agentRun?: AgentRunRecord;
  /** The latest receipt was recorded by the agent gate answering a stop. */
  readonly gate?: GateStamp;
  /** How long the latest receipt's run took. */
  readonly durationMs?: number;
}

export type StatusResult = { readonly kind: 'ok'; readonly statuses: CheckStatus[] } | { readonly kind: 'trust_error'; readonly problem: Problem };

export interface StatusOptions {
  /** The ledger if it exists (undefined when nothing was ever recorded); the caller's, never closed here. */
  readonly openLedger: () => Promise<Ledger | undefined>;
  /** Compute which paths changed for STALE checks (reads the stored manifest). */
  readonly explain?: boolean;
  /**
   * Give every status a fingerprint, also those decided without the files
   * (no receipt, a changed definition, a bad signature): of the inputs when
   * the status did not need more. The gate compares them between two stops.
   * Computed in the same walk as the others.
   */
  readonly everyFingerprint?: boolean;
}

export async function checkStatuses(ctx: EngineContext, checks: readonly CheckDef[], options: StatusOptions): Promise<StatusResult> {
  const trust = trustState(ctx.home, ctx.workspace.root, ctx.spec.sha256);
  if (!trust.ok) return { kind: 'trust_error', problem: trust.error };
  const ledger = await options.openLedger();
  const reader = new TreeReader(ctx);
  try {
    const latest = ledger ? await ledger.latestReceipts(checks.map((c) => c.id)) : new Map<string, StoredReceipt>();
    const signature = signatureJudge(ctx.home, ctx.spec.requireSignature);
    // First what can be said without the files, then one walk of the tree
    // for every check that needs it: a file covered by several checks is
    // looked at once.
    const early: (CheckStatus | undefined)[] = [];
    // A tool config that is not as the person allowed it makes its checks UNKNOWN, as an edited spec does.
    const configs =
      trust.value.kind === 'allowed'
        ? toolConfigDrift(trust.value.record.pins, checks, ctx.workspace.root, ctx.spec.toolConfigs, ctx.env)
        : new Map<string, string[]>();
    for (const check of checks) {
      const receipt = latest.get(check.id);
      const drifted = configs.get(check.id);
      if (drifted) {
        early.push(make(check, 'UNKNOWN', 'tool_config_changed', receipt, toolConfigDetail(drifted)));
      } else if (trust.value.kind !== 'allowed') {
        early.push(make(check, 'UNKNOWN', 'spec_not_allowed', receipt, notAllowedWords(trust.value.kind)));
      } else {
        early.push(await judgeFromRecord(check, receipt, signature, checkPinsDigest(trust.value.record.pins, check, ctx.workspace.root)));
      }
    }
    const requests = checks.flatMap((check, i) => {
      if (early[i] === undefined) return [{ check, groups: groupsFor(latest.get(check.id)!) }];
      return options.everyFingerprint ? [{ check, groups: INPUT_GROUPS }] : [];
    });
    // Inputs not as the person allowed them make a check UNKNOWN whatever its receipt says: read in the same walk.
    const pins = trust.value.kind === 'allowed' ? trust.value.record.pins : undefined;
    const pinned = pins ? checks.filter((check) => hasInputs(check) && !configs.has(check.id)) : [];
    const scanned = requests.length + pinned.length === 0 ? undefined : await fingerprintsAndInputs(reader.snapshot(), requests, pinned);
    const now = new Map(requests.map(({ check }, i) => [check.id, scanned!.fingerprints[i]!]));
    const verifiers = { home: ctx.home, verifierKey: ctx.spec.verifierKey };
    const statuses: CheckStatus[] = [];
    for (const [i, check] of checks.entries()) {
      const fingerprint = now.get(check.id);
      const inputs = scanned?.inputs.get(check.id);
      const drift = inputs && inputDrift(check, pins?.inputs?.[check.id], inputs);
      const status = drift
        ? make(check, 'UNKNOWN', 'input_changed', latest.get(check.id), inputDetail(check.id, drift))
        : (early[i] ?? (await judgeOnFiles(check, latest.get(check.id)!, fingerprint!, ledger, options.explain ?? true, verifiers)));
      statuses.push(options.everyFingerprint && status.fingerprint === undefined && fingerprint ? { ...status, fingerprint: fingerprint.digest } : status);
    }
    return { kind: 'ok', statuses };
  } finally {
    reader.close();
  }
}

/**
 * One check's standing: this receipt judged against the files as they are
 * now (`snapshot` is asked only when the files matter). Exported for task
 * cards, which judge the receipt their verdict names (not the check's
 * latest) against the definition they froze. `pinsDigest`: the digest of
 * the pins in force for this check (pins-digest.ts); undefined when no
 * trust is in force to compare with.
 */
export async function judgeCurrent(
  snapshot: () => Snapshot,
  check: CheckDef,
  receipt: StoredReceipt | undefined,
  ledger: Ledger | undefined,
  signature: SignatureJudge,
  explain: boolean,
  verifiers?: Verifiers,
  pinsDigest?: Sha256,
): Promise<CheckStatus> {
  const early = await judgeFromRecord(check, receipt, signature, pinsDigest);
  if (early) return early;
  // Only a receipt leaves anything to judge on the files.
  const now = await computeFingerprint(snapshot(), check, groupsFor(receipt!));
  return judgeOnFiles(check, receipt!, now, ledger, explain, verifiers);
}

/**
 * The status decided by the record alone (receipt, its hash and signature,
 * the definition, the pins it ran under), or undefined when the files must
 * be looked at.
 */
async function judgeFromRecord(
  check: CheckDef,
  receipt: StoredReceipt | undefined,
  signature: SignatureJudge,
  pinsDigest: Sha256 | undefined,
): Promise<CheckStatus | undefined> {
  if (!receipt) return make(check, 'UNKNOWN', 'no_receipt', undefined, `no receipt yet: run \`vouch verify ${check.id}\``);
  if (!receipt.intact) {
    return make(check, 'UNKNOWN', 'ledger_corrupt', receipt, 'the latest receipt no longer matches its hash: the ledger was altered or damaged');
  }
  const unsigned = await signature(receipt);
  if (unsigned) return make(check, 'UNKNOWN', unsigned.reason, receipt, unsigned.detail);
  // A remote receipt's definition is judged after its verifier's signature (remote-status.ts).
  if (!receipt.body.remote && receipt.body.definition_digest !== check.definitionDigest) {
    return make(check, 'STALE', 'definition_changed', receipt, 'the check definition changed since this receipt');
  }
  // A receipt counts only under the pins a person allowed; a remote one is judged by its verifier's signature instead.
  if (!receipt.body.remote && pinsDigest !== undefined && receipt.body.pins_digest !== pinsDigest) {
    return make(
      check,
      'UNKNOWN',
      'pins_mismatch',
      receipt,
      receipt.body.pins_digest === undefined
        ? 'the receipt was recorded by an earlier vouch, which did not record the pins it ran under'
        : 'the receipt was made under other pins than the trust record in force (another PATH, program or tool config: another `vouch allow`, in this VOUCH_HOME or another)',
    );
  }
  return undefined;
}

/**
 * What a receipt is compared with: a remote receipt with the sources and
 * tests only (its artifacts were built on the verifier), a receipt of a run
 * that never started with the inputs it covered, any other with everything.
 */
function groupsFor(receipt: StoredReceipt): readonly Group[] {
  return !receipt.body.remote && receipt.body.ran ? ALL_GROUPS : INPUT_GROUPS;
}

async function judgeOnFiles(
  check: CheckDef,
  receipt: StoredReceipt,
  now: Fingerprint,
  ledger: Ledger | undefined,
  explain: boolean,
  verifiers: Verifiers | undefined,
): Promise<CheckStatus> {
  const body = receipt.body;
  if (body.remote) {
    const { judgeRemote } = await import('./remote-status.js');
    const judged = await judgeRemote(check, receipt, now, ledger, verifiers);
    return {
      ...make(check, judged.status, judged.reason, receipt, judged.detail),
      ...(judged.changed && { changed: judged.changed }),
      ...(judged.verifier && { verifier: judged.verifier }),
      ...(judged.fresh && { fresh: true }),
      ...(judged.fingerprint && { fingerprint: judged.fingerprint }),
    };
  }
  // Problems come first: a symlink leading outside is not in any manifest,
  // so an equal digest alone must not vouch for the scope.
  const hard = now.problems.find((p) => p.reason !== 'artifact_missing');
  if (hard) return { ...make(check, 'UNKNOWN', hard.reason, receipt, `${hard.path}: ${hard.detail}`), fingerprint: now.digest };
  if (now.digest === body.fingerprint) {
    return { ...make(check, body.verdict, body.reason, receipt, body.detail), fresh: true, fingerprint: now.digest };
  }
  const changed = explain && ledger ? await changesSince(ledger, body.manifest_digest, now.manifest) : undefined;
  return {
    ...make(check, 'STALE', 'fingerprint_changed', receipt, changed ? describeChanges(changed) : 'files in scope changed since this receipt'),
    ...(changed && { changed }),
    fingerprint: now.digest,
  };
}

async function changesSince(ledger: Ledger, digest: Sha256, current: Parameters<typeof diffManifests>[1]): Promise<ManifestDiff | undefined> {
  const old = await ledger.getManifest(digest);
  return old ? diffManifests(old, current) : undefined;
}

function make(check: CheckDef, status: Status, reason: Reason, receipt: StoredReceipt | undefined, detail: string | null): CheckStatus {
  return {
    id: check.id,
    status,
    reason,
    blocking: check.block,
    receipt: receipt?.body.id ?? null,
    detail,
    recorded_at: receipt?.body.finished_at ?? null,
    ...(receipt?.body.agent_run && { agentRun: receipt.body.agent_run }),
    ...(receipt?.body.gate && { gate: receipt.body.gate }),
    ...(receipt && { durationMs: receipt.body.duration_ms }),
  };
}
