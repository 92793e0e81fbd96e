import type { McpClient } from '../client.js';
import { claudeCode } from './claude-code.js';
import { codex } from './codex.js';
import { cursor } from './cursor.js';
import { hermes } from './hermes.js';

/** Every client `vouch install mcp --client` knows; a new one is one file and one line here. */
export const MCP_CLIENTS: readonly McpClient[] = [claudeCode, cursor, codex, hermes];
