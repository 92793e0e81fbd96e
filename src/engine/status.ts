import type { Sha256 } from '../core/digest.js';
import type { Problem } from '../core/problem.js';
import type { Reason, Status } from '../core/status.js';
import type { Ledger } from '../ledger/ledger.js';
import type { StoredReceipt } from '../receipt/receipt.js';
import { diffManifests, type ManifestDiff } from '../scope/manifest.js';
import type { CheckDef } from '../spec/model.js';
import { trustState } from '../trust/trust.js';
import type { EngineContext } from './context.js';
import { ALL_GROUPS, computeFingerprint, INPUT_GROUPS } from './fingerprint.js';
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
}

export type StatusResult = { readonly kind: 'ok'; readonly statuses: CheckStatus[] } | { readonly kind: 'trust_error'; readonly problem: Problem };

export interface StatusOptions {
  /** Opens the ledger if it exists; undefined when nothing was ever recorded. */
  readonly openLedger: () => Ledger | undefined;
  /** Compute which paths changed for STALE checks (reads the stored manifest). */
  readonly explain?: boolean;
}

export async function checkStatuses(ctx: EngineContext, checks: readonly CheckDef[], options: StatusOptions): Promise<StatusResult> {
  const trust = trustState(ctx.home, ctx.workspace.root, ctx.spec.sha256);
  if (!trust.ok) return { kind: 'trust_error', problem: trust.error };
  const ledger = options.openLedger();
  try {
    const latest = ledger ? await ledger.latestReceipts(checks.map((c) => c.id)) : new Map<string, StoredReceipt>();
    const statuses: CheckStatus[] = [];
    const signature = signatureJudge(ctx.home, ctx.spec.requireSignature);
    for (const check of checks) {
      const receipt = latest.get(check.id);
      if (trust.value.kind !== 'allowed') {
        statuses.push(make(check, 'UNKNOWN', 'spec_not_allowed', receipt, trust.value.kind === 'changed' ? 'vouch.yaml changed since it was allowed' : 'vouch.yaml was never allowed in this workspace'));
        continue;
      }
      statuses.push(await judgeCurrent(ctx.workspace.root, check, receipt, ledger, signature, options.explain ?? true, { home: ctx.home, verifierKey: ctx.spec.verifierKey }));
    }
    return { kind: 'ok', statuses };
  } finally {
    await ledger?.close();
  }
}

/**
 * One check's standing: this receipt judged against the files under `root`
 * as they are now. Exported for task cards, which judge the receipt their
 * verdict names (not the check's latest) against the definition they froze.
 */
export async function judgeCurrent(
  root: string,
  check: CheckDef,
  receipt: StoredReceipt | undefined,
  ledger: Ledger | undefined,
  signature: SignatureJudge,
  explain: boolean,
  verifiers?: Verifiers,
): Promise<CheckStatus> {
  if (!receipt) return make(check, 'UNKNOWN', 'no_receipt', undefined, `no receipt yet: run \`vouch verify ${check.id}\``);
  if (!receipt.intact) {
    return make(check, 'UNKNOWN', 'ledger_corrupt', receipt, 'the latest receipt no longer matches its hash: the ledger was altered or damaged');
  }
  const unsigned = await signature(receipt);
  if (unsigned) return make(check, 'UNKNOWN', unsigned.reason, receipt, unsigned.detail);
  const body = receipt.body;
  if (body.remote) {
    const { judgeRemote } = await import('./remote-status.js');
    const judged = await judgeRemote(root, check, receipt, ledger, verifiers);
    return {
      ...make(check, judged.status, judged.reason, receipt, judged.detail),
      ...(judged.changed && { changed: judged.changed }),
      ...(judged.verifier && { verifier: judged.verifier }),
      ...(judged.fresh && { fresh: true }),
      ...(judged.fingerprint && { fingerprint: judged.fingerprint }),
    };
  }
  if (body.definition_digest !== check.definitionDigest) {
    return make(check, 'STALE', 'definition_changed', receipt, 'the check definition changed since this receipt');
  }
  // A receipt for a run that never started covered only the inputs.
  const now = computeFingerprint(root, check, body.ran ? ALL_GROUPS : INPUT_GROUPS);
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
  };
}
