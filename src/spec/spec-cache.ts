import { nodeCrypto } from '../core/builtins.js';
import { hmacSha256, sameBytes } from '../core/hash.js';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILD_ID } from '../build-id.js';
import { sha256 as digest, type Sha256 } from '../core/digest.js';
import type { Spec } from './model.js';

const FORMAT = 2;

/**
 * Beside the trust record, in VOUCH_HOME, not in the workspace: whoever can
 * change what this file says could as well rewrite the trust record, so the
 * cache moves no boundary. One file per workspace.
 */
function cacheFile(home: string, root: string): string {
  return join(home, 'specs', `${digest(root).slice(0, 32)}.json`);
}

interface Cached {
  readonly v: number;
  readonly build: string;
  readonly root: string;
  readonly spec_sha256: Sha256;
  /** Every field of the validated spec but where it was read and its hash, which a hit takes from now. */
  readonly spec: Omit<Spec, 'path' | 'sha256'>;
}

/**
 * The validated form of vouch.yaml, remembered by the SHA-256 of its exact
 * bytes, so that `status`, `verify` and hook calls need not load the YAML
 * parser and schema validator (a third of their start-up) while the spec is
 * unchanged. A hit needs the same bytes, the same build of vouch (another
 * build might validate or normalise differently), the same workspace and a
 * MAC by the cache key (a torn, copied or hand-made file is not believed).
 * Trust is decided on the hash of the bytes read now, never on the cache.
 */
export function cachedSpec(home: string, root: string, key: Buffer, specPath: string, sha256: Sha256): Spec | undefined {
  if (BUILD_ID === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(cacheFile(home, root), 'utf8');
  } catch {
    return undefined;
  }
  const newline = text.indexOf('\n');
  const body = text.slice(newline + 1);
  const expected = mac(key, body);
  const found = Buffer.from(text.slice(0, newline), 'hex');
  if (newline < 0 || found.length !== expected.length || !sameBytes(found, expected)) return undefined;
  let cached: Cached;
  try {
    cached = JSON.parse(body) as Cached;
  } catch {
    return undefined;
  }
  if (cached.v !== FORMAT || cached.build !== BUILD_ID || cached.root !== root || cached.spec_sha256 !== sha256) return undefined;
  return { ...cached.spec, path: specPath, sha256 };
}

/** Remembers a validated spec (best effort: a cache that cannot be written costs only time). */
export function rememberSpec(home: string, root: string, key: Buffer, spec: Spec): void {
  if (BUILD_ID === undefined) return;
  const { path: _path, sha256: _sha256, ...rest } = spec;
  const cached: Cached = { v: FORMAT, build: BUILD_ID, root, spec_sha256: spec.sha256, spec: rest };
  const body = JSON.stringify(cached);
  const file = cacheFile(home, root);
  const temp = `${file}.${process.pid}.${nodeCrypto().randomBytes(6).toString('hex')}.tmp`;
  try {
    mkdirSync(join(home, 'specs'), { recursive: true, mode: 0o700 });
    writeFileSync(temp, `${mac(key, body).toString('hex')}\n${body}`, { mode: 0o600 });
    renameSync(temp, file);
  } catch {
    try {
      rmSync(temp, { force: true });
    } catch {
      // Nothing was written.
    }
  }
}

function mac(key: Buffer, body: string): Buffer {
  return hmacSha256(key, 'vouch spec cache\0', body);
}
