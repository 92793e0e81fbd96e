/** A tool call as the guard sees it, whatever the client called the tool. */
export type ToolUse =
  /** A file tool (Write, Edit, MultiEdit, NotebookEdit): the paths it writes. */
  | { readonly kind: 'write'; readonly tool: string; readonly paths: readonly string[] }
  /** A shell command (Bash). */
  | { readonly kind: 'shell'; readonly tool: string; readonly command: string }
  /** A patch in the apply_patch format (Codex); null when the call carries none vouch can find. */
  | { readonly kind: 'patch'; readonly tool: string; readonly patch: string | null }
  /**
   * A tool outside the client's writing tools (Claude Code's Read, Grep, Glob, Task, an MCP tool...): it names
   * no write, and is not opaque on the trail; whatever it changes anyway shows as drift of the fingerprints.
   */
  | { readonly kind: 'read'; readonly tool: string }
  /** A writing tool whose input vouch cannot read: it may have written anything. */
  | { readonly kind: 'other'; readonly tool: string };

/** A field of a tool's input object, or undefined when the input is not an object. */
export const field = (input: unknown, key: string): unknown =>
  typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[key] : undefined;
