import type { Sha256 } from '../core/digest.js';
import type { GateBody, StoredSessionEntry, TrailBody } from '../ledger/session-entries.js';

/** Which stop a decision answers: the session's own (Stop) or one subagent's (SubagentStop). */
export interface StopScope {
  readonly event: string;
  /** null for the main agent. */
  readonly agentId: string | null;
}

/**
 * What the ledger says about one session so far: the paths its tool calls
 * reported writing, whether it was ever gated, and how its last stops went.
 * Built from chain entries; the trail is the agent's own account, used only
 * to decide which checks are relevant, never as evidence that one passed.
 */
export class SessionHistory {
  private constructor(
    private readonly trail: readonly TrailBody[],
    private readonly gates: readonly GateBody[],
  ) {}

  static from(entries: readonly StoredSessionEntry[]): SessionHistory {
    const trail: TrailBody[] = [];
    const gates: GateBody[] = [];
    for (const entry of entries) {
      if (entry.body.kind === 'trail') trail.push(entry.body);
      else if (entry.body.kind === 'gate') gates.push(entry.body);
    }
    return new SessionHistory(trail, gates);
  }

  static empty(): SessionHistory {
    return new SessionHistory([], []);
  }

  /** vouch has a record of this session in this workspace: a gate was promised to it. */
  get promised(): boolean {
    return this.trail.length > 0 || this.gates.length > 0;
  }

  /** When the session's (or one subagent's) first entry in this ledger was written (ISO time), or null when it has none. */
  firstAt(agentId: string | null = null): string | null {
    const times = [...this.trail, ...this.gates]
      .filter((entry) => agentId === null || entry.agent_id === agentId)
      .map((entry) => entry.at)
      .sort();
    return times[0] ?? null;
  }

  /** Paths the session (or one subagent of it) reported writing. */
  touched(agentId: string | null = null): Set<string> {
    const paths = new Set<string>();
    for (const entry of this.trail) {
      if (agentId !== null && entry.agent_id !== agentId) continue;
      for (const path of entry.paths) paths.add(path);
    }
    return paths;
  }

  /** The session (or the subagent) made a call that may have written files its input does not name. */
  wroteOpaquely(agentId: string | null = null): boolean {
    return this.trail.some((entry) => entry.opaque_writes && (agentId === null || entry.agent_id === agentId));
  }

  /**
   * Checks this session still owes: not a PASS the last time a decision
   * listed them (a block, an escape). They stay relevant to every later stop
   * until a stop sees them a fresh PASS, whatever changed since: a failure
   * found on drift the trail did not see is not forgotten once its receipt
   * makes the drift disappear. The main agent's stop owes what any stop of
   * the session found (its subagents' writes are the session's); a
   * subagent's, what its own stops found.
   */
  owedChecks(agentId: string | null = null): Set<string> {
    const owed = new Set<string>();
    for (const gate of this.gates) {
      if (agentId !== null && gate.agent_id !== agentId) continue;
      for (const check of gate.checks) {
        if (check.status === 'PASS') owed.delete(check.id);
        else owed.add(check.id);
      }
    }
    return owed;
  }

  /**
   * Blocks of this stop scope in a row, newest first, while the files they
   * saw are the ones seen now. An allow, or another tree, ends the run.
   */
  consecutiveBlocks(scope: StopScope, tree: Sha256 | null): number {
    let count = 0;
    for (let i = this.gates.length - 1; i >= 0; i--) {
      const gate = this.gates[i]!;
      if (gate.event !== scope.event || gate.agent_id !== scope.agentId) continue;
      // Held while the gate's own run was still going: nothing the agent could do, so not a block it sat out.
      if (gate.decision === 'block' && gate.reason === 'checks_running') continue;
      if (gate.decision !== 'block' || gate.tree !== tree) break;
      count++;
    }
    return count;
  }
}
