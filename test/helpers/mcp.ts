import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach } from 'vitest';
import { CLI, type Rig } from './rig.js';

export interface McpConnectOptions {
  /** Arguments after `vouch` (default: mcp -C <rig root>). */
  readonly args?: readonly string[];
  /** Full command to start instead of `node dist/cli.js ARGS` (for printed client entries). */
  readonly command?: { readonly command: string; readonly args: readonly string[] };
  readonly cwd?: string;
  /** Added to the rig's environment. */
  readonly env?: Record<string, string | undefined>;
  /** The whole environment instead of the rig's (for testing what a printed entry carries itself). */
  readonly exactEnv?: Record<string, string>;
}

/** A real MCP client (the SDK's own) talking to a real `vouch mcp` process over stdio. */
export class McpSession {
  readonly errors: Error[] = [];
  private stderrText = '';

  private constructor(
    readonly client: Client,
    readonly transport: StdioClientTransport,
  ) {}

  static async connect(rig: Rig, options: McpConnectOptions = {}): Promise<McpSession> {
    const env = options.exactEnv ?? Object.fromEntries(Object.entries(rig.env(options.env)).filter((e): e is [string, string] => e[1] !== undefined));
    const transport = new StdioClientTransport({
      command: options.command?.command ?? process.execPath,
      args: [...(options.command?.args ?? [CLI, ...(options.args ?? ['mcp', '-C', rig.root])])],
      cwd: options.cwd ?? rig.root,
      env,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'vouch-test', version: '0.0.0' });
    const session = new McpSession(client, transport);
    transport.stderr?.on('data', (chunk: Buffer) => (session.stderrText += chunk.toString()));
    // Anything on stdout that is not a JSON-RPC message lands here.
    client.onerror = (error) => session.errors.push(error);
    sessions.push(session);
    await client.connect(transport);
    return session;
  }

  get stderr(): string {
    return this.stderrText;
  }

  async call(name: string, args: Record<string, unknown>, options: Parameters<Client['callTool']>[2] = {}): Promise<CallToolResult> {
    return (await this.client.callTool({ name, arguments: args }, undefined, options)) as CallToolResult;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

/** The text of a tool result (all text blocks joined). */
export function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}

const sessions: McpSession[] = [];
afterEach(async () => {
  await Promise.allSettled(sessions.splice(0).map((s) => s.close()));
});
