import type { AgentClient } from './descriptor.js';

/** Cursor's agent: CURSOR_AGENT in what it runs. vouch reaches it over MCP only (`install mcp --client cursor`). */
export const cursor = { id: 'cursor', label: 'Cursor', markers: ['CURSOR_AGENT'], hooks: null } as const satisfies AgentClient;

/** Gemini CLI: GEMINI_CLI in what it runs. Known by its marker only. */
export const geminiCli = { id: 'gemini-cli', label: 'Gemini CLI', markers: ['GEMINI_CLI'], hooks: null } as const satisfies AgentClient;
