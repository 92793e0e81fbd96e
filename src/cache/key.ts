import { nodeCrypto } from '../core/builtins.js';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const KEY_FILE = 'cache.key';
const KEY_BYTES = 32;

/**
 * The secret that authenticates stat caches, kept in VOUCH_HOME (outside
 * every workspace) and created on first use. A cache sits in the workspace,
 * where an agent writes freely; without this key it cannot hand vouch a
 * cache that maps an edited file to its old hash. (A process running as the
 * same user can read VOUCH_HOME too: this is the same boundary as the trust
 * record, see README "Security model".)
 *
 * Undefined when the key cannot be read or created: vouch then works without
 * a cache, only slower.
 */
export function cacheKey(home: string): Buffer | undefined {
  const path = join(home, KEY_FILE);
  const existing = readKey(path);
  if (existing !== 'absent') return existing;
  const temp = `${path}.${process.pid}.${nodeCrypto().randomBytes(6).toString('hex')}.tmp`;
  try {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    writeFileSync(temp, nodeCrypto().randomBytes(KEY_BYTES), { flag: 'wx', mode: 0o600 });
    // link() never replaces: of two processes creating the key at once, one
    // wins and both use its key, which appears whole or not at all.
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  } finally {
    try {
      rmSync(temp, { force: true });
    } catch {
      // Nothing was created.
    }
  }
  const created = readKey(path);
  return created === 'absent' ? undefined : created;
}

function readKey(path: string): Buffer | undefined | 'absent' {
  try {
    const key = readFileSync(path);
    return key.length === KEY_BYTES ? key : undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'absent' : undefined;
  }
}
