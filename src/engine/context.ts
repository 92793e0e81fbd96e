import type { BaseContext } from '../core/context.js';
import type { Actor, GateStamp, StoredReceipt } from '../receipt/receipt.js';
import type { CheckDef, Spec } from '../spec/model.js';
import type { Workspace } from '../workspace/find.js';

/** Progress of a verify, for front ends that show it. Checks run side by side: several may have started and not finished. */
export type VerifyEvent =
  | {
      readonly kind: 'check_started';
      readonly check: CheckDef;
      /** Its place in the selection, and the selection's size. */
      readonly index: number;
      readonly total: number;
    }
  | {
      readonly kind: 'check_finished';
      readonly check: CheckDef;
      readonly receipt: StoredReceipt;
    };

/** Everything the engine needs from its caller: the invocation's base context, and the workspace, spec and actor it verifies for. Front ends build one with engineContext(). */
export interface EngineContext extends BaseContext {
  readonly workspace: Workspace;
  readonly spec: Spec;
  readonly actor: Actor;
  /**
   * The caller made the workspace root the process's working directory for
   * the whole command (the CLI does, as git does), so files can be named by
   * their workspace-relative paths: shorter paths for the kernel to resolve
   * on every call. Checked again when each snapshot starts.
   */
  readonly cwdIsRoot?: boolean;
  /** Set when the agent gate runs checks to answer a stop: its receipts carry the stamp. */
  readonly gate?: GateStamp;
}

/** The engine's context from an invocation's base context: what the base has, and the workspace, spec, actor and extras given. */
export function engineContext(
  base: BaseContext,
  workspace: Workspace,
  spec: Spec,
  actor: Actor,
  extra: Pick<EngineContext, 'cwdIsRoot' | 'gate'> = {},
): EngineContext {
  return {
    workspace,
    spec,
    home: base.home,
    actor,
    env: base.env,
    ...(base.now && { now: base.now }),
    ...(base.signal && { signal: base.signal }),
    ...(base.hashWorker && { hashWorker: base.hashWorker }),
    ...extra,
  };
}
