import { createHash, createHmac } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rows } from './helpers/ledger-db.js';
import { Rig } from './helpers/rig.js';
import { signedWorkspace } from './helpers/signed.js';

const SPEC = 'version: 1\nchecks:\n  - {id: t, run: ["false"], sources: ["src/**"]}\n';

/** Where the spec cache of a rig's workspace lives: VOUCH_HOME/specs/. */
const cacheFile = (rig: Rig) => join(rig.home, 'specs', `${createHash('sha256').update(rig.root).digest('hex').slice(0, 32)}.json`);

/** The cached spec's body, edited, signed with `key` the way the cache is. */
function forge(rig: Rig, key: Buffer, edit: (body: any) => void): void {
  const text = readFileSync(cacheFile(rig), 'utf8');
  const body = JSON.parse(text.slice(text.indexOf('\n') + 1));
  edit(body);
  const json = JSON.stringify(body);
  const mac = createHmac('sha256', key).update('vouch spec cache\0').update(json).digest('hex');
  writeFileSync(cacheFile(rig), `${mac}\n${json}`);
}

async function verdict(rig: Rig): Promise<string> {
  return (await rig.run(['verify', '--json'])).json().checks[0].status;
}

describe('the spec cache', () => {
  it('is written once a ledger exists, and answers while vouch.yaml is unchanged', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(SPEC);
    expect(await verdict(rig)).toBe('FAIL');
    expect(existsSync(cacheFile(rig))).toBe(false);
    expect(await verdict(rig)).toBe('FAIL');
    expect(existsSync(cacheFile(rig))).toBe(true);
    // Proof that it is what answers: a cache in VOUCH_HOME signed with the
    // user's own key is believed (VOUCH_HOME is the boundary, as for trust).
    forge(rig, readFileSync(join(rig.home, 'cache.key')), (body) => (body.spec.checks[0].run = ['true']));
    expect(await verdict(rig)).toBe('PASS');
  });

  it('a cache that swaps the command, signed without the key, is ignored: the real command runs', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(SPEC);
    await rig.run(['verify']);
    await rig.run(['verify']);
    forge(rig, Buffer.alloc(32, 1), (body) => (body.spec.checks[0].run = ['true']));
    expect(await verdict(rig)).toBe('FAIL');
  });

  it('a cache written by another build of vouch is not believed (it may validate differently)', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(SPEC);
    await rig.run(['verify']);
    await rig.run(['verify']);
    forge(rig, readFileSync(join(rig.home, 'cache.key')), (body) => {
      body.spec.checks[0].run = ['true'];
      body.build = 'another-build';
    });
    expect(await verdict(rig)).toBe('FAIL');
  });

  it("another workspace's cache copied in (same user, same key) is ignored", async () => {
    const one = new Rig().write({ 'src/a.ts': 'a' });
    await one.spec(SPEC.replace('"false"', '"true"'));
    await one.run(['verify']);
    await one.run(['verify']);
    const two = new Rig().write({ 'src/a.ts': 'a' });
    await two.spec(SPEC);
    await two.run(['verify']);
    await two.run(['verify']);
    // Same VOUCH_HOME key, so the MAC holds; the root inside does not.
    const key = readFileSync(join(one.home, 'cache.key'));
    writeFileSync(join(two.home, 'cache.key'), key);
    forge(one, key, (body) => (body.spec_sha256 = JSON.parse(readFileSync(cacheFile(two), 'utf8').split('\n')[1]!).spec_sha256));
    writeFileSync(cacheFile(two), readFileSync(cacheFile(one)));
    expect(await verdict(two)).toBe('FAIL');
  });

  it('an edited vouch.yaml is read afresh: trust is decided on the bytes on disk, never on the cache', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(SPEC);
    await rig.run(['verify']);
    await rig.run(['status']);
    rig.write({ 'vouch.yaml': SPEC.replace('"false"', '"true"') });
    expect((await rig.run(['status', '--json'])).json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'spec_not_allowed' });
    await rig.run(['allow']);
    expect(await verdict(rig)).toBe('PASS');
  });

  it('a hit keeps every field of the spec, not only the checks: receipts made from it are still signed', async () => {
    // The first verify creates .vouch/, the second writes the cache, the third is answered by it.
    const rig = await signedWorkspace(new Rig(), 3);
    expect(existsSync(cacheFile(rig))).toBe(true);
    const signatures = rows(rig).map((row) => row.signature);
    expect(signatures).toHaveLength(3);
    expect(signatures.every((signature) => signature !== null)).toBe(true);
  });
});
