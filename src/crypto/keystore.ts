import { noteLoaded } from '../core/start.js';
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Problem } from '../core/problem.js';
import { err, ok, type Result } from '../core/result.js';
import { isInside } from '../scope/scan.js';
import { SPEC_FILE } from '../workspace/spec-file.js';
import { generatePair, publicKeyFromPem, publicKeyOf, publicKeyPem, type PublicKey } from './ed25519.js';

noteLoaded('keystore');

/**
 * Key pairs live under VOUCH_HOME/keys as NAME.key (PKCS#8 PEM, mode 0600)
 * and NAME.pub (SPKI PEM). Never inside a workspace: an agent working there
 * must not be able to read the key that vouches for its work.
 */
export const KEY_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const DEFAULT_KEY_NAME = 'default';

export interface StoredKey {
  readonly name: string;
  readonly publicKey: PublicKey;
  /** Whether NAME.key is present next to NAME.pub (a public-only entry is trusted, not usable for signing). */
  readonly hasPrivate: boolean;
  readonly publicPath: string;
}

/** A key vouch can sign with. */
export interface SigningKey {
  readonly name: string;
  readonly privateKey: KeyObject;
  readonly publicKey: PublicKey;
}

export function keysDir(home: string): string {
  return join(home, 'keys');
}

function checkName(name: string): Problem | undefined {
  if (KEY_NAME.test(name)) return undefined;
  return {
    code: 'usage',
    message: 'invalid key name',
    expected: '1 to 64 characters from A-Z a-z 0-9 . _ -, starting with a letter or digit',
    found: name,
  };
}

/** The workspace (a directory holding vouch.yaml) that contains `path`, if any. */
function enclosingWorkspace(path: string): string | undefined {
  for (let dir = path; ; dir = dirname(dir)) {
    if (existsSync(join(dir, SPEC_FILE))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function insideWorkspaceProblem(path: string, workspace: string): Problem {
  return {
    code: 'key_unsafe',
    message: `the key store ${path} is inside the workspace ${workspace}, where the agent whose work it vouches for can read it`,
    where: path,
    hint: 'set VOUCH_HOME to a directory outside every workspace (the default is ~/.config/vouch)',
  };
}

/** Refuses a key directory inside the current workspace or inside any directory holding a vouch.yaml. */
function checkOutsideWorkspaces(dir: string, workspaceRoot: string | undefined): Problem | undefined {
  const real = existsSync(dir) ? realpathSync(dir) : resolve(dir);
  if (workspaceRoot !== undefined && isInside(workspaceRoot, real)) return insideWorkspaceProblem(dir, workspaceRoot);
  const enclosing = enclosingWorkspace(real);
  return enclosing === undefined ? undefined : insideWorkspaceProblem(dir, enclosing);
}

export function generateKey(home: string, name: string, workspaceRoot: string | undefined): Result<StoredKey, Problem> {
  const bad = checkName(name);
  if (bad) return err({ ...bad, where: 'vouch keys generate --name' });
  const dir = keysDir(home);
  const outside = checkOutsideWorkspaces(dir, workspaceRoot);
  if (outside) return err(outside);
  const privatePath = join(dir, `${name}.key`);
  const publicPath = join(dir, `${name}.pub`);
  if (existsSync(privatePath) || existsSync(publicPath)) {
    return err({
      code: 'key_exists',
      message: `a key named "${name}" already exists; keys are never overwritten`,
      where: existsSync(privatePath) ? privatePath : publicPath,
      hint: 'choose another name with --name, or move the old key aside first (receipts it signed stay verifiable only with its public key)',
    });
  }
  const pair = generatePair();
  const publicKey = publicKeyOf(pair.publicKey);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    // 'wx': never follow or replace something already there (a planted symlink included).
    writeFileSync(privatePath, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
    try {
      writeFileSync(publicPath, publicKeyPem(publicKey), { mode: 0o644, flag: 'wx' });
    } catch (error) {
      rmSync(privatePath, { force: true });
      throw error;
    }
  } catch (error) {
    return err({
      code: 'write_failed',
      message: `cannot write the key pair: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      where: dir,
      hint: 'check the permissions of VOUCH_HOME',
    });
  }
  return ok({ name, publicKey, hasPrivate: true, publicPath });
}

/** One entry of the key store: a usable public key, or why it is not. */
export type KeyListing =
  { readonly ok: true; readonly key: StoredKey } | { readonly ok: false; readonly name: string; readonly path: string; readonly why: string };

/** Every NAME.pub under VOUCH_HOME/keys, sorted by name. An absent directory is an empty store. */
export function listKeys(home: string): KeyListing[] {
  const dir = keysDir(home);
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((file) => file.endsWith('.pub'))
      .map((file) => file.slice(0, -4))
      .filter((name) => KEY_NAME.test(name));
  } catch {
    return [];
  }
  return names.sort().map((name): KeyListing => {
    const publicPath = join(dir, `${name}.pub`);
    try {
      const publicKey = publicKeyFromPem(readFileSync(publicPath, 'utf8'));
      return { ok: true, key: { name, publicKey, hasPrivate: existsSync(join(dir, `${name}.key`)), publicPath } };
    } catch (error) {
      return { ok: false, name, path: publicPath, why: error instanceof Error ? error.message : String(error) };
    }
  });
}

export function findPublicKey(home: string, name: string): Result<StoredKey, Problem> {
  const bad = checkName(name);
  if (bad) return err(bad);
  const entry = listKeys(home).find((listing) => (listing.ok ? listing.key.name : listing.name) === name);
  if (!entry) return err(notFound(home, name));
  if (!entry.ok) return err({ code: 'key_invalid', message: `${entry.path} is not an Ed25519 public key: ${entry.why}`, where: entry.path });
  return ok(entry.key);
}

function notFound(home: string, name: string): Problem {
  return {
    code: 'key_not_found',
    message: `no key named "${name}" in ${keysDir(home)}`,
    where: keysDir(home),
    hint: `create it with \`vouch keys generate --name ${name}\`, or list the keys there with \`vouch keys list\``,
  };
}

/**
 * Loads a private key for signing. Refused when it is readable by group or
 * others (as ssh refuses), when it resolves into a workspace, and when its
 * NAME.pub is missing or belongs to another key (receipts signed with it
 * would then not verify as this key's).
 */
export function loadSigningKey(home: string, name: string, workspaceRoot: string | undefined): Result<SigningKey, Problem> {
  const bad = checkName(name);
  if (bad) return err(bad);
  const privatePath = join(keysDir(home), `${name}.key`);
  let real: string;
  try {
    real = realpathSync(privatePath);
  } catch {
    return err(notFound(home, name));
  }
  const outside = checkOutsideWorkspaces(dirname(real), workspaceRoot);
  if (outside) return err(outside);
  const mode = lstatSync(real).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    return err({
      code: 'key_unsafe',
      message: `the private key ${privatePath} is readable by others (mode ${mode.toString(8).padStart(4, '0')})`,
      where: privatePath,
      expected: 'mode 0600 (owner only)',
      hint: `chmod 600 ${privatePath}`,
    });
  }
  let privateKey: KeyObject;
  let publicKey: PublicKey;
  try {
    privateKey = createPrivateKey({ key: readFileSync(real, 'utf8'), format: 'pem' });
    publicKey = publicKeyOf(privateKey);
  } catch (error) {
    return err({
      code: 'key_invalid',
      message: `${privatePath} is not an Ed25519 private key: ${error instanceof Error ? error.message : String(error)}`,
      where: privatePath,
    });
  }
  const stored = findPublicKey(home, name);
  if (!stored.ok || stored.value.publicKey.keyid !== publicKey.keyid) {
    return err({
      code: 'key_invalid',
      message: `${name}.pub is missing or is not the public half of ${name}.key`,
      where: join(keysDir(home), `${name}.pub`),
      hint: 'receipts are trusted by the public keys in VOUCH_HOME/keys; restore the matching NAME.pub',
    });
  }
  return ok({ name, privateKey, publicKey });
}
