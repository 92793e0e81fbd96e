import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../src/core/digest.js';
import { canonicalize } from '../src/core/jcs.js';
import { bodyAt, editBody, rows, setBody, withLedgerDb, type Row } from './helpers/ledger-db.js';
import { Rig } from './helpers/rig.js';
import { audit, findingCodes, signedWorkspace } from './helpers/signed.js';

/** Appends a forged entry the way an attacker without the key can: correct hash, correct link, no valid signature. */
function appendForged(rig: Rig, body: Record<string, unknown>, kind: string, signature: string | null = null): number {
  return withLedgerDb(rig, (db) => {
    const last = db.prepare('SELECT hash FROM chain ORDER BY seq DESC LIMIT 1').get() as { hash: string };
    const text = canonicalize({ ...body, prev_hash: last.hash });
    const info = db
      .prepare('INSERT INTO chain (id, kind, check_id, manifest, created_at, hash, body, signature) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(body.id, kind, body.check_id ?? null, body.manifest_digest ?? null, Date.now(), sha256(text), text, signature);
    return Number(info.lastInsertRowid);
  });
}

describe('vouch audit', () => {
  it('passes an untouched signed ledger: exit 0, every entry signed by the workspace key', async () => {
    const rig = await signedWorkspace(new Rig(), 4);
    const { code, report } = await audit(rig);
    expect(report.findings).toEqual([]);
    expect(code).toBe(0);
    expect(report).toMatchObject({ ok: true, entries: 4, receipts: 4, gc_records: 0, pruned: 0, signed_by: { default: 4 }, unsigned: 0 });
    expect(report.head).toEqual({ seq: 4, hash: rows(rig)[3]!.hash });
    // What it checked was stored compressed: audit read it back as the exact signed text.
    expect(rows(rig).every((row) => row.dict !== null)).toBe(true);
  });

  it('catches a compression dictionary edited: every receipt stored against it is body_altered, none reads as other content', async () => {
    const rig = await signedWorkspace(new Rig(), 3);
    withLedgerDb(rig, (db) => {
      const dict = db.prepare('SELECT body FROM dicts').pluck().get() as Buffer;
      db.prepare('UPDATE dicts SET body = ?').run(Buffer.from(dict.toString('utf8').replace('"exit_code":0', '"exit_code":1')));
    });
    const { code, report } = await audit(rig);
    expect(code).toBe(1);
    expect(findingCodes(report)).toEqual(['1:body_altered', '2:body_altered', '3:body_altered']);
  });

  it('catches the compressed bytes of a receipt flipped (body_altered)', async () => {
    const rig = await signedWorkspace(new Rig(), 3);
    withLedgerDb(rig, (db) => {
      const blob = db.prepare('SELECT body FROM chain WHERE seq = 2').pluck().get() as Buffer;
      blob[Math.floor(blob.length / 2)]! ^= 0x20;
      db.prepare('UPDATE chain SET body = ? WHERE seq = 2').run(blob);
    });
    const { code, report } = await audit(rig);
    expect(code).toBe(1);
    expect(findingCodes(report)).toEqual(['2:body_altered']);
  });

  it('catches an exit code changed in a stored receipt, at that receipt (body_altered)', async () => {
    const rig = await signedWorkspace(new Rig(), 4);
    withLedgerDb(rig, (db) => editBody(db, 2, (text) => text.replace('"exit_code":0', '"exit_code":1')));
    const { code, report } = await audit(rig);
    expect(code).toBe(1);
    expect(findingCodes(report)).toEqual(['2:body_altered']);
    expect(report.findings[0]).toMatchObject({ id: rows(rig)[1]!.id, kind: 'receipt' });
  });

  it('catches the same edit re-hashed to hide it: the signature fails there and the link breaks after it', async () => {
    const rig = await signedWorkspace(new Rig(), 4);
    withLedgerDb(rig, (db) => {
      const forged = bodyAt(db, 2).replace('"exit_code":0', '"exit_code":1');
      setBody(db, 2, forged);
      db.prepare('UPDATE chain SET hash = ? WHERE seq = 2').run(sha256(forged));
    });
    const { code, report } = await audit(rig);
    expect(code).toBe(1);
    expect(findingCodes(report)).toEqual(['2:signature_invalid', '3:link_broken']);
  });

  it('catches a deleted row as a gap at the entry after it', async () => {
    const rig = await signedWorkspace(new Rig(), 4);
    withLedgerDb(rig, (db) => db.prepare('DELETE FROM chain WHERE seq = 2').run());
    const { code, report } = await audit(rig);
    expect(code).toBe(1);
    expect(findingCodes(report)).toEqual(['3:gap']);
    expect(report.findings[0].detail).toContain('seq 2 is missing');
  });

  it("catches two rows' bodies swapped, at both rows", async () => {
    const rig = await signedWorkspace(new Rig(), 4);
    withLedgerDb(rig, (db) => {
      // As stored (compressed or not): each row gets the other's bytes and dictionary.
      const [a, b] = db.prepare('SELECT seq, body, dict FROM chain WHERE seq IN (2, 3) ORDER BY seq').all() as Row[];
      db.prepare('UPDATE chain SET body = ?, dict = ? WHERE seq = ?').run(b!.body, b!.dict, 2);
      db.prepare('UPDATE chain SET body = ?, dict = ? WHERE seq = ?').run(a!.body, a!.dict, 3);
    });
    const { code, report } = await audit(rig);
    expect(code).toBe(1);
    expect(findingCodes(report)).toEqual(['2:body_altered', '3:body_altered']);
  });

  it('catches whole rows moved (body, hash, id and signature together) as reordering', async () => {
    const rig = await signedWorkspace(new Rig(), 4);
    withLedgerDb(rig, (db) => {
      const [a, b] = db.prepare('SELECT * FROM chain WHERE seq IN (2, 3) ORDER BY seq').all() as Row[];
      const move = db.prepare('UPDATE chain SET id = ?, hash = ?, body = ?, dict = ?, signature = ?, created_at = ? WHERE seq = ?');
      db.transaction(() => {
        db.prepare("UPDATE chain SET id = 'tmp' WHERE seq = 3").run();
        move.run(b!.id, b!.hash, b!.body, b!.dict, b!.signature, b!.created_at, 2);
        move.run(a!.id, a!.hash, a!.body, a!.dict, a!.signature, a!.created_at, 3);
      })();
    });
    const { code, report } = await audit(rig);
    expect(code).toBe(1);
    expect(findingCodes(report)).toEqual(['2:reordered', '3:reordered', '4:reordered']);
    expect(report.findings[0].detail).toContain('names seq 3');
  });

  it("catches a signature replaced with another entry's (signature_invalid)", async () => {
    const rig = await signedWorkspace(new Rig(), 4);
    withLedgerDb(rig, (db) => db.prepare('UPDATE chain SET signature = (SELECT signature FROM chain WHERE seq = 2) WHERE seq = 3').run());
    const { code, report } = await audit(rig);
    expect(code).toBe(1);
    expect(findingCodes(report)).toEqual(['3:signature_invalid']);
  });

  it('catches a signature that is not even well-formed (signature_invalid)', async () => {
    const rig = await signedWorkspace(new Rig(), 2);
    withLedgerDb(rig, (db) => db.prepare(`UPDATE chain SET signature = '{"alg":"ed25519","keyid":"00","sig":"AAAA"}' WHERE seq = 1`).run());
    const { report } = await audit(rig);
    expect(findingCodes(report)).toEqual(['1:signature_invalid']);
  });

  it('catches a receipt signed by a key that is not trusted (signature_untrusted), with --key as hex, PEM file or name', async () => {
    const rig = await signedWorkspace(new Rig(), 2);
    expect((await rig.run(['keys', 'generate', '--name', 'other'])).code).toBe(0);
    expect((await rig.run(['verify', 't'], { env: { VOUCH_SIGNING_KEY: 'other' } })).code).toBe(0);
    // Both keys are in VOUCH_HOME: both are trusted.
    expect((await audit(rig)).report).toMatchObject({ ok: true, signed_by: { default: 2, other: 1 } });
    const hex = (await rig.run(['keys', 'export-public', 'default', '--format', 'hex'])).stdout.trim();
    writeFileSync(rig.path('default.pem'), (await rig.run(['keys', 'export-public', 'default'])).stdout);
    for (const key of ['default', hex, 'default.pem']) {
      const { code, report } = await audit(rig, '--key', key);
      expect(code, key).toBe(1);
      expect(findingCodes(report), key).toEqual(['3:signature_untrusted']);
    }
  });

  it('requires signatures under --key and require_signature: unsigned entries are signature_missing', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
    await rig.run(['verify']);
    await rig.run(['verify']);
    // Unsigned and nothing asks for signatures: intact.
    expect(await audit(rig)).toMatchObject({ code: 0, report: { ok: true, unsigned: 2 } });
    await rig.run(['keys', 'generate']);
    expect(findingCodes((await audit(rig, '--key', 'default')).report)).toEqual(['1:signature_missing', '2:signature_missing']);
    await rig.spec('version: 1\nrequire_signature: true\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
    expect(findingCodes((await audit(rig)).report)).toEqual(['1:signature_missing', '2:signature_missing']);
  });

  it('catches a forged PASS appended without the key: correctly hashed and linked, but unsigned after signed entries', async () => {
    const rig = await signedWorkspace(new Rig(), 2);
    const last = JSON.parse(rows(rig)[1]!.body);
    const seq = appendForged(rig, { ...last, id: '01zzzzzzzzzzzzzzzzzzzzzzzz', verdict: 'PASS', reason: 'ok' }, 'receipt');
    const { code, report } = await audit(rig);
    expect(code).toBe(1);
    expect(findingCodes(report)).toEqual([`${seq}:signature_missing`]);
    expect(report.findings[0].detail).toContain('after signed entries');
  });

  it('catches a receipt filed under another check by editing its row (row_mismatch)', async () => {
    const rig = await signedWorkspace(new Rig(), 3);
    withLedgerDb(rig, (db) => db.prepare("UPDATE chain SET check_id = 'u' WHERE seq = 2").run());
    expect(findingCodes((await audit(rig)).report)).toEqual(['2:row_mismatch']);
  });

  it('catches a body rewritten in non-canonical form and re-hashed (not_canonical)', async () => {
    const rig = await signedWorkspace(new Rig(), 3);
    withLedgerDb(rig, (db) => {
      const pretty = JSON.stringify(JSON.parse(bodyAt(db, 2)), null, 1);
      setBody(db, 2, pretty);
      db.prepare('UPDATE chain SET hash = ? WHERE seq = 2').run(sha256(pretty));
    });
    expect(findingCodes((await audit(rig)).report)).toEqual(['2:not_canonical', '2:signature_invalid', '3:link_broken']);
  });

  it('tells gc from deletion: after gc the ledger is intact, and the signed gc record accounts for every pruned entry', async () => {
    const rig = await signedWorkspace(new Rig(), 3);
    await rig.run(['verify', 'u']);
    expect((await rig.run(['gc', '--keep-per-check', '1'])).code).toBe(0);
    const { code, report } = await audit(rig);
    expect(report.findings).toEqual([]);
    expect(code).toBe(0);
    expect(report).toMatchObject({ entries: 5, receipts: 2, gc_records: 1, pruned: 2, signed_by: { default: 3 } });
  });

  it('catches a deleted receipt dressed up as gc under the real gc record (gc_mismatch)', async () => {
    const rig = await signedWorkspace(new Rig(), 4);
    await rig.run(['verify', 'u']);
    await rig.run(['gc', '--keep-per-check', '2']);
    const before = rows(rig);
    const gcRow = before.find((r) => r.kind === 'gc')!;
    const victim = before.find((r) => r.kind === 'receipt')!;
    withLedgerDb(rig, (db) => {
      db.prepare('DELETE FROM chain WHERE seq = ?').run(victim.seq);
      db.prepare('INSERT INTO pruned (seq, id, hash, gc_id) VALUES (?, ?, ?, ?)').run(victim.seq, victim.id, victim.hash, gcRow.id);
    });
    const { code, report } = await audit(rig);
    expect(code).toBe(1);
    expect(findingCodes(report)).toEqual([`${gcRow.seq}:gc_mismatch`]);
    expect(report.findings[0].detail).toContain('records 2 removed, 3 pruned traces found');
  });

  it('catches an edited gc record once, as body_altered, without calling its pruned entries orphans', async () => {
    const rig = await signedWorkspace(new Rig(), 3);
    await rig.run(['gc', '--keep-per-check', '1']);
    const gcRow = rows(rig).find((r) => r.kind === 'gc')!;
    withLedgerDb(rig, (db) => editBody(db, gcRow.seq, (text) => text.replace('"removed":2', '"removed":1')));
    expect(findingCodes((await audit(rig)).report)).toEqual([`${gcRow.seq}:body_altered`]);
  });

  it('catches pruned traces that no gc record claims (pruned_orphan)', async () => {
    const rig = await signedWorkspace(new Rig(), 4);
    const victim = rows(rig)[1]!;
    withLedgerDb(rig, (db) => {
      db.prepare('DELETE FROM chain WHERE seq = ?').run(victim.seq);
      db.prepare('INSERT INTO pruned (seq, id, hash, gc_id) VALUES (?, ?, ?, ?)').run(victim.seq, victim.id, victim.hash, '01forgedgc00000000000000000');
    });
    expect(findingCodes((await audit(rig)).report)).toEqual([`${victim.seq}:pruned_orphan`]);
  });

  it('catches a forged gc record (consistent traces, hash and link) by its missing signature', async () => {
    const rig = await signedWorkspace(new Rig(), 4);
    const victim = rows(rig)[1]!;
    const gcId = '01forgedgc0000000000000000';
    withLedgerDb(rig, (db) => {
      db.prepare('DELETE FROM chain WHERE seq = ?').run(victim.seq);
      db.prepare('INSERT INTO pruned (seq, id, hash, gc_id) VALUES (?, ?, ?, ?)').run(victim.seq, victim.id, victim.hash, gcId);
    });
    const forged = {
      v: 1,
      kind: 'gc',
      id: gcId,
      at: new Date().toISOString(),
      removed: 1,
      first_seq: victim.seq,
      last_seq: victim.seq,
      removed_digest: sha256(`${victim.seq}:${victim.hash}\n`),
      policy: { keep_days: null, keep_per_check: 1 },
    };
    const seq = appendForged(rig, forged, 'gc');
    expect(findingCodes((await audit(rig)).report)).toEqual([`${seq}:signature_missing`]);
  });

  it('is not intact when nothing was recorded (exit 1, ledger_empty)', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
    const { code, report } = await audit(rig);
    expect(code).toBe(1);
    expect(findingCodes(report)).toEqual(['null:ledger_empty']);
  });

  it('prints each finding with its position and what it means', async () => {
    const rig = await signedWorkspace(new Rig(), 3);
    withLedgerDb(rig, (db) => db.prepare('DELETE FROM chain WHERE seq = 2').run());
    const result = await rig.run(['audit']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/ledger damaged/);
    expect(result.stdout).toMatch(/seq 3\s+receipt \S+\s+gap\s+seq 2 is missing/);
    expect(result.stdout).toContain('gap: entries were deleted without gc recording it');
  });

  it('refuses a --key that is not a public key, with exit 2', async () => {
    const rig = await signedWorkspace(new Rig(), 1);
    const result = await rig.run(['audit', '--key', 'nonsense!']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is neither a hex public key, a readable file, nor a key in VOUCH_HOME/keys');
  });
});
