import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeCache, pathsOf } from '../src/cache/blob.js';
import { RACY_MARGIN_NS } from '../src/cache/stat-key.js';
import { Rig } from './helpers/rig.js';

const SPEC = `version: 1
checks:
  - id: unit
    run: ["true"]
    sources: ["src/**"]
`;

const status = async (rig: Rig) => (await rig.run(['status', '--json'])).json().checks[0];

/** Files younger than the racy margin are never cached: wait until the rig's files are older. */
const pastRacyMargin = () => new Promise((resolve) => setTimeout(resolve, Number(RACY_MARGIN_NS / 1_000_000n) + 500));

/** The CLI's cache, checked as the CLI checks it (MAC, root), for the build that wrote it. */
function cacheOf(rig: Rig) {
  const blob = readFileSync(rig.path('.vouch/statcache'));
  const build = JSON.parse(blob.toString('utf8', 32, 32 + blob.readUInt32LE(12))).build as string;
  return decodeCache(blob, readFileSync(join(rig.home, 'cache.key')), rig.root, build);
}

/** Other bytes, same size, mtime put back to the nanosecond. */
function sameSizeEdit(rig: Rig, path: string, content: string): void {
  execFileSync('touch', ['-r', rig.path(path), rig.path('.ref')]);
  writeFileSync(rig.path(path), content);
  execFileSync('touch', ['-r', rig.path('.ref'), rig.path(path)]);
}

describe('the stat cache, through the CLI', () => {
  it('is written by status, never hides a same-size edit with its mtime put back, and survives damage', async () => {
    const files = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`src/m${i % 5}/f${i}.ts`, `export const v${i} = ${i};\n`]));
    const rig = new Rig().write({ ...files, 'src/a.ts': 'aaaa' });
    await rig.spec(SPEC);
    expect((await rig.run(['verify', '--json'])).json().checks[0].status).toBe('PASS');
    await pastRacyMargin();

    expect(await status(rig)).toMatchObject({ status: 'PASS' });
    const cached = pathsOf(cacheOf(rig)!);
    expect(cached).toContain('src/a.ts');
    expect(cached.length).toBe(31 + 6); // 31 files, src/ and its 5 directories
    expect(await status(rig)).toMatchObject({ status: 'PASS' });

    sameSizeEdit(rig, 'src/a.ts', 'bbbb');
    expect(await status(rig)).toMatchObject({ status: 'STALE', reason: 'fingerprint_changed', changed: { modified: ['src/a.ts'] } });
    sameSizeEdit(rig, 'src/a.ts', 'aaaa');
    expect(await status(rig)).toMatchObject({ status: 'PASS' });

    // Damaged caches are ignored (the answer stays right) and replaced.
    const blob = readFileSync(rig.path('.vouch/statcache'));
    for (const damaged of [blob.subarray(0, blob.length >> 1), Buffer.from(blob).fill(0x41, 100, 140), Buffer.from('not a cache')]) {
      writeFileSync(rig.path('.vouch/statcache'), damaged);
      sameSizeEdit(rig, 'src/a.ts', 'cccc');
      expect(await status(rig)).toMatchObject({ status: 'STALE' });
      sameSizeEdit(rig, 'src/a.ts', 'aaaa');
      expect(await status(rig)).toMatchObject({ status: 'PASS' });
    }
    await pastRacyMargin();
    expect(await status(rig)).toMatchObject({ status: 'PASS' });
    expect(pathsOf(cacheOf(rig)!)).toContain('src/a.ts');
  });

  it('stays whole when several vouch processes write it at once (last writer wins, nothing torn)', async () => {
    const files = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`src/d${i % 20}/f${i}.ts`, `// ${i}\n`]));
    const rig = new Rig().write(files);
    await rig.spec(SPEC);
    await rig.run(['verify']);
    await pastRacyMargin();
    for (let round = 0; round < 3; round++) {
      // No cache and no scope record: every process learns every file and writes the whole cache.
      if (existsSync(rig.path('.vouch/statcache'))) writeFileSync(rig.path('.vouch/statcache'), '');
      rmSync(rig.path('.vouch/scopes'), { recursive: true, force: true });
      const results = await Promise.all(Array.from({ length: 6 }, () => rig.run(['status', '--json'])));
      for (const result of results) expect(result.json().checks[0].status).toBe('PASS');
      expect(pathsOf(cacheOf(rig)!).length).toBe(200 + 21);
    }
    expect(readdirSync(rig.path('.vouch')).filter((name) => name.includes('.tmp'))).toEqual([]);
    expect(readdirSync(rig.path('.vouch/scopes')).filter((name) => name.includes('.tmp'))).toEqual([]);
  });

  it('a cold status over many files (enough for worker threads when cores are idle) finds the one file edited', async () => {
    const files = Object.fromEntries(Array.from({ length: 1800 }, (_, i) => [`src/d${i % 60}/f${i}.ts`, `export const v = ${i};\n`]));
    const rig = new Rig().write(files);
    await rig.spec(SPEC);
    expect((await rig.run(['verify', '--json'])).json().checks[0]).toMatchObject({ status: 'PASS' });
    rig.write({ 'src/d7/f1087.ts': 'export const v = -1;\n' });
    writeFileSync(rig.path('.vouch/statcache'), '');
    expect(await status(rig)).toMatchObject({ status: 'STALE', changed: { added: [], removed: [], modified: ['src/d7/f1087.ts'] } });
  });

  describe.each([
    ['the native stat path', {}],
    ['the JavaScript fallback (VOUCH_NATIVE=0)', { VOUCH_NATIVE: '0' }],
  ])('a warm status answered from the remembered scope, through %s', (_name, env) => {
    const SPEC_TWO = `${SPEC}  - id: docs
    run: ["true"]
    sources: ["docs/**"]
`;
    const statuses = async (rig: Rig): Promise<Record<string, any>> =>
      Object.fromEntries(((await rig.run(['status', '--json'], { env })).json().checks as { id: string }[]).map((c) => [c.id, c]));

    it('finds a file added, one removed, a same-size edit and a symlink swapped in, after answering from memory', async () => {
      const rig = new Rig().write({ 'src/a.ts': 'aaaa', 'src/deep/b.ts': 'b', 'src/deep/c.ts': 'c', 'docs/x.md': 'x' });
      await rig.spec(SPEC_TWO);
      expect((await rig.run(['verify', '--json'], { env })).json().checks.map((c: { status: string }) => c.status)).toEqual(['PASS', 'PASS']);
      await pastRacyMargin();
      // Learnt once, then answered from the records.
      for (let i = 0; i < 2; i++) expect(await statuses(rig)).toMatchObject({ unit: { status: 'PASS' }, docs: { status: 'PASS' } });

      rig.write({ 'src/deep/new.ts': 'n' });
      expect(await statuses(rig)).toMatchObject({ unit: { status: 'STALE', changed: { added: ['src/deep/new.ts'] } }, docs: { status: 'PASS' } });
      rmSync(rig.path('src/deep/new.ts'));
      expect(await statuses(rig)).toMatchObject({ unit: { status: 'PASS' } });
      rmSync(rig.path('src/deep/c.ts'));
      expect(await statuses(rig)).toMatchObject({ unit: { status: 'STALE', changed: { removed: ['src/deep/c.ts'] } } });
      rig.write({ 'src/deep/c.ts': 'c' });
      await pastRacyMargin();
      expect(await statuses(rig)).toMatchObject({ unit: { status: 'PASS' } });
      expect(await statuses(rig)).toMatchObject({ unit: { status: 'PASS' } });
      sameSizeEdit(rig, 'src/a.ts', 'zzzz');
      expect(await statuses(rig)).toMatchObject({ unit: { status: 'STALE', changed: { modified: ['src/a.ts'] } }, docs: { status: 'PASS' } });
      sameSizeEdit(rig, 'src/a.ts', 'aaaa');
      rig.write({ 'elsewhere/b.ts': 'b' });
      rmSync(rig.path('src/deep/b.ts'));
      rig.symlink('../../elsewhere/b.ts', 'src/deep/b.ts');
      const linked = await statuses(rig);
      // Same bytes through the link: the manifest is the same, and the link was looked at, not remembered.
      expect(linked).toMatchObject({ unit: { status: 'PASS' } });
      rig.write({ 'elsewhere/b.ts': 'B' });
      expect(await statuses(rig)).toMatchObject({ unit: { status: 'STALE', changed: { modified: ['src/deep/b.ts'] } } });
    });

    it("a check's changed definition is judged on the new scope, never the remembered one", async () => {
      const rig = new Rig().write({ 'src/a.ts': 'a', 'src/gen/g.ts': 'g' });
      await rig.spec(SPEC);
      await rig.run(['verify'], { env });
      await pastRacyMargin();
      expect(await statuses(rig)).toMatchObject({ unit: { status: 'PASS' } });
      await rig.spec(`${SPEC}    exclude: ["src/gen/**"]\n`);
      expect(await statuses(rig)).toMatchObject({ unit: { status: 'STALE', reason: 'definition_changed' } });
      await rig.run(['verify'], { env });
      await pastRacyMargin();
      for (let i = 0; i < 2; i++) expect(await statuses(rig)).toMatchObject({ unit: { status: 'PASS' } });
      const shown = (await rig.run(['show', (await statuses(rig)).unit.receipt, '--files', '--json'])).json();
      expect(shown.manifest.files.map((f: string[]) => f[0])).toEqual(['src/a.ts']);
    });
  });

  it('status creates no state: without a ledger there is no cache either', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(SPEC);
    expect(await status(rig)).toMatchObject({ status: 'UNKNOWN', reason: 'no_receipt' });
    expect(existsSync(rig.path('.vouch'))).toBe(false);
  });
});
