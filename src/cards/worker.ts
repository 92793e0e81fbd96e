import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sha256 } from '../core/digest.js';

/** One agent a client's hooks name: the session it runs in, and its own id when it is a subagent (null: the session's own agent). */
export interface WorkerRef {
  readonly client: string;
  readonly session: string;
  readonly agent: string | null;
}

/**
 * What the hooks keep about one card's worker, in VOUCH_HOME (which the
 * agent's box keeps read-only): the card its successful `vouch card claim`
 * bound it to, and its failed tool calls in a row.
 */
export interface WorkerState {
  readonly card: string;
  readonly failed_in_a_row: number;
}

function statePath(home: string, worker: WorkerRef): string {
  return join(home, 'crew', `${sha256(`${worker.client}\0${worker.session}\0${worker.agent ?? ''}`).slice(0, 32)}.json`);
}

/** The worker's state, or null: it never claimed a card (or the file does not read as one). */
export function readWorker(home: string, worker: WorkerRef): WorkerState | null {
  try {
    const value = JSON.parse(readFileSync(statePath(home, worker), 'utf8')) as Partial<WorkerState>;
    return typeof value.card === 'string' && typeof value.failed_in_a_row === 'number' ? { card: value.card, failed_in_a_row: value.failed_in_a_row } : null;
  } catch {
    return null;
  }
}

export function writeWorker(home: string, worker: WorkerRef, state: WorkerState): void {
  const path = statePath(home, worker);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(state)}\n`, { mode: 0o600 });
  renameSync(temp, path);
}
