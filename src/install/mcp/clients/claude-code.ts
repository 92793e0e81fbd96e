import { join } from 'node:path';
import { asDocument, type McpClient } from '../client.js';
import { shellLine } from '../../../core/quote.js';
import { MCP_CONFIG_PLACES } from './places.js';

/**
 * Claude Code, project scope: `.mcp.json` at the project root, shared with
 * everyone who checks the project out (Claude Code asks each of them to
 * approve it). `claude mcp add --scope project` writes the same entry.
 */
export const claudeCode: McpClient = {
  id: 'claude-code',
  label: MCP_CONFIG_PLACES['claude-code'].label,
  format: 'json',
  configPath: MCP_CONFIG_PLACES['claude-code'].configPath,
  where: (place) => `${join(place.workspaceRoot, '.mcp.json')} (project scope); merge the entry into "mcpServers" if the file exists`,
  entry: (launch, name) => ({
    key: ['mcpServers', name],
    value: { type: 'stdio', command: launch.command, args: [...launch.args], env: { ...launch.env } },
  }),
  render: (entry) => `${JSON.stringify(asDocument(entry), null, 2)}\n`,
  alternatives: (launch, name) => [
    `claude mcp add --scope project ${Object.entries(launch.env)
      .map(([key, value]) => `--env ${shellLine([`${key}=${value}`])} `)
      .join('')}${shellLine([name])} -- ${shellLine([launch.command, ...launch.args])}`,
  ],
};
