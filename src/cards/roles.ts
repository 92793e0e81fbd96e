import type { Problem } from '../core/problem.js';
import { err, ok, type Result } from '../core/result.js';
import { agentRun } from '../clients/agent-run.js';
import { ROLES, type CardActor, type Role } from './model.js';

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/**
 * Who is acting: VOUCH_ROLE when set; otherwise a person at a terminal is the
 * owner and an agent run is a worker. The owner is a person: inside an agent
 * run the owner's role cannot be taken, whatever VOUCH_ROLE says. VOUCH_ROLE
 * is a label the same user can set; what makes a role hold is where vouch
 * runs (the verifier service), not this variable.
 */
export function actorOf(env: NodeJS.ProcessEnv, via: CardActor['via']): Result<CardActor, Problem> {
  // An MCP caller is an agent by definition, whatever its environment shows.
  const run = agentRun(env) ?? (via === 'mcp' ? { agent: 'mcp-client', marker: 'MCP' } : null);
  const raw = env.VOUCH_ROLE;
  if (raw !== undefined && raw !== '') {
    if (!isRole(raw)) {
      return err({
        code: 'usage',
        message: `VOUCH_ROLE is "${raw}", which is not a role`,
        expected: `one of: ${ROLES.join(', ')}`,
        found: raw,
        hint: 'unset it to act as the default role (owner at a terminal, worker inside an agent run)',
      });
    }
    if (raw === 'owner' && run) {
      return err({
        code: 'card_agent_run',
        message: `VOUCH_ROLE=owner inside an agent run (${run.agent}, seen by ${run.marker}): the owner is a person, and an agent cannot take the role`,
        hint: 'a person runs this at their own terminal, outside the agent',
      });
    }
    return ok({ role: raw, role_from: 'VOUCH_ROLE', agent: run?.agent ?? null, via });
  }
  return ok({ role: run ? 'worker' : 'owner', role_from: 'default', agent: run?.agent ?? null, via });
}
