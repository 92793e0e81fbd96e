import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../src/core/digest.js';
import { canonicalize } from '../src/core/jcs.js';
import { bodyAt, rows, withLedgerDb } from './helpers/ledger-db.js';
import { Rig } from './helpers/rig.js';
import { SIGNED_SPEC, signedWorkspace } from './helpers/signed.js';

const statusOf = async (rig: Rig) => {
  const result = await rig.run(['status', 't', '--json']);
  return { code: result.code, check: result.json().checks[0] };
};

/** What an agent with write access to .vouch/ but no key can do: append a well-formed, correctly chained PASS. */
function appendForgedPass(rig: Rig): void {
  withLedgerDb(rig, (db) => {
    const last = db.prepare("SELECT seq, hash FROM chain WHERE kind = 'receipt' ORDER BY seq DESC LIMIT 1").get() as { seq: number; hash: string };
    const body = { ...JSON.parse(bodyAt(db, last.seq)), id: '01zzzzzzzzzzzzzzzzzzzzzzzz', verdict: 'PASS', reason: 'ok', exit_code: 0, prev_hash: last.hash };
    const text = canonicalize(body);
    db.prepare('INSERT INTO chain (id, kind, check_id, manifest, created_at, hash, body, signature) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)').run(
      body.id,
      'receipt',
      body.check_id,
      body.manifest_digest,
      Date.now(),
      sha256(text),
      text,
    );
  });
}

describe('signed receipts and status', () => {
  it('signs every receipt with the selected key, and a validly signed receipt is PASS', async () => {
    const rig = await signedWorkspace(new Rig(), 1);
    const [row] = rows(rig);
    expect(JSON.parse(row!.signature!)).toMatchObject({ alg: 'ed25519', keyid: (await rig.run(['keys', 'list', '--json'])).json()[0].keyid });
    expect(await statusOf(rig)).toMatchObject({ code: 0, check: { status: 'PASS', reason: 'ok' } });
  });

  it('a receipt signed by a key this machine does not trust is never PASS (signature_untrusted)', async () => {
    const rig = await signedWorkspace(new Rig(), 1);
    // The key that signed it is no longer among VOUCH_HOME's keys.
    renameSync(join(rig.home, 'keys'), join(rig.home, 'keys.retired'));
    const { code, check } = await statusOf(rig);
    expect(code).toBe(1);
    expect(check).toMatchObject({ status: 'UNKNOWN', reason: 'signature_untrusted' });
    const human = await rig.run(['status']);
    expect(human.stdout).toMatch(/UNKNOWN\s+t\s+signature_untrusted/);
    expect(human.stdout).toContain('vouch keys list');
  });

  it('a receipt whose signature was replaced is never PASS (signature_invalid)', async () => {
    const rig = await signedWorkspace(new Rig(), 2);
    withLedgerDb(rig, (db) => db.prepare('UPDATE chain SET signature = (SELECT signature FROM chain WHERE seq = 1) WHERE seq = 2').run());
    expect(await statusOf(rig)).toMatchObject({ code: 1, check: { status: 'UNKNOWN', reason: 'signature_invalid' } });
  });

  it('under require_signature, an unsigned receipt is never PASS, including a forged one appended without the key', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
    await rig.run(['verify']);
    expect((await statusOf(rig)).check.status).toBe('PASS');
    await rig.run(['keys', 'generate']);
    await rig.spec(`${SIGNED_SPEC}require_signature: true\n`);
    expect(await statusOf(rig)).toMatchObject({ code: 1, check: { status: 'UNKNOWN', reason: 'signature_missing' } });
    expect((await rig.run(['verify', 't'])).code).toBe(0);
    expect((await statusOf(rig)).check.status).toBe('PASS');
    appendForgedPass(rig);
    const forged = await statusOf(rig);
    expect(forged).toMatchObject({ code: 1, check: { status: 'UNKNOWN', reason: 'signature_missing', receipt: '01zzzzzzzzzzzzzzzzzzzzzzzz' } });
  });

  it('without require_signature an unsigned receipt still counts: signing alone is evidence for audit and export, not a gate', async () => {
    const rig = await signedWorkspace(new Rig(), 1);
    appendForgedPass(rig);
    // Documented limit: status takes the forged unsigned PASS; audit is what catches it.
    expect((await statusOf(rig)).check).toMatchObject({ status: 'PASS', receipt: '01zzzzzzzzzzzzzzzzzzzzzzzz' });
    expect((await rig.run(['audit', '--json'])).json().findings.map((f: any) => f.code)).toEqual(['signature_missing']);
  });

  it('signs the gc record too, so a signing workspace stays fully signed after gc', async () => {
    const rig = await signedWorkspace(new Rig(), 3);
    await rig.run(['gc', '--keep-per-check', '1']);
    const gc = rows(rig).find((r) => r.kind === 'gc')!;
    expect(gc.signature).not.toBeNull();
    expect((await rig.run(['audit', '--json'])).json()).toMatchObject({ ok: true, signed_by: { default: 2 }, unsigned: 0 });
  });
});
