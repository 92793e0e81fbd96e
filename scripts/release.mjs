// `npm run release`: the release archive and its manifest. Runs `npm pack`
// into --out (default release/), then writes beside the tarball
// <tarball>.manifest.json: the tarball's SHA-256 and size, npm's own
// integrity string, and every file inside it with its SHA-256, size and mode,
// paths relative to the package root (what npm installs as the package
// directory). `vouch verify-release TARBALL [--installed DIR]` reads it
// (src/release/manifest.ts holds the format). The tarball is read without
// unpacking it; a link, a special file, a path outside package/ or a path
// twice stops the release, because the manifest could not say what npm
// would install.
//
//   node scripts/release.mjs [--out DIR] [--ignore-scripts] [PACKAGE_DIR]
//
// --ignore-scripts is passed to npm pack (no `prepare` build: dist/ is taken
// as it is). PACKAGE_DIR defaults to this repository.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';

const { values, positionals } = parseArgs({
  options: { out: { type: 'string' }, 'ignore-scripts': { type: 'boolean' } },
  allowPositionals: true,
});
const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const packageDir = resolve(positionals[0] ?? repo);
const out = resolve(values.out ?? join(repo, 'release'));
mkdirSync(out, { recursive: true });

function die(message) {
  process.stderr.write(`release: ${message}\n`);
  process.exit(1);
}

const packed = JSON.parse(
  execFileSync('npm', ['pack', '--json', '--pack-destination', out, ...(values['ignore-scripts'] ? ['--ignore-scripts'] : [])], {
    cwd: packageDir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }),
)[0];
const tarball = join(out, packed.filename);

async function digest(path) {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { sha256: hash.digest('hex'), size };
}

const files = new Map();
const extract = tar.extract();
const flowing = pipeline(createReadStream(tarball), createGunzip(), extract);
for await (const entry of extract) {
  const { name, type, mode } = entry.header;
  if (type === 'directory') {
    entry.resume();
    continue;
  }
  if (type !== 'file') die(`${name} is a ${type} entry: npm pack should write regular files only`);
  if (!name.startsWith('package/') || name.split('/').some((s) => s === '..' || s === '')) die(`${name} is not a path under package/`);
  const path = name.slice('package/'.length);
  if (files.has(path)) die(`${name} is in the tarball twice`);
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of entry) {
    hash.update(chunk);
    size += chunk.length;
  }
  files.set(path, { path, sha256: hash.digest('hex'), size, mode: mode ?? 0o644 });
}
await flowing;

const whole = await digest(tarball);
const manifest = {
  kind: 'vouch-release-manifest',
  version: 1,
  package: { name: packed.name, version: packed.version },
  tarball: { file: packed.filename, sha256: whole.sha256, size: whole.size, npm_integrity: packed.integrity ?? null },
  files: [...files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
};
const manifestPath = `${tarball}.manifest.json`;
writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
process.stdout.write(`${tarball}\n${manifestPath}\n`);
process.stderr.write(`release: ${packed.filename} sha256 ${whole.sha256} (${manifest.files.length} files)\n`);
