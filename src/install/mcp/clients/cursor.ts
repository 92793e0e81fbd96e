import { join } from 'node:path';
import { asDocument, type McpClient } from '../client.js';
import { MCP_CONFIG_PLACES } from './places.js';

/** Cursor, project scope: `.cursor/mcp.json` in the project (`~/.cursor/mcp.json` for every project). */
export const cursor: McpClient = {
  id: 'cursor',
  label: MCP_CONFIG_PLACES['cursor'].label,
  format: 'json',
  configPath: MCP_CONFIG_PLACES['cursor'].configPath,
  where: (place) => `${join(place.workspaceRoot, '.cursor', 'mcp.json')} (this project); merge the entry into "mcpServers" if the file exists`,
  entry: (launch, name) => ({
    key: ['mcpServers', name],
    value: { command: launch.command, args: [...launch.args], ...(Object.keys(launch.env).length > 0 && { env: { ...launch.env } }) },
  }),
  render: (entry) => `${JSON.stringify(asDocument(entry), null, 2)}\n`,
};
