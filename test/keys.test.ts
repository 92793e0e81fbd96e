import { createPublicKey } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../src/core/digest.js';
import { Rig } from './helpers/rig.js';

const SPEC = 'version: 1\nsigning_key: default\nchecks:\n  - {id: t, run: ["touch", "ran.marker"], sources: ["src/**"]}\n';

describe('vouch keys', () => {
  it('generates an Ed25519 pair under VOUCH_HOME/keys: private 0600 in a 0700 directory, public PEM beside it', async () => {
    const rig = new Rig();
    const result = await rig.run(['keys', 'generate', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const created = result.json();
    const dir = join(rig.home, 'keys');
    expect(created).toMatchObject({ ok: true, name: 'default', private_path: join(dir, 'default.key'), public_path: join(dir, 'default.pub') });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'default.key')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, 'default.key'), 'utf8')).toContain('-----BEGIN PRIVATE KEY-----');
    // The hex form is the raw key inside the PEM, and the key id is its SHA-256.
    const raw = Buffer.from(createPublicKey(readFileSync(join(dir, 'default.pub'), 'utf8')).export({ format: 'jwk' }).x!, 'base64url');
    expect(created.public_hex).toBe(raw.toString('hex'));
    expect(created.keyid).toBe(sha256(raw));
  });

  it('lists keys and exports the public half as PEM (default) and hex', async () => {
    const rig = new Rig();
    await rig.run(['keys', 'generate']);
    await rig.run(['keys', 'generate', '--name', 'ci-runner']);
    const list = (await rig.run(['keys', 'list', '--json'])).json();
    expect(list.map((k: any) => [k.name, k.private])).toEqual([
      ['ci-runner', true],
      ['default', true],
    ]);
    const pem = (await rig.run(['keys', 'export-public', 'ci-runner'])).stdout;
    expect(pem).toBe(readFileSync(join(rig.home, 'keys', 'ci-runner.pub'), 'utf8'));
    const hex = (await rig.run(['keys', 'export-public', 'ci-runner', '--format', 'hex'])).stdout.trim();
    expect(hex).toBe(list[0].public_hex);
    expect((await rig.run(['keys', 'list'])).stdout).toMatch(/ci-runner\s+[0-9a-f]{16}\s+key pair/);
  });

  it('never overwrites a key: a second generate with the same name is exit 2 and leaves the key as it was', async () => {
    const rig = new Rig();
    await rig.run(['keys', 'generate']);
    const before = readFileSync(join(rig.home, 'keys', 'default.key'));
    const again = await rig.run(['keys', 'generate', '--json']);
    expect(again.code).toBe(2);
    expect(again.json().error.code).toBe('key_exists');
    expect(readFileSync(join(rig.home, 'keys', 'default.key')).equals(before)).toBe(true);
  });

  it('refuses a key store inside the workspace, where the agent could read the key', async () => {
    const rig = new Rig().write({ 'vouch.yaml': SPEC, 'src/a.ts': 'a' });
    const inside = rig.path('.secrets/vouch-home');
    const result = await rig.run(['keys', 'generate', '--json'], { env: { VOUCH_HOME: inside } });
    expect(result.code).toBe(2);
    expect(result.json().error.code).toBe('key_unsafe');
    expect(existsSync(join(inside, 'keys', 'default.key'))).toBe(false);
    // Also from outside the workspace: any directory holding a vouch.yaml counts.
    const fromOutside = await rig.run(['keys', 'generate'], { env: { VOUCH_HOME: inside }, cwd: rig.home });
    expect(fromOutside.code).toBe(2);
    expect(fromOutside.stderr).toContain('is inside the workspace');
  });

  it.each([['../escape'], ['.hidden'], ['a b']])('refuses the key name %j', async (name) => {
    const result = await new Rig().run(['keys', 'generate', '--name', name]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('invalid key name');
  });

  it('refuses to sign with a private key others can read: verify stops before running anything', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.run(['keys', 'generate']);
    chmodSync(join(rig.home, 'keys', 'default.key'), 0o644);
    await rig.spec(SPEC);
    const result = await rig.run(['verify', '--json']);
    expect(result.code).toBe(2);
    expect(result.json().error).toMatchObject({ code: 'key_unsafe', hint: `chmod 600 ${join(rig.home, 'keys', 'default.key')}` });
    expect(existsSync(rig.path('ran.marker'))).toBe(false);
    expect(existsSync(rig.path('.vouch/ledger.db'))).toBe(false);
  });

  it('refuses a selected key that does not exist, naming what selected it; VOUCH_SIGNING_KEY wins over signing_key', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(SPEC);
    const missing = await rig.run(['verify']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no key named "default"');
    expect(missing.stderr).toContain('(selected by signing_key)');
    expect(existsSync(rig.path('ran.marker'))).toBe(false);
    await rig.run(['keys', 'generate', '--name', 'ci']);
    const viaEnv = await rig.run(['verify', '--json'], { env: { VOUCH_SIGNING_KEY: 'ci' } });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    const shown = (await rig.run(['show', viaEnv.json().checks[0].receipt, '--json'])).json();
    const ciKeyid = (await rig.run(['keys', 'list', '--json'])).json()[0].keyid;
    expect(JSON.parse(shown.signature).keyid).toBe(ciKeyid);
  });

  it('with require_signature: true and no key selected, verify refuses to run (signing_key_required)', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec('version: 1\nrequire_signature: true\nchecks:\n  - {id: t, run: ["touch", "ran.marker"], sources: ["src/**"]}\n');
    const result = await rig.run(['verify', '--json']);
    expect(result.code).toBe(2);
    expect(result.json().error.code).toBe('signing_key_required');
    expect(existsSync(rig.path('ran.marker'))).toBe(false);
  });

  it('refuses a private key whose .pub is missing: receipts signed with it could not be trusted', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.run(['keys', 'generate']);
    const { rmSync } = await import('node:fs');
    rmSync(join(rig.home, 'keys', 'default.pub'));
    await rig.spec(SPEC);
    const result = await rig.run(['verify', '--json']);
    expect(result.code).toBe(2);
    expect(result.json().error.code).toBe('key_invalid');
  });

  it('keys list says so when there are none; an unknown subcommand is a usage error', async () => {
    const rig = new Rig();
    mkdirSync(join(rig.home, 'keys'));
    expect((await rig.run(['keys', 'list'])).stdout).toContain('no keys in');
    const bad = await rig.run(['keys', 'make']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown keys subcommand "make"');
  });
});
