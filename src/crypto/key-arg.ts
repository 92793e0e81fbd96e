import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { Problem } from '../core/problem.js';
import { err, ok, type Result } from '../core/result.js';
import { publicKeyFromHex, publicKeyFromPem, type PublicKey } from './ed25519.js';
import { findPublicKey, KEY_NAME } from './keystore.js';

const HEX_KEY = /^[0-9a-fA-F]{64}$/;

/**
 * A public key given on the command line (`--key PUB`): 64 hex characters,
 * a file holding a PEM or hex public key, or the name of a key under
 * VOUCH_HOME/keys, tried in that order.
 */
export function publicKeyArg(value: string, home: string, cwd: string, flag: string): Result<{ name: string; publicKey: PublicKey }, Problem> {
  const invalid = (message: string, where?: string): Result<never, Problem> =>
    err({
      code: 'key_invalid',
      message,
      where: where ?? flag,
      expected: 'a raw Ed25519 public key as 64 hex characters, a file holding one (PEM or hex), or the name of a key in VOUCH_HOME/keys',
      found: value,
      hint: '`vouch keys export-public --format hex` prints one',
    });
  if (HEX_KEY.test(value)) {
    const publicKey = publicKeyFromHex(value.toLowerCase());
    return ok({ name: `key ${publicKey.keyid.slice(0, 16)}`, publicKey });
  }
  const path = resolve(cwd, value);
  if (existsSync(path) && statSync(path).isFile()) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      return invalid(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, path);
    }
    try {
      const trimmed = text.trim();
      const publicKey = trimmed.includes('-----BEGIN') ? publicKeyFromPem(trimmed) : publicKeyFromHex(trimmed);
      return ok({ name: basename(path), publicKey });
    } catch (error) {
      return invalid(`${path} holds no Ed25519 public key: ${error instanceof Error ? error.message : String(error)}`, path);
    }
  }
  if (KEY_NAME.test(value)) {
    const stored = findPublicKey(home, value);
    if (stored.ok) return ok({ name: stored.value.name, publicKey: stored.value.publicKey });
    if (stored.error.code !== 'key_not_found') return err(stored.error);
  }
  return invalid(`${flag} ${JSON.stringify(value)} is neither a hex public key, a readable file, nor a key in VOUCH_HOME/keys`);
}
