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

/** Everything the engine needs from its caller. Front ends build one. */
export interface EngineContext {
  readonly workspace: Workspace;
  readonly spec: Spec;
  /** VOUCH_HOME: where trust lives. */
  readonly home: string;
  readonly actor: Actor;
  /** The caller's environment; the check receives only an allowlist of it. */
  readonly env: NodeJS.ProcessEnv;
  readonly now?: () => Date;
  /** The built hash worker script (dist/hash-worker.js); absent, files are hashed on the main thread only. */
  readonly hashWorker?: URL;
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
