import type { AgentClient } from './descriptor.js';
import { CLIENTS } from './registry.js';

/**
 * Whether this process runs inside an AI agent's run: a command the agent's
 * shell tool started, or a hook or MCP server its client spawned. Decided
 * from the markers each client's descriptor names (clients/registry.ts;
 * checked with the real clients, see test/card-agents.test.ts), then
 * AI_AGENT (any value): the cross-tool convention @vercel/detect-agent
 * promotes (Claude Code sets it too: claude-code_...).
 *
 * The markers are inherited by everything the agent starts, so an agent that
 * runs `bash -c '...'` or a script is still seen. An agent that strips them
 * (`env -u CLAUDECODE ...`) is not: this is a label the same user can remove,
 * and the README says so.
 */
export interface AgentRun {
  /** The client: claude-code, codex, cursor, gemini-cli, or the AI_AGENT value. */
  readonly agent: string;
  /** The variable that showed it. */
  readonly marker: string;
}

/** Whether `env` shows a run of one of `clients` (every client vouch knows by default), or declares one (AI_AGENT). */
export function agentRun(env: NodeJS.ProcessEnv, clients: readonly AgentClient[] = CLIENTS): AgentRun | null {
  for (const client of clients) {
    for (const name of client.markers) {
      const value = env[name];
      if (value !== undefined && value !== '' && value !== '0') return { agent: client.id, marker: name };
    }
  }
  const declared = env.AI_AGENT;
  if (declared !== undefined && declared.trim() !== '') return { agent: declared.trim().slice(0, 64), marker: 'AI_AGENT' };
  return null;
}

/** Session ids as clients write them (UUIDs for Claude Code): anything else is not taken as one. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/**
 * The agent session this process runs in, when its client names it in the
 * environment (its descriptor's sessionVariable) and its marker shows the
 * run: the session a card opened here answers at its next Stop. A label
 * like the markers: it decides only where a one-line answer is shown.
 */
export function runSession(env: NodeJS.ProcessEnv, clients: readonly AgentClient[] = CLIENTS): { client: string; session: string } | null {
  const run = agentRun(env, clients);
  if (run === null) return null;
  const client = clients.find((c) => c.id === run.agent);
  const name = client?.sessionVariable;
  const session = name === undefined ? undefined : env[name];
  return session !== undefined && SESSION_ID.test(session) ? { client: run.agent, session } : null;
}
