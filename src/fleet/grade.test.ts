import { describe, expect, it } from 'vitest';
import type { Sha256 } from '../core/digest.js';
import type { GateContext } from '../gate/context.js';
import { SessionHistory } from '../gate/history.js';
import type { StoredEvent } from '../ledger/events.js';
import type { Spec } from '../spec/model.js';
import type { Workspace } from '../workspace/find.js';
import { foldDispatch } from './fold.js';
import { gradeDispatch } from './grade.js';
import type { DispatchBody } from './model.js';
import { draftOf, WRITER } from './testing.js';

const PIN = 'b'.repeat(64) as Sha256;

/** A reported dispatch pinned to PIN whose claim came from the process `claimant`. */
function reportedBy(claimant: number) {
  const bodies = [
    { ...draftOf('dispatched'), spec_sha256: PIN, from: null },
    { ...draftOf('reported'), claimant_pid: claimant, from: 'dispatched' },
  ].map((draft, i) => ({ ...draft, v: 1, kind: 'dispatch', id: `e${i}`, at: new Date().toISOString(), subject: 'd1', writer: WRITER }) as DispatchBody);
  const events: StoredEvent[] = bodies.map((body, i) => ({ seq: i + 1, hash: 'h' as Sha256, body, signature: null, intact: true }));
  return foldDispatch('d1', events);
}

// Nothing past the refusals may be reached: any use of the context fails the test.
const untouchable = new Proxy(
  {},
  {
    get: () => {
      throw new Error('the grader went past a refusal');
    },
  },
) as GateContext;
const options = {
  history: SessionHistory.empty(),
  actor: 'cli' as const,
  accept: 'outside_agent' as const,
  policy: { onStop: 'verify' as const, maxBlocks: 3, budgetSeconds: null },
};
const workspace = { root: '/nowhere' } as Workspace;

describe('gradeDispatch refuses before it grades', () => {
  it('in the process that relayed the claim: nothing grades itself', async () => {
    const outcome = await gradeDispatch(untouchable, workspace, { sha256: PIN } as Spec, reportedBy(process.pid), options);
    expect(outcome).toEqual({ kind: 'claimant', pid: process.pid });
  });

  it('on pin drift, whoever asks', async () => {
    const now = 'c'.repeat(64) as Sha256;
    expect(await gradeDispatch(untouchable, workspace, { sha256: now } as Spec, reportedBy(process.pid + 1), options)).toEqual({
      kind: 'drift',
      pinned: PIN,
      now,
    });
  });
});
