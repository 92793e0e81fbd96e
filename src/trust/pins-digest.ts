import { dirname, join } from 'node:path';
import { sha256, type Sha256 } from '../core/digest.js';
import { isInside } from '../scope/inside.js';
import type { CheckDef } from '../spec/model.js';
import { hasInputs } from './input-pins.js';
import { commandOf, type Pins } from './pins.js';

/**
 * The digest of what a person allowed one check to run under: the PATH it
 * is given, the program its command resolved to (path and SHA-256), and the
 * tool configs it reads (those on its cwd chain, and those outside the
 * workspace: HOME's). Every receipt records the digest of the pins it ran
 * under; status counts a receipt only when that digest is the one of the
 * trust record in force (`pins_mismatch` otherwise), so a run made under a
 * trust record of the agent's own (a throw-away VOUCH_HOME allowed with a
 * PATH holding a fake `node`) never vouches, even for a spec of the same
 * bytes. A check that declares inputs adds the digest of its input pin (the
 * set of files its inputs matched at allow, and their bytes): two trust
 * records that pinned other inputs give other digests.
 *
 * Deliberately not in it: the pin's file identity (inode, timestamps), so a
 * person allowing again over the same programs keeps the receipts valid.
 */
export function checkPinsDigest(pins: Pins, check: CheckDef, root: string): Sha256 {
  const pin = pins.executables[check.id];
  // A card's frozen check may carry an id whose pin was taken for another command: it has none then, as executableDrift sees it.
  const executable = pin && pin.command === commandOf(check) ? pin : null;
  // A flat array of strings (and nulls) in a fixed order: JSON.stringify of it is canonical already, and status
  // computes one per check on every call, where a JCS pass over an object costs several times as much.
  const flat = ['pins/1', pins.path, executable?.command ?? null, executable?.path ?? null, executable?.sha256 ?? null, ...configsFor(pins, check.cwd, root)];
  if (hasInputs(check)) flat.push('inputs', inputPinDigest(pins, check));
  return sha256(JSON.stringify(flat));
}

/** The digest of a check's input pin, or null when its record pinned none of these globs. */
function inputPinDigest(pins: Pins, check: CheckDef): string | null {
  const pin = pins.inputs?.[check.id];
  if (!pin) return null;
  const globs = [...check.inputs].sort();
  const same = pin.globs.length === globs.length && pin.globs.every((glob, i) => glob === globs[i]);
  return same ? pin.digest : null;
}

/** The pinned tool configs a check in this cwd reads, flattened (path, digest, ...) in path order; computed once per cwd. */
const byCwd = new WeakMap<Pins, Map<string, readonly string[]>>();

function configsFor(pins: Pins, cwd: string, root: string): readonly string[] {
  let known = byCwd.get(pins);
  if (!known) byCwd.set(pins, (known = new Map<string, readonly string[]>()));
  const cached = known.get(`${root}\0${cwd}`);
  if (cached) return cached;
  const chain = new Set<string>();
  for (let dir = cwd === '.' ? root : join(root, cwd); ; dir = dirname(dir)) {
    chain.add(dir);
    if (dir === root || dirname(dir) === dir) break;
  }
  const flat = Object.entries(pins.tool_configs)
    .filter(([path]) => chain.has(path.slice(0, path.lastIndexOf('/'))) || !isInside(root, path))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .flat();
  known.set(`${root}\0${cwd}`, flat);
  return flat;
}
