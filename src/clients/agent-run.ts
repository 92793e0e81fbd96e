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
