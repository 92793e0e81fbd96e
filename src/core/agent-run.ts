/**
 * Whether this process runs inside an AI agent's run: a command the agent's
 * shell tool started, or a hook or MCP server its client spawned. Decided
 * from the markers the clients put in the environment of what they run
 * (checked with the real clients, see test/card-agents.test.ts):
 *
 * - Claude Code (2.1.332): CLAUDECODE=1, and AI_AGENT=claude-code_...
 * - Codex (0.171.0): CODEX_THREAD_ID, CODEX_TOOL_CALL_ID (and CODEX_CI=1)
 * - AI_AGENT (any value): the cross-tool convention @vercel/detect-agent
 *   promotes; Cursor's CURSOR_AGENT and Gemini CLI's GEMINI_CLI likewise.
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

const MARKERS: readonly { readonly name: string; readonly agent: string }[] = [
  { name: 'CLAUDECODE', agent: 'claude-code' },
  { name: 'CODEX_THREAD_ID', agent: 'codex' },
  { name: 'CODEX_TOOL_CALL_ID', agent: 'codex' },
  { name: 'CODEX_CI', agent: 'codex' },
  { name: 'CODEX_SANDBOX', agent: 'codex' },
  { name: 'CURSOR_AGENT', agent: 'cursor' },
  { name: 'GEMINI_CLI', agent: 'gemini-cli' },
];

export function agentRun(env: NodeJS.ProcessEnv): AgentRun | null {
  for (const marker of MARKERS) {
    const value = env[marker.name];
    if (value !== undefined && value !== '' && value !== '0') return { agent: marker.agent, marker: marker.name };
  }
  const declared = env.AI_AGENT;
  if (declared !== undefined && declared.trim() !== '') return { agent: declared.trim().slice(0, 64), marker: 'AI_AGENT' };
  return null;
}
