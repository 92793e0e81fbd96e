import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bundleText, pae, readBundle, tamper, type TestEnvelope } from './helpers/dsse.js';
import { rows } from './helpers/ledger-db.js';
import { Rig } from './helpers/rig.js';
import { CI, PYTHON, hasOpenssl, hasPythonCryptography } from './helpers/independent-verifiers.js';

/**
 * Proof that others agree: envelopes vouch exports are checked by
 * implementations that are not vouch. OpenSSL verifies the Ed25519 signature
 * over the DSSE PAE bytes; Debian's python3-cryptography (run as
 * /usr/bin/python3, not whatever python3 is first on PATH) parses the bundle
 * and builds the PAE itself. Outside CI a missing tool skips these tests
 * visibly; in CI (CI=true) it fails them: .ci/run installs both.
 */

const PY_VERIFY_BUNDLE = `
import base64, json, sys
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(sys.argv[2]))
results = []
with open(sys.argv[1], "rb") as bundle:
    for line in bundle:
        if not line.strip():
            continue
        envelope = json.loads(line)
        payload = base64.b64decode(envelope["payload"])
        kind = envelope["payloadType"].encode("utf-8")
        message = b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)
        good = False
        for signature in envelope["signatures"]:
            try:
                key.verify(base64.b64decode(signature["sig"]), message)
                good = True
            except InvalidSignature:
                pass
        results.append("ok" if good else "bad")
print(" ".join(results))
sys.exit(0 if results and all(r == "ok" for r in results) else 1)
`;

const PY_VERIFY_BODY = `
import base64, sys
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(sys.argv[1]))
with open(sys.argv[2], "rb") as body:
    message = body.read()
try:
    key.verify(base64.b64decode(sys.argv[3]), message)
    print("ok")
except InvalidSignature:
    print("bad")
    sys.exit(1)
`;

async function exportedBundle(): Promise<{ rig: Rig; envelopes: TestEnvelope[]; hex: string }> {
  const rig = new Rig().write({ 'src/a.ts': 'a\n' });
  await rig.run(['keys', 'generate']);
  await rig.spec(`version: 1
signing_key: default
checks:
  - {id: t, run: ["true"], sources: ["src/**"]}
  - {id: build, run: ["sh", "-c", "mkdir -p out && cp src/a.ts out/a"], sources: ["src/**"], artifacts: ["out/a"]}
  - {id: failing, run: ["false"], sources: ["src/**"]}
`);
  await rig.run(['verify']);
  const exported = await rig.run(['export', '--format', 'intoto', '--out', 'bundle.intoto.jsonl']);
  expect(exported.code, exported.stderr).toBe(0);
  writeFileSync(rig.path('pub.pem'), (await rig.run(['keys', 'export-public', '--format', 'pem'])).stdout);
  const hex = (await rig.run(['keys', 'export-public', '--format', 'hex'])).stdout.trim();
  return { rig, envelopes: readBundle(rig.path('bundle.intoto.jsonl')), hex };
}

/** A copy whose last statement claims PASS, with the original signature kept. */
function forgedPass(envelope: TestEnvelope): TestEnvelope {
  return tamper(envelope, (statement) => {
    statement.predicate.result = 'PASSED';
    statement.predicate.passedTests = ['failing'];
    statement.predicate.failedTests = [];
  });
}

function opensslVerify(rig: Rig, envelope: TestEnvelope, sig = envelope.signatures[0]!.sig) {
  writeFileSync(rig.path('pae.bin'), pae(envelope.payloadType, Buffer.from(envelope.payload, 'base64')));
  writeFileSync(rig.path('sig.bin'), Buffer.from(sig, 'base64'));
  return spawnSync('openssl', ['pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', 'pub.pem', '-in', 'pae.bin', '-sigfile', 'sig.bin'], {
    cwd: rig.root,
    encoding: 'utf8',
  });
}

describe('exported envelopes verify with implementations that are not vouch', () => {
  // .ci/run installs openssl, so in CI this always runs (and fails if it is missing); skipped, by name, only on a developer machine without it.
  it.skipIf(!hasOpenssl && !CI)('openssl pkeyutl -verify -rawin accepts every good envelope and rejects tampered ones', async () => {
    expect(hasOpenssl, 'openssl is missing: .ci/run installs it (apt-get install openssl)').toBe(true);
    const { rig, envelopes } = await exportedBundle();
    expect(envelopes).toHaveLength(3);
    for (const envelope of envelopes) {
      const good = opensslVerify(rig, envelope);
      expect(good.status, good.stderr).toBe(0);
      expect(good.stdout).toContain('Signature Verified Successfully');
    }
    const forged = opensslVerify(rig, forgedPass(envelopes[2]!));
    expect(forged.status).not.toBe(0);
    expect(forged.stdout).toContain('Signature Verification Failure');
    const flipped = Buffer.from(envelopes[0]!.signatures[0]!.sig, 'base64');
    flipped[10]! ^= 1;
    expect(opensslVerify(rig, envelopes[0]!, flipped.toString('base64')).status).not.toBe(0);
  });

  // .ci/run installs python3-cryptography, so in CI this always runs (and fails if it is missing); skipped, by name, only on a developer machine without it.
  it.skipIf(!hasPythonCryptography && !CI)("Debian's python3-cryptography accepts every good envelope and rejects tampered ones", async () => {
    expect(hasPythonCryptography, `${PYTHON} cannot import cryptography: .ci/run installs python3-cryptography`).toBe(true);
    const { rig, envelopes, hex } = await exportedBundle();
    const good = spawnSync(PYTHON, ['-c', PY_VERIFY_BUNDLE, 'bundle.intoto.jsonl', hex], { cwd: rig.root, encoding: 'utf8' });
    expect(good.stdout.trim(), good.stderr).toBe('ok ok ok');
    expect(good.status).toBe(0);
    writeFileSync(rig.path('tampered.jsonl'), bundleText([envelopes[0]!, envelopes[1]!, forgedPass(envelopes[2]!)]));
    const bad = spawnSync(PYTHON, ['-c', PY_VERIFY_BUNDLE, 'tampered.jsonl', hex], { cwd: rig.root, encoding: 'utf8' });
    expect(bad.stdout.trim(), bad.stderr).toBe('ok ok bad');
    expect(bad.status).toBe(1);
    // vouch agrees with both verdicts.
    expect((await rig.run(['verify-receipt', 'bundle.intoto.jsonl', '--key', hex])).code).toBe(0);
    expect((await rig.run(['verify-receipt', 'tampered.jsonl', '--key', hex])).code).toBe(1);
  });

  // .ci/run installs python3-cryptography, so in CI this always runs (and fails if it is missing); skipped, by name, only on a developer machine without it.
  it.skipIf(!hasPythonCryptography && !CI)("python3-cryptography verifies the ledger's own signatures over the canonical receipt bodies", async () => {
    expect(hasPythonCryptography, `${PYTHON} cannot import cryptography: .ci/run installs python3-cryptography`).toBe(true);
    const { rig, hex } = await exportedBundle();
    for (const row of rows(rig)) {
      writeFileSync(rig.path('body.json'), row.body);
      const sig = JSON.parse(row.signature!).sig as string;
      const good = spawnSync(PYTHON, ['-c', PY_VERIFY_BODY, hex, 'body.json', sig], { cwd: rig.root, encoding: 'utf8' });
      expect(good.stdout.trim(), good.stderr).toBe('ok');
      writeFileSync(rig.path('body.json'), row.body.replace('"verdict":"FAIL"', '"verdict":"PASS"').replace('"exit_code":0', '"exit_code":3'));
      const bad = spawnSync(PYTHON, ['-c', PY_VERIFY_BODY, hex, 'body.json', sig], { cwd: rig.root, encoding: 'utf8' });
      expect(bad.stdout.trim()).toBe('bad');
    }
  });
});
