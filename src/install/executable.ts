/** How this vouch was started, for configuration entries that must work without PATH (hooks, MCP entries). */
export interface VouchExecutable {
  /** Absolute path of the Node.js binary running vouch. */
  readonly node: string;
  /** Real absolute path of vouch's entry script (dist/cli.js), symlinks resolved. */
  readonly entry: string;
}
