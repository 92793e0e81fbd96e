import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import type { Pack } from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

/*
 * The release archive: scripts/release.mjs runs a real `npm pack` and writes
 * the SHA-256 manifest beside the tarball; `vouch verify-release` recomputes
 * every hash from the tarball (never unpacking it) and from an installed
 * copy. A small package keeps these fast; test/pack-install.test.ts runs the
 * same on this repository's own package, installed with npm.
 */

const RELEASE = join(import.meta.dirname, '..', 'scripts', 'release.mjs');

interface Released {
  readonly rig: Rig;
  readonly tarball: string;
  readonly manifest: string;
}

/** A tiny package, packed and manifested by the release script. */
function release(): Released {
  const rig = new Rig().write({
    'pkg/package.json': JSON.stringify({ name: 'tiny', version: '1.2.3', files: ['index.js', 'lib', 'README.md'] }),
    'pkg/index.js': 'module.exports = 1;\n',
    'pkg/lib/a.js': 'exports.a = "a";\n',
    'pkg/README.md': '# tiny\n',
  });
  const printed = execFileSync(process.execPath, [RELEASE, '--out', rig.path('out'), '--ignore-scripts', rig.path('pkg')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [tarball, manifest] = printed.trim().split('\n') as [string, string];
  return { rig, tarball, manifest };
}

const verify = (rig: Rig, ...args: string[]) => rig.run(['verify-release', ...args, '--json']);

/** Rewrites a tarball entry by entry through tar-stream: `change` may alter, drop (null) or add entries. */
async function repack(from: string, to: string, change: (name: string, data: Buffer) => Buffer | null, add: (pack: Pack) => void = () => {}): Promise<void> {
  const tar = await import('tar-stream');
  const extract = tar.extract();
  const pack = tar.pack();
  const written = pipeline(pack, createGzip(), createWriteStream(to));
  const reading = pipeline(createReadStream(from), createGunzip(), extract);
  for await (const entry of extract) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry as AsyncIterable<Buffer>) chunks.push(chunk);
    const data = change(entry.header.name, Buffer.concat(chunks));
    if (data !== null) pack.entry({ ...entry.header, size: data.length }, data);
  }
  await reading;
  add(pack);
  pack.finalize();
  await written;
}

describe('scripts/release.mjs', () => {
  it("writes beside the tarball a manifest of every file with its SHA-256, and the tarball's own", () => {
    const { tarball, manifest } = release();
    expect(tarball).toMatch(/tiny-1\.2\.3\.tgz$/);
    expect(manifest).toBe(`${tarball}.manifest.json`);
    const m = JSON.parse(readFileSync(manifest, 'utf8'));
    const sha = (data: Buffer | string) => execFileSync('sha256sum', { input: data, encoding: 'utf8' }).split(' ')[0];
    expect(m).toMatchObject({
      kind: 'vouch-release-manifest',
      version: 1,
      package: { name: 'tiny', version: '1.2.3' },
      tarball: { file: 'tiny-1.2.3.tgz', sha256: sha(readFileSync(tarball)), npm_integrity: expect.stringMatching(/^sha512-/) },
    });
    expect(m.files.map((f: any) => f.path)).toEqual(['README.md', 'index.js', 'lib/a.js', 'package.json']);
    expect(m.files.find((f: any) => f.path === 'lib/a.js')).toEqual({ path: 'lib/a.js', sha256: sha('exports.a = "a";\n'), size: 17, mode: 420 });
  });
});

describe('vouch verify-release', () => {
  it('a release as packed is intact (exit 0); its manifest is found beside the tarball', async () => {
    const { rig, tarball } = release();
    const result = await verify(rig, tarball);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json()).toMatchObject({ ok: true, package: { name: 'tiny', version: '1.2.3' }, compared: { tarball: 4, installed: null }, findings: [] });
    const text = await rig.run(['verify-release', tarball]);
    expect(text.stdout).toContain('release intact  tiny 1.2.3');
  });

  it('attack: a tarball altered after release names every file that differs, is missing or is extra, and its own digest (exit 1)', async () => {
    const { rig, tarball, manifest } = release();
    const altered = rig.path('out/altered.tgz');
    await repack(
      tarball,
      altered,
      (name, data) => {
        if (name === 'package/lib/a.js') return Buffer.from(data.toString().replace('"a"', '"b"'));
        if (name === 'package/README.md') return null;
        return data;
      },
      (pack) => pack.entry({ name: 'package/lib/evil.js' }, 'process.exit(0)\n'),
    );
    const result = await verify(rig, altered, '--manifest', manifest);
    expect(result.code).toBe(1);
    const findings = result.json().findings as any[];
    expect(findings.map((f) => [f.where, f.reason, f.path])).toEqual([
      ['tarball', 'tarball_digest', 'altered.tgz'],
      ['tarball', 'missing', 'README.md'],
      ['tarball', 'differs', 'lib/a.js'],
      ['tarball', 'extra', 'lib/evil.js'],
    ]);
    expect(findings[2].detail).toMatch(/^the same size \(17 bytes\), SHA-256 [0-9a-f]{64} where the manifest says [0-9a-f]{64}$/);
    const text = (await rig.run(['verify-release', altered, '--manifest', manifest])).stdout;
    expect(text).toContain('release differs');
    expect(text).toMatch(/DIFFERS\s+lib\/a\.js\s+its bytes are not the released ones/);
  });

  it('attack: links, a path twice and a path outside package/ are findings, not files (the bytes hashed need not be what npm installs)', async () => {
    const { rig, tarball, manifest } = release();
    const crafted = rig.path('out/crafted.tgz');
    await repack(
      tarball,
      crafted,
      (_name, data) => data,
      (pack) => {
        pack.entry({ name: 'package/index.js' }, 'module.exports = 2;\n');
        pack.entry({ name: 'package/lib/link.js', type: 'symlink', linkname: '/etc/passwd' });
        pack.entry({ name: '../outside.js' }, 'x');
      },
    );
    const result = await verify(rig, crafted, '--manifest', manifest);
    expect(result.code).toBe(1);
    const reasons = (result.json().findings as any[]).map((f) => [f.reason, f.path]);
    expect(reasons).toEqual(
      expect.arrayContaining([
        ['duplicate', 'index.js'],
        ['not_a_file', 'lib/link.js'],
        ['outside_package', '../outside.js'],
        ['differs', 'index.js'],
      ]),
    );
  });

  it('--installed checks an installed copy: install outputs listed as not verified, one altered byte, a missing file, an extra one and a symlink named', async () => {
    const { rig, tarball, manifest } = release();
    const installed = rig.path('prefix/lib/node_modules/tiny');
    mkdirSync(installed, { recursive: true });
    execFileSync('tar', ['xzf', tarball, '-C', installed, '--strip-components=1']);
    // What an install makes itself: not in the tarball, so never verified, only named.
    mkdirSync(join(installed, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(join(installed, 'node_modules', 'dep', 'index.js'), 'anything');
    mkdirSync(join(installed, 'build', 'Release'), { recursive: true });
    writeFileSync(join(installed, 'build', 'Release', 'addon.node'), 'built here');
    const clean = await verify(rig, tarball, '--installed', installed);
    expect(clean.code, clean.stdout).toBe(0);
    expect(clean.json()).toMatchObject({ ok: true, compared: { tarball: 4, installed: 4 }, not_verified: ['build', 'node_modules'] });
    expect((await rig.run(['verify-release', tarball, '--installed', installed])).stdout).toMatch(
      /not verified \(made by the install, not in the tarball\):\n\s+build\s+built at install/,
    );

    // One byte of an installed file, a file removed, one added, one swapped for a link.
    const a = join(installed, 'lib', 'a.js');
    const bytes = readFileSync(a);
    bytes[0] = bytes[0]! ^ 1;
    writeFileSync(a, bytes);
    rmSync(join(installed, 'README.md'));
    writeFileSync(join(installed, 'lib', 'evil.js'), 'x');
    rmSync(join(installed, 'index.js'));
    symlinkSync('/etc/hostname', join(installed, 'index.js'));
    const altered = await verify(rig, '--manifest', manifest, '--installed', installed);
    expect(altered.code).toBe(1);
    expect((altered.json().findings as any[]).map((f) => [f.where, f.reason, f.path])).toEqual([
      ['installed', 'not_a_file', 'index.js'],
      ['installed', 'missing', 'README.md'],
      ['installed', 'differs', 'lib/a.js'],
      ['installed', 'extra', 'lib/evil.js'],
    ]);
  });

  it('bad input: a manifest that is not one, a tarball that is not there, nothing to check (exit 2, saying what was expected)', async () => {
    const { rig, tarball, manifest } = release();
    const broken = rig.path('out/broken.json');
    const m = JSON.parse(readFileSync(manifest, 'utf8'));
    writeFileSync(broken, JSON.stringify({ ...m, files: [{ ...m.files[0], sha256: 'abc' }] }));
    const invalid = await verify(rig, tarball, '--manifest', broken);
    expect(invalid.code).toBe(2);
    expect(invalid.json().error).toMatchObject({ code: 'manifest_invalid', where: broken });
    expect(invalid.json().error.message).toContain('files.0.sha256');
    const missing = await verify(rig, rig.path('out/none.tgz'), '--manifest', manifest);
    expect([missing.code, missing.json().error.code]).toEqual([2, 'release_unreadable']);
    expect((await verify(rig)).code).toBe(2);
    expect((await verify(rig, '--manifest', manifest)).code).toBe(2);
    const notGzip = rig.path('out/not.tgz');
    writeFileSync(notGzip, 'plain text');
    const unreadable = await verify(rig, notGzip, '--manifest', manifest);
    expect(unreadable.code).toBe(1);
    expect((unreadable.json().findings as any[]).map((f) => f.reason)).toEqual(expect.arrayContaining(['tarball_digest', 'tarball_unreadable']));
  });
});
