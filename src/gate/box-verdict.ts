import { digestJson } from '../core/digest.js';
import type { Spec } from '../spec/model.js';
import type { Workspace } from '../workspace/find.js';
import { boxState, gapWords, type BoxState } from './box.js';
import type { Verdict } from './grade.js';
import type { SessionWatch } from './session-record.js';

/**
 * gate.require_box: a session that ran without the box is not graded. The
 * box must have held at the session's first hook (its record says) and
 * must hold now (settings changed mid-session take effect at once); a
 * record that does not say (an earlier vouch's) is not a box that held.
 */
export function boxVerdict(client: string, spec: Spec, workspace: Workspace, watch: SessionWatch | null, env: NodeJS.ProcessEnv): Verdict | null {
  if (!spec.gate.requireBox) return null;
  const now = boxState(client, workspace.root, env, spec.protect);
  const start = watch === null ? now : (watch.box ?? null);
  const detail =
    start === null
      ? `vouch's record of this session (from ${watch?.since ?? '?'}) does not say whether the box held`
      : !start.on
        ? `at its first hook (${watch?.since ?? 'now'}) ${gapText(start)}`
        : !now.on
          ? `the box was on at its first hook, and now ${gapText(now)}`
          : null;
  if (detail === null) return null;
  return { kind: 'block', reason: 'box_off', findings: [], detail, tree: digestJson({ reason: 'box_off', start, now }) };
}

function gapText(box: BoxState): string {
  const shown = box.gaps.slice(0, 4).map(gapWords);
  return `${shown.join('; ')}${box.gaps.length > 4 ? ` and ${box.gaps.length - 4} more` : ''}`;
}
