import type { Json } from '../intent.js';
import type { McpLaunch } from './launch.js';

/** Where a client keeps its MCP servers, and the entry vouch adds there. */
export interface McpClient {
  /** The --client value. */
  readonly id: string;
  readonly label: string;
  readonly format: 'json' | 'toml' | 'yaml';
  /** The configuration file the entry belongs in. */
  configPath(place: ClientPlace): string;
  /** Which file and scope, in words, for the person applying it. */
  where(place: ClientPlace): string;
  /**
   * The intended change as data: the value at `key` in the parsed file. A
   * safe config edit compares the re-parsed result with exactly this.
   */
  entry(launch: McpLaunch, name: string): ConfigEntry;
  /** The snippet: a complete, valid document holding only the entry. */
  render(entry: ConfigEntry): string;
  /** Other ways to apply it (a client's own command), for people. */
  alternatives?(launch: McpLaunch, name: string, place: ClientPlace): readonly string[];
}

export interface ClientPlace {
  readonly workspaceRoot: string;
  readonly home: string;
  readonly env: NodeJS.ProcessEnv;
}

export interface ConfigEntry {
  /** Key path from the document root to the server entry, e.g. ["mcpServers", "vouch"]. */
  readonly key: readonly string[];
  readonly value: { readonly [key: string]: Json };
}

/** `{ [key[0]]: { [key[1]]: value } }`: the entry as a whole document. */
export function asDocument(entry: ConfigEntry): { readonly [key: string]: Json } {
  return entry.key.reduceRight<{ readonly [key: string]: Json }>((inner, key) => ({ [key]: inner }), { ...entry.value });
}
