import type { VouchExecutable } from '../executable.js';

/** How a client starts `vouch mcp` for one workspace: absolute paths only, so no PATH or cwd is needed. */
export interface McpLaunch {
  /** The Node.js binary. */
  readonly command: string;
  /** vouch's entry script, then `mcp -C <workspace>`. */
  readonly args: readonly string[];
  /** Variables the client must pass so the server finds the same trust store as the CLI (often none). */
  readonly env: Readonly<Record<string, string>>;
}

/** Per-tool-call time a client should allow: a verification runs checks whose own timeouts (at most 3600 s each) stop them. */
export const TOOL_TIMEOUT_SECONDS = 3600;

export function mcpLaunch(self: VouchExecutable, workspaceRoot: string, home: string, env: NodeJS.ProcessEnv): McpLaunch {
  // Some clients (Codex) pass the server only an allowlist of their
  // environment: a trust store moved by VOUCH_HOME or XDG_CONFIG_HOME would be
  // missed and every check would read as not allowed. Pin it in the entry.
  const pinned: Record<string, string> = env.VOUCH_HOME || env.XDG_CONFIG_HOME ? { VOUCH_HOME: home } : {};
  return { command: self.node, args: [self.entry, 'mcp', '-C', workspaceRoot], env: pinned };
}
