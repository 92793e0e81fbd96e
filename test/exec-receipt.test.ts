import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rows } from './helpers/ledger-db.js';
import { Rig } from './helpers/rig.js';
import { CI, PYTHON, hasOpenssl, hasPythonCryptography } from './helpers/independent-verifiers.js';

/**
 * A signed exec receipt (`vouch exec --receipt FILE`) checked by vouch and
 * by implementations that are not vouch: python3-cryptography puts the body
 * in canonical form itself (sorted keys, no spaces: RFC 8785 for these
 * strings and integers) and verifies the Ed25519 signature over it; openssl
 * verifies the same bytes. As in interop.test.ts, a missing tool skips
 * visibly outside CI and fails in CI (.ci/run installs both).
 */

/** Canonical bytes of the body to argv[3] (for openssl), then the verdict of the signature over them. */
const PY_VERIFY_EXEC = `
import base64, hashlib, json, sys
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

receipt = json.load(open(sys.argv[1], encoding="utf-8"))
assert receipt["type"] == "vouch.exec-receipt/v1"
body = json.dumps(receipt["body"], sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
open(sys.argv[3], "wb").write(body)
open(sys.argv[4], "wb").write(base64.b64decode(receipt["signature"]["sig"]))
key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(sys.argv[2]))
hashed = hashlib.sha256(body).hexdigest() == receipt["hash"]
try:
    key.verify(base64.b64decode(receipt["signature"]["sig"]), body)
    print("ok" if hashed else "hash")
except InvalidSignature:
    print("bad")
    sys.exit(1)
`;

async function signedExec(): Promise<{ rig: Rig; hex: string }> {
  const rig = new Rig().write({ 'src/a.txt': 'a\n' });
  await rig.run(['keys', 'generate']);
  await rig.spec(`version: 1
signing_key: default
checks:
  - {id: t, run: ["true"], sources: ["src/**"]}
exec:
  deny: [wget]
`);
  const ran = await rig.run(['exec', '--receipt', 'exec.json', '--', 'sh', '-c', 'echo signed; printf b > src/b.txt']);
  expect(ran.code, ran.stderr).toBe(0);
  expect(ran.stderr).toMatch(/VERIFIED exit 0 · receipt [0-9a-z]{8}\n/);
  writeFileSync(rig.path('pub.pem'), (await rig.run(['keys', 'export-public', '--format', 'pem'])).stdout);
  const hex = (await rig.run(['keys', 'export-public', '--format', 'hex'])).stdout.trim();
  return { rig, hex };
}

/** The receipt file with one field of its body changed, the signature kept. */
function forge(rig: Rig, change: (body: Record<string, any>) => void): void {
  const receipt = JSON.parse(rig.read('exec.json'));
  change(receipt.body);
  writeFileSync(rig.path('forged.json'), JSON.stringify(receipt));
}

describe('the exec receipt', () => {
  it('binds argv, cwd, policy, decision, exit code, output digests and files written, and is the ledger entry signed', async () => {
    const { rig } = await signedExec();
    const receipt = JSON.parse(rig.read('exec.json'));
    expect(receipt.body).toMatchObject({
      kind: 'exec',
      decision: 'ALLOWED',
      argv: ['sh', '-c', 'echo signed; printf b > src/b.txt'],
      cwd: rig.root,
      exit_code: 0,
      files_written: [{ path: 'src/b.txt', sha256: '3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d' }],
      policy: { deny: ['wget'], network: false, mode: 'enforce', writable: ['.'], timeout: 600 },
    });
    expect(receipt.signature).toMatchObject({ alg: 'ed25519' });
    const entry = rows(rig).find((row) => row.kind === 'exec')!;
    expect(entry.hash).toBe(receipt.hash);
    expect(JSON.parse(entry.signature!).sig).toBe(receipt.signature.sig);
    expect((await rig.run(['audit'])).code).toBe(0);
  });

  it('vouch verify-receipt accepts it, and rejects a forged exit code, a forged argv and another key', async () => {
    const { rig, hex } = await signedExec();
    const good = await rig.run(['verify-receipt', 'exec.json', '--key', hex, '--json']);
    expect(good.code, good.stdout).toBe(0);
    expect(good.json()).toMatchObject({ ok: true, exec: { decision: 'ALLOWED', exit_code: 0, findings: [] } });
    forge(rig, (body) => (body.exit_code = 1));
    const exit = await rig.run(['verify-receipt', 'forged.json', '--key', hex, '--json']);
    expect(exit.code).toBe(1);
    expect(exit.json().exec.findings.map((f: { code: string }) => f.code)).toEqual(['hash_mismatch', 'signature_invalid']);
    forge(rig, (body) => (body.argv = ['echo', 'innocent']));
    expect((await rig.run(['verify-receipt', 'forged.json', '--key', hex])).code).toBe(1);
    const other = new Rig();
    await other.run(['keys', 'generate']);
    const otherHex = (await other.run(['keys', 'export-public', '--format', 'hex'])).stdout.trim();
    const untrusted = await rig.run(['verify-receipt', 'exec.json', '--key', otherHex, '--json']);
    expect(untrusted.code).toBe(1);
    expect(untrusted.json().exec.findings[0].code).toBe('untrusted_key');
  });

  it("an unsigned workspace's receipt says so, and does not verify", async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a\n' });
    await rig.run(['keys', 'generate']);
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
    const ran = await rig.run(['exec', '--receipt', 'exec.json', '--', 'echo', 'x']);
    expect(ran.stderr).toContain('(unsigned: no signing_key)');
    const hex = (await rig.run(['keys', 'export-public', '--format', 'hex'])).stdout.trim();
    const checked = await rig.run(['verify-receipt', 'exec.json', '--key', hex, '--json']);
    expect(checked.code).toBe(1);
    expect(checked.json().exec.findings[0].code).toBe('unsigned');
  });

  // .ci/run installs python3-cryptography and openssl, so in CI this always runs (and fails if either is missing).
  it.skipIf((!hasPythonCryptography || !hasOpenssl) && !CI)('python3-cryptography and openssl verify it independently, and reject a forged one', async () => {
    expect(hasPythonCryptography, `${PYTHON} cannot import cryptography: .ci/run installs python3-cryptography`).toBe(true);
    expect(hasOpenssl, 'openssl is missing: .ci/run installs it').toBe(true);
    const { rig, hex } = await signedExec();
    const py = spawnSync(PYTHON, ['-c', PY_VERIFY_EXEC, 'exec.json', hex, 'body.bin', 'sig.bin'], { cwd: rig.root, encoding: 'utf8' });
    expect(py.stdout.trim(), py.stderr).toBe('ok');
    // python's canonical bytes are the ledger's own: the same text the entry's hash covers.
    expect(readFileSync(rig.path('body.bin'), 'utf8')).toBe(rows(rig).find((row) => row.kind === 'exec')!.body);
    const openssl = spawnSync('openssl', ['pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', 'pub.pem', '-in', 'body.bin', '-sigfile', 'sig.bin'], {
      cwd: rig.root,
      encoding: 'utf8',
    });
    expect(openssl.status, openssl.stderr).toBe(0);
    expect(openssl.stdout).toContain('Signature Verified Successfully');
    forge(rig, (body) => (body.decision = 'BLOCKED'));
    const bad = spawnSync(PYTHON, ['-c', PY_VERIFY_EXEC, 'forged.json', hex, 'body.bin', 'sig.bin'], { cwd: rig.root, encoding: 'utf8' });
    expect(bad.stdout.trim()).toBe('bad');
    const badSsl = spawnSync('openssl', ['pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', 'pub.pem', '-in', 'body.bin', '-sigfile', 'sig.bin'], {
      cwd: rig.root,
      encoding: 'utf8',
    });
    expect(badSsl.status).not.toBe(0);
  });
});
