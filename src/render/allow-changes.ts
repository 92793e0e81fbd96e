import type { DiffLine } from '../core/line-diff.js';
import type { PinChange } from '../trust/pin-changes.js';

/** Changed lines of the spec shown at most; the rest are counted. */
const SHOWN_LINES = 40;

/**
 * What `vouch allow` says moved since the last allow: the spec's changed
 * lines, and every pin that moved (the PATH, a program, a tool config, an
 * input). `replacing`: the spec's hash changed, whether or not its old
 * bytes were kept to diff.
 */
export function allowChangeLines(replacing: boolean, diff: readonly DiffLine[] | null, moved: readonly PinChange[]): string[] {
  const lines: string[] = [];
  if (diff !== null) {
    const changed = diff.filter((line) => line.kind !== ' ');
    const added = changed.filter((line) => line.kind === '+').length;
    lines.push(`  spec since the last allow: +${added} -${changed.length - added} line${changed.length === 1 ? '' : 's'}`);
    for (const line of changed.slice(0, SHOWN_LINES)) lines.push(`    ${line.kind} ${line.text}`);
    if (changed.length > SHOWN_LINES) lines.push(`    ... ${changed.length - SHOWN_LINES} more`);
  } else if (replacing) {
    lines.push('  spec since the last allow: changed (its earlier bytes were not kept: no line diff)');
  }
  if (moved.length > 0) lines.push('  pins moved since the last allow:');
  for (const change of moved) lines.push(`    ${pinLine(change)}`);
  return lines;
}

function pinLine(change: PinChange): string {
  switch (change.kind) {
    case 'path': {
      const was = change.before.split(':');
      const now = change.after.split(':');
      const gone = was.filter((dir) => !now.includes(dir));
      const added = now.filter((dir) => !was.includes(dir));
      const parts = [...(gone.length > 0 ? [`without ${gone.join(':')}`] : []), ...(added.length > 0 ? [`with ${added.join(':')}`] : [])];
      return `PATH: ${parts.length > 0 ? parts.join('; ') : 'the same directories in another order'}`;
    }
    case 'executable':
      return `${change.command} (${change.checks.join(', ')}): ${change.before ?? 'not found'} -> ${change.after ?? 'not found'}`;
    case 'tool_config':
      return `tool config ${change.path} ${change.change}`;
    case 'input':
      return `${change.check} input ${change.path} ${change.change}`;
  }
}

/** The loud line for each program that left a virtualenv: the next verify runs another interpreter, whose missing modules look like a code bug. */
export function venvWarnings(moved: readonly PinChange[]): string[] {
  return moved.flatMap((change) =>
    change.kind === 'executable' && change.leftVenv !== null
      ? [
          `vouch: warning: ${change.command} (${change.checks.join(', ')}) left the virtualenv ${change.leftVenv}: it was ${change.before}, it is now ${change.after ?? 'not found'}. If that is not meant, allow again from a shell with the virtualenv active, or run ${change.leftVenv}/bin/${change.command.split('/').at(-1)} in vouch.yaml`,
        ]
      : [],
  );
}
