import { lstatSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { computeFingerprint, INPUT_GROUPS } from '../engine/fingerprint.js';
import { makePrivateCopy } from '../hermetic/copy.js';
import type { SandboxRecord, SandboxView } from '../receipt/sandbox-record.js';
import { Snapshot } from '../scope/snapshot.js';
import type { CheckDef } from '../spec/model.js';
import { removeTree } from './remove-tree.js';
import { pinRefusal, type PinRefusal, type ServerPins } from './server-pins.js';

/** The tree one check of a job runs in, and whether it may run at all. */
export interface CheckView {
  /** `job/tree`: the check's workspace root. */
  readonly tree: string;
  /** What it holds, for the receipt's sandbox record. */
  readonly view: SandboxView;
  /** Set when the upload is not what the operator pinned: the check gets a signed UNKNOWN and does not run. */
  readonly refusal: PinRefusal | undefined;
}

/**
 * Makes the job directory for one check: a fresh `tree` holding only what
 * the allowed spec declares for that check (the files its inputs, sources
 * and tests match in the upload, each copied and checked against the
 * digest it was listed with) and its cwd, with a fresh, empty `home` and
 * `tmp`. Nothing else of the upload is written there: not vouch.yaml, not
 * an undeclared package.json or .npmrc, not the files another check of the
 * job declares. The previous check's tree, home and tmp are removed first,
 * so no check sees what one before it left. `upload` is the whole
 * unpacked archive, the worker's own, never shown to a check.
 */
export async function viewForCheck(upload: string, jobRoot: string, check: CheckDef, pins: ServerPins, toolConfigs: readonly string[]): Promise<CheckView> {
  const tree = join(jobRoot, 'tree');
  for (const dir of ['tree', 'home', 'tmp']) {
    // By descriptor: what a check left may be deeper than PATH_MAX, or made unreadable (remove-tree.ts).
    const removed = await removeTree(join(jobRoot, dir));
    if (!removed.ok) throw new Error(`${dir} of the check before could not be removed: ${removed.detail}`);
  }
  mkdirSync(join(jobRoot, 'home'));
  mkdirSync(join(jobRoot, 'tmp'));
  const refusal = await pinRefusal(pins, check, toolConfigs, upload);
  const listed = await computeFingerprint(new Snapshot(upload, { readStart: new Date() }), check, INPUT_GROUPS);
  // The cwd only where the upload has it: a missing one stays cwd_invalid.
  const cwd = check.cwd === '.' || !lstatSync(join(upload, check.cwd), { throwIfNoEntry: false })?.isDirectory() ? [] : [check.cwd];
  const made = makePrivateCopy(upload, listed.manifest.files, tree, cwd);
  // The upload is the worker's own and was listed a moment ago: a copy that does not hash as listed is a bug or a failing disk.
  if (!made.ok) throw new Error(`the job tree could not be made from the upload: ${made.error.path}: ${made.error.detail}`);
  return { tree, view: { files: made.value.files, bytes: made.value.bytes, writable: [], home: 'empty' }, refusal };
}

/** The sandbox record of a check's receipt: the worker's, with what its tree showed. */
export function withView(record: SandboxRecord, view: SandboxView): SandboxRecord {
  return record.kind === 'bubblewrap' ? { ...record, view } : record;
}
