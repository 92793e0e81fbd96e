import type * as ChildProcess from 'node:child_process';
import type * as Crypto from 'node:crypto';
import type * as Tty from 'node:tty';
import { createRequire } from 'node:module';

/**
 * Node modules that cost milliseconds to load (child_process brings net,
 * dgram and the stream stack with it; crypto about 5 ms of its own), loaded
 * at their first use rather than when a module naming them is evaluated: a
 * PreToolUse hook or a `status` that never spawns anything never pays for
 * child_process, and one that hashes only small things (core/hash.ts) never
 * pays for crypto. Node keeps each one, so later calls cost a lookup.
 */
const load = createRequire(import.meta.url);

export function childProcess(): typeof ChildProcess {
  return load('node:child_process') as typeof ChildProcess;
}

export function nodeCrypto(): typeof Crypto {
  return load('node:crypto') as typeof Crypto;
}

export function nodeTty(): typeof Tty {
  return load('node:tty') as typeof Tty;
}
