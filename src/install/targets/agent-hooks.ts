import type { HookEvent } from '../../clients/descriptor.js';
import { shellLine } from '../../core/quote.js';
import type { EditIntent, Json } from '../intent.js';
import { pathText } from '../json-value.js';

/** The absolute node binary and vouch entry script a hook command runs: hooks do not get the user's PATH. */
export interface SelfCommand {
  readonly node: string;
  readonly entry: string;
}

/** The event whose hook rewrites shell calls into `vouch exec -- ...` (the descriptor's `exec`), and whether this install turns it on. */
export interface HookExec {
  readonly event: string;
  readonly on: boolean;
}

/**
 * The edit that wires an agent client's hooks to vouch: one matcher group
 * per event, appended to `hooks.<Event>` in the client's JSON settings
 * (a client whose install is a `hooks-file`: Claude Code, Codex).
 */
export function hookIntent(path: string, client: string, vouch: string, groups: readonly HookEvent[], exec: HookExec | null = null): EditIntent {
  const changes = groups.map((group) => {
    const withExec = exec !== null && exec.event === group.event;
    // `vouch`: the shell words that start vouch (hook-command.ts).
    const commandFor = (rewrite: boolean) => `${vouch} ${shellLine(['hook', client, group.event, ...(rewrite ? ['--exec'] : [])])}`;
    const entryWith = (onFailure: HookEvent['onFailure'], rewrite = withExec && exec.on): Record<string, Json> => ({
      ...(group.matcher !== null && { matcher: group.matcher }),
      hooks: [{ type: 'command', command: commandFor(rewrite), timeout: group.timeout, ...(onFailure && { onFailure }) }],
    });
    // vouch 0.1.0 as first released wrote the guard without onFailure: upgraded in place; the exec event's other form (with or without --exec) too, so install switches it and uninstall takes back either.
    const earlier = [
      ...(group.onFailure ? [entryWith(undefined)] : []),
      ...(withExec ? [entryWith(group.onFailure, !exec.on), ...(group.onFailure ? [entryWith(undefined, !exec.on)] : [])] : []),
    ];
    return {
      kind: 'json-append' as const,
      at: ['hooks', group.event],
      entries: [entryWith(group.onFailure)],
      marker: `hook ${client} ${group.event}`,
      earlier,
    };
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
