import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ClientPlace } from '../client.js';

/** Where one client keeps its MCP servers, apart from how vouch writes an entry there. */
export interface McpConfigPlace {
  readonly label: string;
  configPath(place: ClientPlace): string;
}

const codexHome = (place: ClientPlace) => place.env.CODEX_HOME || join(place.env.HOME || homedir(), '.codex');
const hermesHome = (place: ClientPlace) => place.env.HERMES_HOME || join(place.env.HOME || homedir(), '.hermes');

/**
 * Every client's MCP configuration file. The gate's wiring reads these on
 * every hook call, so this module loads no YAML or TOML writer: the clients
 * (which render entries) import their place from here.
 */
export const MCP_CONFIG_PLACES = {
  'claude-code': { label: 'Claude Code', configPath: (place) => join(place.workspaceRoot, '.mcp.json') },
  cursor: { label: 'Cursor', configPath: (place) => join(place.workspaceRoot, '.cursor', 'mcp.json') },
  codex: { label: 'Codex', configPath: (place) => join(codexHome(place), 'config.toml') },
  hermes: { label: 'Hermes Agent', configPath: (place) => join(hermesHome(place), 'config.yaml') },
} as const satisfies Record<string, McpConfigPlace>;
