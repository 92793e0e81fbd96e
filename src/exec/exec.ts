import { existsSync, realpathSync } from 'node:fs';
import { sep } from 'node:path';
import { agentRun } from '../clients/agent-run.js';
import { shellLine } from '../core/quote.js';
import { newId } from '../core/ids.js';
import type { GuardPlace } from '../guard/guard.js';
import { BWRAP } from '../sandbox/system.js';
import type { ExecPolicy } from '../spec/model.js';
import { VERSION } from '../version.js';
import { execArgs } from './args.js';
import { precheck, type ExecFinding } from './precheck.js';
import { findDenied } from './programs.js';
import type { ExecReceiptBody } from './receipt.js';
import { runSandboxed, type ExecOutcome, type OutputSink } from './run.js';
import { execView, type ViewProblem } from './view.js';
import { filesWritten, stampTree } from './written.js';

export interface ExecRequest {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly root: string;
  readonly policy: ExecPolicy;
  readonly protect: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  /** Where the guard reads the line (gate/guard.ts): the workspace's protected paths and wiring. */
  readonly place: GuardPlace;
  readonly stdout: OutputSink;
  readonly stderr: OutputSink;
  readonly now?: () => Date;
}

/** Why `vouch exec` ran nothing and recorded nothing: the policy cannot be held here. */
export type ExecRefusal = ViewProblem | { readonly reason: 'sandbox_unavailable'; readonly detail: string };

export type ExecResult = { readonly kind: 'done'; readonly body: ExecReceiptBody } | { readonly kind: 'refused'; readonly refusal: ExecRefusal };

/**
 * One command under the exec policy: the line read before it runs (a
 * denied program, a network program with the network off, a write to what
 * vouches: BLOCKED under `enforce`, recorded under `audit`), then run under
 * bubblewrap with the tree read-only but the writable paths, what vouches
 * read-only inside them, the network as the policy says; the writable paths
 * stamped before and after to name the files written. Never run unconfined:
 * no bubblewrap is a refusal. Returns the receipt's body to append.
 */
export async function execCommand(request: ExecRequest): Promise<ExecResult> {
  const { policy, root, env } = request;
  const view = execView(policy, root, env, request.protect);
  if (!view.ok) return { kind: 'refused', refusal: view.error };
  if (!existsSync(BWRAP))
    return {
      kind: 'refused',
      refusal: { reason: 'sandbox_unavailable', detail: `bubblewrap is not installed (${BWRAP} not found): vouch exec never runs a command unconfined` },
    };
  const findings: ExecFinding[] = precheck(request.argv, policy, request.place, env.PATH);
  const blocked = findings.length > 0 && policy.mode === 'enforce';
  let outcome: ExecOutcome | null = null;
  let written: ExecReceiptBody['files_written'] = null;
  if (!blocked) {
    const before = stampTree(view.value.writable);
    const hidden = findDenied(policy.deny, env.PATH, request.cwd).flatMap((program) => program.places);
    const keepUnderTmp = [root, request.cwd, env.HOME, realOrNull(env.HOME)].filter(
      (path): path is string => typeof path === 'string' && path.startsWith(`/tmp${sep}`),
    );
    const argv = execArgs({
      view: view.value,
      network: policy.network,
      keepUnderTmp: [...new Set(keepUnderTmp)],
      hidden,
      cwd: request.cwd,
      command: request.argv,
    });
    outcome = await runSandboxed({ argv, cwd: request.cwd, env, timeoutMs: policy.timeout * 1000, stdout: request.stdout, stderr: request.stderr });
    if (outcome.kind === 'sandbox_failed') return { kind: 'refused', refusal: { reason: 'sandbox_unavailable', detail: outcome.detail } };
    const after = stampTree(view.value.writable);
    written = before === null || after === null ? null : filesWritten(before, after, root, env.HOME);
    for (const absent of view.value.absent) if (existsSync(absent.path)) findings.push({ reason: 'made_vouching', path: absent.path, what: absent.what });
  }
  const ran = outcome?.kind === 'ran' ? outcome : null;
  const id = newId((request.now?.() ?? new Date()).getTime());
  const decision = blocked || (ran !== null && findings.some((f) => f.reason === 'made_vouching')) ? 'BLOCKED' : 'ALLOWED';
  const run = agentRun(env);
  const body: ExecReceiptBody = {
    v: 1,
    kind: 'exec',
    id,
    at: (request.now?.() ?? new Date()).toISOString(),
    subject: id,
    event: decision === 'BLOCKED' ? 'blocked' : 'allowed',
    decision,
    argv: [...request.argv],
    command: shellLine(request.argv),
    cwd: request.cwd,
    workspace: root,
    policy: { digest: policy.digest, network: policy.network, writable: policy.writable, deny: policy.deny, timeout: policy.timeout, mode: policy.mode },
    findings,
    exit_code: ran?.exitCode ?? null,
    timed_out: ran?.timedOut ?? false,
    duration_ms: ran?.durationMs ?? null,
    stdout_sha256: ran?.stdout.sha256 ?? null,
    stdout_bytes: ran?.stdout.bytes ?? null,
    stderr_sha256: ran?.stderr.sha256 ?? null,
    stderr_bytes: ran?.stderr.bytes ?? null,
    files_written: written,
    sandbox: { kind: 'bubblewrap', network: policy.network },
    agent: run?.agent ?? null,
    vouch: VERSION,
  };
  return { kind: 'done', body };
}

function realOrNull(path: string | undefined): string | null {
  if (path === undefined) return null;
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}
