import type * as ChildProcess from 'node:child_process';
import { createRequire } from 'node:module';

/**
 * Node modules that cost milliseconds to load (child_process brings net,
 * dgram and the stream stack with it), loaded at their first use rather than
 * when a module naming them is evaluated: a PreToolUse hook or a `status`
 * that never spawns anything never pays for them. Node keeps each one, so
 * later calls cost a lookup.
 */
const load = createRequire(import.meta.url);

export function childProcess(): typeof ChildProcess {
  return load('node:child_process') as typeof ChildProcess;
}
