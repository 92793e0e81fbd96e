import { agentRun } from '../clients/agent-run.js';
import { fail } from '../core/problem.js';
import { unreachable } from '../core/unreachable.js';

/**
 * What a person's act decides: the spec's trust (allow, deny, init --write,
 * the service's trust list and tokens), the gate's wiring (install,
 * uninstall), the signing keys that decide which receipts count, the
 * record the gate judges by (gc removes receipts and every session's
 * trail), or a dispatch's grade.
 */
export type PersonActKind = 'trust' | 'wiring' | 'keys' | 'record' | 'grade';

/**
 * Refuses an act that only the person may do when this process runs inside
 * an agent run: an agent that edited vouch.yaml must not be able to allow
 * its own edit, nor take its gate out, nor make the keys that sign its
 * receipts, nor remove the record it is judged by, nor grade itself. The
 * markers are labels the agent could strip (`env -u CLAUDECODE`); the
 * PreToolUse guard also denies these commands, and the stop judges by
 * result (`person_act_in_session`; see the README).
 */
export function refuseInAgentRun(env: NodeJS.ProcessEnv, act: string, kind: PersonActKind = 'trust'): void {
  const run = agentRun(env);
  if (run === null) return;
  fail({
    code: 'agent_run',
    message: `\`${act}\` is a person's act, and this runs inside an agent run (${run.agent}, seen by ${run.marker})`,
    hint: hintFor(kind, act),
  });
}

function hintFor(kind: PersonActKind, act: string): string {
  switch (kind) {
    case 'trust':
      return `a person reads vouch.yaml and runs \`${act}\` in their own terminal, outside the agent; the agent can ask for it`;
    case 'wiring':
      return `the gate's wiring is the person's: they run \`${act}\` in their own terminal, outside the agent; the agent can ask for it`;
    case 'keys':
      return `signing keys decide which receipts count: a person runs \`${act}\` in their own terminal, outside the agent`;
    case 'record':
      return `the receipts and the agent trail are what the gate judges a session by: a person runs \`${act}\` in their own terminal, between sessions, outside the agent`;
    case 'grade':
      return `a grade is the checker's answer to an agent's claim: a person runs \`${act}\` in their own terminal, outside the agent (the stop grades a subagent's dispatch itself)`;
    default:
      return unreachable(kind);
  }
}
