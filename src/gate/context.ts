import type { Ledger } from '../ledger/ledger.js';
import type { Workspace } from '../workspace/find.js';
import type { Client } from './entries.js';

/** Everything the gate needs from the front end that calls it (a hook). */
export interface GateContext {
  /** VOUCH_HOME: where trust lives. */
  readonly home: string;
  /** The caller's environment; checks the gate runs receive only an allowlist of it. */
  readonly env: NodeJS.ProcessEnv;
  /** Opens the workspace's ledger if it exists. */
  readonly openLedgerForRead: (workspace: Workspace) => Ledger | undefined;
  /** Opens (creating if needed) the workspace's ledger. */
  readonly openLedgerForWrite: (workspace: Workspace) => Ledger;
  /** Aborted when the hook process is asked to stop. */
  readonly signal?: AbortSignal;
  readonly now?: () => Date;
  /** The built hash worker script (dist/hash-worker.js); absent, files are hashed on the main thread only. */
  readonly hashWorker?: URL;
}

/** One stop the client asks the gate about. */
export interface StopRequest {
  readonly client: Client;
  /** Stop (the session's agent) or SubagentStop (one subagent). */
  readonly event: 'Stop' | 'SubagentStop';
  readonly session: string;
  /** The subagent stopping; null for the main agent. */
  readonly agentId: string | null;
  /** The directory the client works in. */
  readonly cwd: string;
  /** The client says it is already continuing because of an earlier block. Recorded; never lets a block go. */
  readonly stopHookActive: boolean;
  /** The agent's last message (its claim that it is done); null when it said nothing. */
  readonly claim: string | null;
  /** SubagentStop: the subagent's type as the client names it. */
  readonly agentType: string | null;
  /** SubagentStop: the client's transcript of the subagent (its first entry is the spawn prompt). */
  readonly transcriptPath: string | null;
  /** Stop: subagents the client says are still running. */
  readonly runningAgents: readonly string[];
}
