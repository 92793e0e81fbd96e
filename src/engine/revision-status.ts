import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256, type Sha256 } from '../core/digest.js';
import type { Problem } from '../core/problem.js';
import type { Ledger } from '../ledger/ledger.js';
import type { StoredReceipt } from '../receipt/receipt.js';
import { Snapshot } from '../scope/snapshot.js';
import type { CheckDef } from '../spec/model.js';
import { SPEC_FILE } from '../workspace/spec-file.js';
import { checkPinsDigest } from '../trust/pins-digest.js';
import { trustState } from '../trust/trust.js';
import type { EngineContext } from './context.js';
import { ALL_GROUPS, computeFingerprints } from './fingerprint.js';
import { revisionTree, type Revision } from './revision-tree.js';
import { signatureJudge } from './signature-status.js';
import { checkStatuses, type CheckStatus, type StatusOptions } from './status.js';

export type RevisionStatusResult =
  /** `differs`: the workspace's paths where the revision and the work tree differ (empty when they are the same). */
  | { readonly kind: 'ok'; readonly statuses: CheckStatus[]; readonly differs: readonly string[] }
  | { readonly kind: 'trust_error'; readonly problem: Problem }
  | { readonly kind: 'no_git' }
  | { readonly kind: 'unreadable'; readonly detail: string };

/** Work-tree answers that stand for any revision: they are about trust and the configs a person allowed, not about the files. */
const ABOUT_TRUST = new Set(['spec_not_allowed', 'tool_config_changed', 'input_changed', 'executable_changed']);

/** How many earlier PASSes of one state are looked at, newest first (as reuse does). */
const CANDIDATES = 8;

/**
 * Each check judged on a revision's files (a commit being pushed, the index
 * being committed) rather than the work tree's. Nothing runs:
 *
 * - where the revision and the work tree hold the same files, the work
 *   tree's status is the revision's;
 * - else the revision's files are checked out into a temporary directory
 *   and fingerprinted there; a check whose fingerprint equals the work
 *   tree's keeps the work tree's status; one with an earlier intact PASS of
 *   exactly that fingerprint (same definition, pins and signature rules as
 *   status) is PASS from that receipt;
 * - anything else is UNKNOWN `work_tree_differs`: no receipt proves the
 *   revision's files, and none can be made here without running the check
 *   on files the work tree does not hold.
 */
export async function revisionStatuses(
  ctx: EngineContext,
  checks: readonly CheckDef[],
  revision: Revision,
  options: StatusOptions,
): Promise<RevisionStatusResult> {
  const tree = await revisionTree(ctx.workspace.root, revision, ctx.env);
  if (tree.kind === 'no_git' || tree.kind === 'unreadable') return tree;
  const work = await checkStatuses(ctx, checks, { ...options, everyFingerprint: tree.kind === 'differs' });
  if (work.kind === 'trust_error') {
    if (tree.kind === 'differs') tree.close();
    return work;
  }
  if (tree.kind === 'same') return { kind: 'ok', statuses: work.statuses, differs: [] };
  try {
    return { kind: 'ok', statuses: await judgeRevision(ctx, checks, work.statuses, tree.root, tree.paths, options), differs: tree.paths };
  } finally {
    tree.close();
  }
}

async function judgeRevision(
  ctx: EngineContext,
  checks: readonly CheckDef[],
  work: readonly CheckStatus[],
  root: string,
  differs: readonly string[],
  options: StatusOptions,
): Promise<CheckStatus[]> {
  const specSame = fileDigest(join(root, SPEC_FILE)) === ctx.spec.sha256;
  const fingerprints = specSame
    ? await computeFingerprints(
        new Snapshot(root, { readStart: new Date() }),
        checks.map((check) => ({ check, groups: ALL_GROUPS })),
      )
    : [];
  const trust = trustState(ctx.home, ctx.workspace.root, ctx.spec.sha256);
  const pins = trust.ok && trust.value.kind === 'allowed' ? trust.value.record.pins : undefined;
  const ledger = await options.openLedger();
  const signature = signatureJudge(ctx.home, ctx.spec.requireSignature);
  const statuses: CheckStatus[] = [];
  for (const [i, check] of checks.entries()) {
    const own = work[i]!;
    const fingerprint = fingerprints[i];
    if (ABOUT_TRUST.has(own.reason)) {
      statuses.push(own);
    } else if (!fingerprint) {
      statuses.push(
        unknown(check, 'spec_not_allowed', `the revision's ${SPEC_FILE} is not the one allowed in this workspace: it was not judged by its own checks`),
      );
    } else if (fingerprint.problems.some((p) => p.reason !== 'artifact_missing')) {
      const hard = fingerprint.problems.find((p) => p.reason !== 'artifact_missing')!;
      statuses.push(unknown(check, hard.reason, `in the revision: ${hard.path}: ${hard.detail}`));
    } else if (own.fingerprint === fingerprint.digest) {
      statuses.push(own);
    } else {
      const pass = pins && ledger ? await provenBy(ledger, check, fingerprint.digest, checkPinsDigest(pins, check, ctx.workspace.root), signature) : null;
      statuses.push(pass ? passFrom(check, pass, fingerprint.digest) : unknown(check, 'work_tree_differs', differsDetail(differs)));
    }
  }
  return statuses;
}

/** An earlier PASS that counts for exactly this state, or null. */
async function provenBy(
  ledger: Ledger,
  check: CheckDef,
  fingerprint: Sha256,
  pinsDigest: Sha256,
  signature: ReturnType<typeof signatureJudge>,
): Promise<StoredReceipt | null> {
  for (const earlier of await ledger.passesOf(check.id, fingerprint, CANDIDATES)) {
    const body = earlier.body;
    if (!earlier.intact || body.verdict !== 'PASS' || body.remote || body.fingerprint !== fingerprint) continue;
    if (body.definition_digest !== check.definitionDigest || body.pins_digest !== pinsDigest) continue;
    if ((await signature(earlier)) !== undefined) continue;
    return earlier;
  }
  return null;
}

function passFrom(check: CheckDef, receipt: StoredReceipt, fingerprint: Sha256): CheckStatus {
  return {
    id: check.id,
    status: 'PASS',
    reason: 'ok',
    blocking: check.block,
    receipt: receipt.body.id,
    detail: `receipt ${receipt.body.id.slice(0, 12)} passed on exactly these files`,
    recorded_at: receipt.body.finished_at,
    fresh: true,
    fingerprint,
    durationMs: receipt.body.duration_ms,
    ...(receipt.body.agent_run && { agentRun: receipt.body.agent_run }),
    ...(receipt.body.gate && { gate: receipt.body.gate }),
  };
}

function unknown(check: CheckDef, reason: CheckStatus['reason'], detail: string): CheckStatus {
  return { id: check.id, status: 'UNKNOWN', reason, blocking: check.block, receipt: null, detail, recorded_at: null };
}

function differsDetail(differs: readonly string[]): string {
  const shown = differs.slice(0, 3).join(', ');
  const more = differs.length > 3 ? ` and ${differs.length - 3} more` : '';
  return `the work tree differs from it (${shown}${more}) and no receipt passed on its files`;
}

function fileDigest(path: string): Sha256 | null {
  try {
    return sha256(readFileSync(path));
  } catch {
    return null;
  }
}
