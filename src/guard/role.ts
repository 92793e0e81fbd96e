/**
 * Whose write the guard judges. Only the verifier may write under
 * .vouch/cards/ (the proof scripts of task cards), and it writes nothing
 * else; every other agent role (worker, coordinator) writes neither.
 */
export type GuardRole = 'worker' | 'verifier';

const ROLE_NAMES = new Set(['worker', 'verifier', 'coordinator', 'owner']);

/**
 * The role of the agent making a tool call, from the hook's context: a
 * subagent named after a role (Claude Code sends its type as agent_type,
 * e.g. a `.claude/agents/verifier.md` subagent is "verifier"; "vouch-" may
 * prefix it), else VOUCH_ROLE in the environment the client gave the hook,
 * else worker. A label, not an authentication: see the README.
 */
export function guardRole(agentType: string | null, env: NodeJS.ProcessEnv): GuardRole {
  const subagent = agentType?.replace(/^vouch-/, '') ?? null;
  if (subagent !== null && ROLE_NAMES.has(subagent)) return subagent === 'verifier' ? 'verifier' : 'worker';
  return env.VOUCH_ROLE === 'verifier' ? 'verifier' : 'worker';
}
