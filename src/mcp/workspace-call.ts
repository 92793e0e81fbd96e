import { fail } from '../core/problem.js';
import type { EngineContext } from '../engine/context.js';
import { selectChecks } from '../cli/session.js';
import { loadSpec } from '../spec/load.js';
import type { CheckDef, Spec } from '../spec/model.js';
import { trustState, type TrustState } from '../trust/trust.js';
import type { Workspace } from '../workspace/find.js';
import type { Progress } from './progress.js';
import type { Serial } from './serial.js';

/**
 * What one tool call may use. The workspace is fixed when the server starts;
 * the spec is read again on every call (`spec()`), so an edited vouch.yaml is
 * seen, and judged for trust, at the next call rather than cached from start.
 */
export interface WorkspaceCall {
  readonly workspace: Workspace;
  /** VOUCH_HOME: where trust lives. */
  readonly home: string;
  readonly env: NodeJS.ProcessEnv;
  /** Aborted when the client cancels this call or the server shuts down. */
  readonly signal: AbortSignal;
  readonly progress: Progress;
  /** Verifications run one at a time, as the CLI runs them; reads never wait. */
  readonly verifications: Serial;
  /** Reads and validates vouch.yaml now; a problem ends the call with an error result. */
  spec(): Spec;
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
  return {
    ...scope,
    signal,
    progress,
    spec() {
      const loaded = loadSpec(scope.workspace.specPath, scope.workspace.root);
      return loaded.ok ? loaded.value : fail(loaded.error);
    },
    engine(spec) {
      // Never cwdIsRoot: one server process serves concurrent calls, and its working directory is left alone.
      return { workspace: scope.workspace, spec, home: scope.home, actor: 'mcp', env: scope.env, ...(scope.hashWorker && { hashWorker: scope.hashWorker }) };
    },
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
