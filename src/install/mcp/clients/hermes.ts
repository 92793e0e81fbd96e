import { stringify } from 'yaml';
import { asDocument, type McpClient } from '../client.js';
import { TOOL_TIMEOUT_SECONDS } from '../launch.js';
import { MCP_CONFIG_PLACES } from './places.js';

/**
 * Hermes Agent: `mcp_servers` in `$HERMES_HOME/config.yaml` (default
 * `~/.hermes/config.yaml`). Its per-call `timeout` defaults to 120 s, shorter
 * than many checks, so the entry sets it.
 */
export const hermes: McpClient = {
  id: 'hermes',
  label: MCP_CONFIG_PLACES['hermes'].label,
  format: 'yaml',
  configPath: MCP_CONFIG_PLACES['hermes'].configPath,
  where: (place) =>
    `${MCP_CONFIG_PLACES.hermes.configPath(place)} (every session; the entry pins this workspace with -C); merge it under "mcp_servers" if the key exists`,
  entry: (launch, name) => ({
    key: ['mcp_servers', name],
    value: {
      command: launch.command,
      args: [...launch.args],
      timeout: TOOL_TIMEOUT_SECONDS,
      ...(Object.keys(launch.env).length > 0 && { env: { ...launch.env } }),
    },
  }),
  // YAML 1.1, as Hermes reads it (PyYAML): a string that 1.1 reads as a boolean or number is quoted.
  render: (entry) => stringify(asDocument(entry), { lineWidth: 0, version: '1.1' }),
};
