import { fail } from '../core/problem.js';
import type { EngineContext } from '../engine/context.js';
import { Session } from '../session/session.js';
import { selectChecks } from '../spec/select.js';
import type { CheckDef, Spec } from '../spec/model.js';
import { trustState, type TrustState } from '../trust/trust.js';
import type { Workspace } from '../workspace/find.js';
import type { Progress } from './progress.js';
import type { Serial } from './serial.js';

/**
 * What one tool call may use: one Session per call (its spec read once,
 * its ledgers opened once and closed when the call ends). The workspace is
 * fixed when the server starts; the spec is read again at every call, so an
 * edited vouch.yaml is seen, and judged for trust, at the next call.
 */
export interface WorkspaceCall {
  readonly session: Session;
  readonly workspace: Workspace;
  /** VOUCH_HOME: where trust lives. */
  readonly home: string;
  readonly env: NodeJS.ProcessEnv;
  /** Aborted when the client cancels this call or the server shuts down. */
  readonly signal: AbortSignal;
  readonly progress: Progress;
  /** Verifications run one at a time, as the CLI runs them; reads never wait. */
  readonly verifications: Serial;
  /** The spec; a problem ends the call with an error result. */
  spec(): Promise<Spec>;
  engine(spec: Spec): EngineContext;
}

export interface ServerScope {
  readonly workspace: Workspace;
  readonly home: string;
  readonly env: NodeJS.ProcessEnv;
  readonly verifications: Serial;
  /** The built hash worker script; absent, files are hashed on the main thread only. */
  readonly hashWorker?: URL;
}

export function workspaceCall(scope: ServerScope, signal: AbortSignal, progress: Progress): WorkspaceCall {
  const session = new Session({
    env: scope.env,
    cwd: scope.workspace.root,
    dir: scope.workspace.root,
    signal,
    ...(scope.hashWorker && { hashWorker: scope.hashWorker }),
  });
  return {
    session,
    workspace: scope.workspace,
    home: session.home,
    env: scope.env,
    verifications: scope.verifications,
    signal,
    progress,
    spec: () => session.spec(scope.workspace),
    // Never cwdIsRoot: one server process serves concurrent calls, and its working directory is left alone.
    engine: (spec) => session.engine(scope.workspace, spec, 'mcp'),
  };
}

/** Whether this exact spec is allowed in this workspace; an unreadable trust store ends the call. */
export function specTrust(call: WorkspaceCall, spec: Spec): TrustState['kind'] {
  const state = trustState(call.home, call.workspace.root, spec.sha256);
  return state.ok ? state.value.kind : fail(state.error);
}

/** The named checks, in the order given, or a check_not_found problem naming the unknown id. */
export function namedChecks(spec: Spec, ids: readonly string[] | undefined): CheckDef[] {
  return selectChecks(spec, ids ?? [], 'call vouch_checks to list the configured check ids');
}
