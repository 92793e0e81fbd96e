import { shellLine } from '../../core/quote.js';
import type { EditIntent, Json } from '../intent.js';
import { pathText } from '../json-value.js';

/** The absolute node binary and vouch entry script a hook command runs: hooks do not get the user's PATH. */
export interface SelfCommand {
  readonly node: string;
  readonly entry: string;
}

/** Tools whose calls the guard checks and the trail records. */
export const WRITE_TOOLS = 'Write|Edit|MultiEdit|NotebookEdit|Bash';

/**
 * Seconds a client waits for the Stop hook. The gate's own budget (at most
 * 3600 s) bounds the checks it runs; a client that gave up first would let
 * the stop through, so the wait is longer than any budget.
 */
export const STOP_TIMEOUT_SECONDS = 3660;
const TOOL_TIMEOUT_SECONDS = 30;

export interface HookGroup {
  readonly event: string;
  readonly matcher: string | null;
  readonly timeout: number;
  /**
   * Claude Code's `onFailure: "block"`: when the hook command itself cannot
   * run (node missing, vouch not where the command says), the call is
   * blocked rather than let through. The guard sets it, as the plugin does.
   */
  readonly onFailure?: 'block';
}

/**
 * The edit that wires an agent client's hooks to vouch: one matcher group
 * per event, appended to `hooks.<Event>` in the client's JSON settings. Both
 * Claude Code and Codex read this shape.
 */
export function hookIntent(path: string, client: 'claude-code' | 'codex', self: SelfCommand, groups: readonly HookGroup[]): EditIntent {
  const changes = groups.map((group) => {
    const command = shellLine([self.node, self.entry, 'hook', client, group.event]);
    const entryWith = (onFailure: HookGroup['onFailure']): Record<string, Json> => ({
      ...(group.matcher !== null && { matcher: group.matcher }),
      hooks: [{ type: 'command', command, timeout: group.timeout, ...(onFailure && { onFailure }) }],
    });
    // vouch 0.1.0 as first released wrote the guard without onFailure: upgraded in place.
    const earlier = group.onFailure ? [entryWith(undefined)] : [];
    return { kind: 'json-append' as const, at: ['hooks', group.event], entries: [entryWith(group.onFailure)], marker: `hook ${client} ${group.event}`, earlier };
  });
  return {
    path,
    format: 'json',
    summary: `run vouch's ${client} hooks on ${groups.map((g) => g.event).join(', ')}`,
    changes,
    manual: [
      `open ${path} (create it as {} if absent)`,
      ...changes.map((change) => `append to the list at ${pathText(change.at)}: ${JSON.stringify(change.entries[0])}`),
    ],
  };
}

export const GATE_EVENTS: readonly HookGroup[] = [
  { event: 'Stop', matcher: null, timeout: STOP_TIMEOUT_SECONDS },
  { event: 'SubagentStart', matcher: null, timeout: TOOL_TIMEOUT_SECONDS },
  { event: 'SubagentStop', matcher: null, timeout: STOP_TIMEOUT_SECONDS },
  // The guard fails closed even when vouch cannot start (see hooks/hooks.json and docs/decisions/installing-into-other-tools-config.md).
  { event: 'PreToolUse', matcher: WRITE_TOOLS, timeout: TOOL_TIMEOUT_SECONDS, onFailure: 'block' },
  { event: 'PostToolUse', matcher: WRITE_TOOLS, timeout: TOOL_TIMEOUT_SECONDS },
];
