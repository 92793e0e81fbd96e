import type { BaseContext } from '../core/context.js';
import type { BackgroundLauncher } from './background.js';
import type { LedgerSource } from '../ledger/source.js';
import type { SpecSource } from '../spec/source.js';
import type { Client } from '../ledger/session-entries.js';

/**
 * Everything the gate needs from the front end that calls it (a hook, a
 * person's `dispatch grade`): the invocation's base context, and the
 * workspaces' specs and ledgers, each read or opened once by the session
 * that owns them (the gate never closes a ledger).
 */
export interface GateContext extends BaseContext {
  readonly ledgers: LedgerSource;
  readonly specs: SpecSource;
  /** How a stop starts the gate's background runner (background.ts); absent, owed checks run in this process and the budget stops them. */
  readonly background?: BackgroundLauncher;
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
