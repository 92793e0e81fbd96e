import type { Change, EditIntent } from '../intent.js';
import { pathText } from '../json-value.js';
import type { ConfigEntry, McpClient } from './client.js';

export interface McpEdit {
  readonly client: McpClient;
  /** The client's configuration file. */
  readonly file: string;
  readonly entry: ConfigEntry;
  /** The printed snippet: what a person adds by hand when the edit is refused. */
  readonly snippet: string;
  readonly workspaceRoot: string;
  /** Other ways to apply it (a client's own command). */
  readonly alternatives: readonly string[];
}

/**
 * A client's MCP entry as an edit for the safe config editor (install/edit.ts):
 * the server's key set to exactly the printed entry, in the client's format.
 * The same intent installs and uninstalls; only the manual steps differ.
 */
export function mcpIntent(edit: McpEdit, mode: 'install' | 'uninstall'): EditIntent {
  const { client, file, entry } = edit;
  const key = pathText(entry.key);
  return {
    path: file,
    format: client.format,
    summary: `${client.label} starts \`vouch mcp\` for ${edit.workspaceRoot} as the MCP server "${entry.key[entry.key.length - 1]}"`,
    changes: [change(client.format, entry)],
    manual:
      mode === 'install'
        ? [
            `open ${file} (create it if it does not exist)`,
            `add the ${key} entry, merged into "${entry.key[0]}" if that exists:\n${edit.snippet.trimEnd()}`,
            ...edit.alternatives.map((line) => `or run: ${line}`),
            `if a server of that name is already there and you want to keep it, choose another name: vouch install mcp --client ${client.id} --name OTHER --write`,
          ]
        : [`open ${file}`, `remove the ${key} entry (and "${entry.key[0]}" if nothing else is left in it)`],
  };
}

function change(format: McpClient['format'], entry: ConfigEntry): Change {
  switch (format) {
    case 'json':
      return { kind: 'json-set', at: entry.key, value: entry.value };
    case 'toml':
      return { kind: 'toml-table', at: entry.key, value: entry.value };
    case 'yaml':
      return { kind: 'yaml-set', at: entry.key, value: entry.value };
  }
}
