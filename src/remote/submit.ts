import { packTarGz } from '../archive/pack.js';
import { computeFingerprints, INPUT_GROUPS } from '../engine/fingerprint.js';
import type { TreeReader } from '../engine/tree-reader.js';
import type { Keyring } from '../crypto/keyring.js';
import type { ReceiptBody } from '../receipt/receipt.js';
import type { Manifest } from '../scope/manifest.js';
import type { CheckDef, Spec } from '../spec/model.js';
import { bindsTo, verifySignedBody } from '../engine/remote-binding.js';
import { randomBytes } from 'node:crypto';
import type { GitState } from '../engine/git.js';
import type { Reply } from './http.js';
import { callWithRetry } from './retry.js';
import { collectTree } from './tree.js';

export interface RemoteRequest {
  readonly base: URL;
  readonly token: string;
  /** Exactly the pinned verifier key: a receipt signed by any other is not accepted. */
  readonly pinned: Keyring;
  /** Reads the workspace: once to pack it, once more when the job is done. */
  readonly files: TreeReader;
  readonly spec: Spec;
  readonly checks: readonly CheckDef[];
  /** What git says of this work tree, sent as the client's claim (the verifier never runs git on the upload). */
  readonly git: GitState | null;
  /** Give up waiting for the job after this long (transient failures are retried within it). */
  readonly waitMs: number;
  readonly pollMs: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (event: RemoteProgress) => void;
}

export type RemoteProgress =
  | { readonly kind: 'packed'; readonly files: number; readonly bytes: number; readonly skipped: number }
  | { readonly kind: 'submitted'; readonly job: string }
  | { readonly kind: 'waiting'; readonly job: string; readonly state: string; readonly seconds: number }
  | { readonly kind: 'retrying'; readonly detail: string; readonly inMs: number };

export type RemoteReason = 'remote_unavailable' | 'remote_refused' | 'remote_unverified';

/** One check's answer from the verifier: an accepted receipt, or why there is none to believe. */
export type RemoteOutcome =
  | {
      readonly kind: 'accepted';
      readonly check: CheckDef;
      readonly job: string;
      readonly receiptId: string;
      /** The verifier's signed canonical body, its signature and key. */
      readonly text: string;
      readonly signature: string;
      readonly keyid: string;
      readonly body: ReceiptBody;
      readonly manifest: Manifest;
    }
  | { readonly kind: 'unknown'; readonly check: CheckDef; readonly reason: RemoteReason; readonly detail: string; readonly job: string | null };

/**
 * Sends the tree to the verifier, waits for the job, and accepts each
 * receipt only if it is signed by the pinned key and binds to this spec,
 * this check and these local files. Anything else is UNKNOWN with the
 * reason: nothing is run locally in its place.
 */
export async function verifyRemotely(request: RemoteRequest): Promise<RemoteOutcome[]> {
  const everyone = (reason: RemoteReason, detail: string, job: string | null = null): RemoteOutcome[] =>
    request.checks.map((check) => ({ kind: 'unknown', check, reason, detail, job }));
  const fromReply = (reply: Exclude<Reply, { kind: 'ok' }>, job: string | null = null): RemoteOutcome[] =>
    reply.kind === 'unavailable' ? everyone('remote_unavailable', reply.detail, job) : everyone('remote_refused', refusalText(reply), job);

  const tree = await collectTree(request.files.snapshot(), request.checks);
  const archive = await packTarGz(tree.files);
  request.onProgress?.({ kind: 'packed', files: tree.files.length, bytes: archive.length, skipped: tree.skipped.length });

  // Fresh for this job: every receipt of it must carry the nonce, so a server cannot pass off a receipt of another job.
  const nonce = randomBytes(32).toString('hex');
  const query = new URLSearchParams([
    ['spec_sha256', request.spec.sha256],
    ...request.checks.map((check): [string, string] => ['check', check.id]),
    ['nonce', nonce],
    ...(request.git
      ? [...(request.git.head ? [['git_head', request.git.head] as [string, string]] : []), ['git_dirty', request.git.dirty ? '1' : '0'] as [string, string]]
      : []),
  ]);
  const started = Date.now();
  const deadline = started + request.waitMs;
  const onRetry = (detail: string, inMs: number) => request.onProgress?.({ kind: 'retrying', detail, inMs });
  const call = (path: string, body?: Buffer) =>
    callWithRetry(
      request.base,
      { method: body ? 'POST' : 'GET', path, token: request.token, ...(body && { body }), ...(request.signal && { signal: request.signal }) },
      deadline,
      onRetry,
    );
  const submitted = await call(`v1/jobs?${query.toString()}`, archive);
  if (submitted.kind !== 'ok') return fromReply(submitted);
  const job = (submitted.body.job as { id?: unknown } | undefined)?.id;
  if (typeof job !== 'string') return everyone('remote_unavailable', 'the server accepted the job but named no job id');
  request.onProgress?.({ kind: 'submitted', job });

  let view: JobAnswer | undefined;
  for (;;) {
    if (request.signal?.aborted) return everyone('remote_unavailable', 'stopped while waiting for the verifier', job);
    const polled = await call(`v1/jobs/${job}`);
    if (polled.kind !== 'ok') return fromReply(polled, job);
    view = polled.body.job as JobAnswer | undefined;
    if (!view || typeof view.state !== 'string') return everyone('remote_unavailable', 'the server answered without a job state', job);
    if (view.state === 'done' || view.state === 'failed') break;
    const waited = Date.now() - started;
    if (waited > request.waitMs) return everyone('remote_unavailable', `job ${job} was still ${view.state} after ${Math.round(waited / 1000)} s`, job);
    request.onProgress?.({ kind: 'waiting', job, state: view.state, seconds: Math.round(waited / 1000) });
    await new Promise((resolve) => setTimeout(resolve, request.pollMs));
  }
  if (view.state === 'failed') {
    return everyone(
      'remote_refused',
      `the verifier did not run job ${job}: ${view.error?.message ?? 'no reason given'} (${view.error?.code ?? 'failed'})`,
      job,
    );
  }
  const listed: readonly { readonly id: string; readonly check_id: string }[] = Array.isArray(view.receipts) ? view.receipts : [];
  // The files as they are now, not as packed: an edit while the job ran must not ride on its receipt.
  const now = await computeFingerprints(
    request.files.snapshot(),
    request.checks.map((check) => ({ check, groups: INPUT_GROUPS })),
  );
  const outcomes: RemoteOutcome[] = [];
  for (const [i, check] of request.checks.entries()) {
    const entries = listed.filter((entry) => entry.check_id === check.id);
    if (entries.length !== 1) {
      outcomes.push({
        kind: 'unknown',
        check,
        reason: 'remote_unverified',
        detail: `job ${job} lists ${entries.length} receipts for this check, not exactly one`,
        job,
      });
      continue;
    }
    outcomes.push(await fetchAndBind(request, call, check, { job, nonce }, entries[0]!.id, now[i]!.manifest));
  }
  return outcomes;
}

interface JobAnswer {
  readonly state: string;
  readonly error?: { readonly code?: string; readonly message?: string } | null;
  readonly receipts?: readonly { readonly id: string; readonly check_id: string }[];
}

async function fetchAndBind(
  request: RemoteRequest,
  call: (path: string) => Promise<Reply>,
  check: CheckDef,
  { job, nonce }: { readonly job: string; readonly nonce: string },
  receiptId: string,
  localInputs: Manifest,
): Promise<RemoteOutcome> {
  const unverified = (detail: string): RemoteOutcome => ({ kind: 'unknown', check, reason: 'remote_unverified', detail, job });
  if (!/^[0-9a-z]{26}$/.test(receiptId)) return unverified('the job names a receipt id that is not one');
  const fetched = await call(`v1/receipts/${receiptId}`);
  if (fetched.kind === 'unavailable') return { kind: 'unknown', check, reason: 'remote_unavailable', detail: fetched.detail, job };
  if (fetched.kind === 'refused') return { kind: 'unknown', check, reason: 'remote_refused', detail: refusalText(fetched), job };
  const receipt = fetched.body.receipt as { body?: unknown; signature?: unknown } | undefined;
  if (typeof receipt?.body !== 'string') return unverified('the server sent no receipt body');
  const signature = typeof receipt.signature === 'string' ? receipt.signature : null;
  const signed = verifySignedBody(receipt.body, signature, request.pinned);
  if (!signed.ok) return unverified(`receipt ${receiptId}: ${signed.detail}`);
  if (signed.body.id !== receiptId) return unverified(`the signed receipt is ${signed.body.id}, not ${receiptId} as the job says`);
  const manifest = (fetched.body.manifest ?? null) as Manifest | null;
  const unbound = bindsTo(signed.body, { specSha256: request.spec.sha256, check, job, nonce }, manifest, localInputs);
  if (unbound !== undefined) return unverified(`receipt ${receiptId} does not bind: ${unbound}`);
  return { kind: 'accepted', check, job, receiptId, text: receipt.body, signature: signature!, keyid: signed.keyid, body: signed.body, manifest: manifest! };
}

function refusalText(reply: Extract<Reply, { kind: 'refused' }>): string {
  const limit = reply.limit !== undefined ? `; limit ${JSON.stringify(reply.limit)}` : '';
  const found = reply.found !== undefined ? `, found ${JSON.stringify(reply.found)}` : '';
  return `${reply.code} (HTTP ${reply.status}): ${reply.message}${limit}${found}${reply.hint ? `. ${reply.hint}` : ''}`;
}
