import { readFileSync } from 'node:fs';

/**
 * The answer when the hot bundle cannot be loaded (a damaged or partial
 * install): a gate that cannot run must not read as a pass. A Stop is
 * blocked and a guarded tool call denied, in the clients' own protocol
 * (Claude Code and Codex share these shapes), a push is refused, and any
 * other command fails as a bug (exit 70). `args` are the words after the
 * command. Returns the exit code. plugin/run.mjs answers the same way when
 * there is no dist/ at all, so it cannot call this.
 */
export function cannotRun(command: string, args: readonly string[], why: string): number {
  process.stderr.write(`vouch: ${why}\n`);
  if (command !== 'hook') return 70;
  const [client, event] = args;
  if (client === 'git') return 1;
  const name = event ?? eventOfPayload();
  if (name === 'Stop' || name === 'SubagentStop') {
    process.stdout.write(
      `${JSON.stringify({ decision: 'block', reason: `vouch blocked this stop: ${why}. A gate that cannot run is not a pass; tell a person.` })}\n`,
    );
  } else if (name === 'PreToolUse') {
    const output = { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: `vouch could not check this call: ${why}` };
    process.stdout.write(`${JSON.stringify({ hookSpecificOutput: output })}\n`);
  }
  return 0;
}

/** The event a hook's payload names, when the command line did not: best effort, on a payload vouch could not otherwise read. */
function eventOfPayload(): string | undefined {
  try {
    const payload = JSON.parse(readFileSync(0, 'utf8')) as { hook_event_name?: unknown };
    return typeof payload.hook_event_name === 'string' ? payload.hook_event_name : undefined;
  } catch {
    return undefined;
  }
}
