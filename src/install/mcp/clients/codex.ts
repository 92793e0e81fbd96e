import type { ConfigEntry, McpClient } from '../client.js';
import { TOOL_TIMEOUT_SECONDS } from '../launch.js';
import { tomlArray, tomlKey, tomlString } from '../toml.js';
import { MCP_CONFIG_PLACES } from './places.js';

/**
 * Codex: one `[mcp_servers.NAME]` table in `$CODEX_HOME/config.toml`
 * (default `~/.codex/config.toml`), read by the CLI, the IDE extension and
 * the app. Codex's default per-call timeout (60 s) is shorter than many
 * checks, so the entry sets `tool_timeout_sec`.
 */
export const codex: McpClient = {
  id: 'codex',
  label: MCP_CONFIG_PLACES['codex'].label,
  format: 'toml',
  configPath: MCP_CONFIG_PLACES['codex'].configPath,
  where: (place) => `${MCP_CONFIG_PLACES.codex.configPath(place)} (every project; the entry pins this workspace with -C)`,
  entry: (launch, name) => ({
    key: ['mcp_servers', name],
    value: {
      command: launch.command,
      args: [...launch.args],
      tool_timeout_sec: TOOL_TIMEOUT_SECONDS,
      ...(Object.keys(launch.env).length > 0 && { env: { ...launch.env } }),
    },
  }),
  render: (entry) => renderTable(entry),
};

function renderTable(entry: ConfigEntry): string {
  const header = entry.key.map(tomlKey).join('.');
  const lines = [`[${header}]`];
  const nested: [string, Record<string, string>][] = [];
  for (const [key, value] of Object.entries(entry.value)) {
    if (typeof value === 'string') lines.push(`${tomlKey(key)} = ${tomlString(value)}`);
    else if (typeof value === 'number') lines.push(`${tomlKey(key)} = ${value}`);
    else if (Array.isArray(value)) lines.push(`${tomlKey(key)} = ${tomlArray(value as string[])}`);
    else nested.push([key, value as Record<string, string>]);
  }
  for (const [key, table] of nested) {
    lines.push('', `[${header}.${tomlKey(key)}]`);
    for (const [name, value] of Object.entries(table)) lines.push(`${tomlKey(name)} = ${tomlString(value)}`);
  }
  return `${lines.join('\n')}\n`;
}
