// Builds the benchmark's trees: a synthetic JavaScript monorepo and a few big files.
import { randomFillSync } from 'node:crypto';
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** A small deterministic generator, so every run builds the same tree. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'const',
  'export',
  'function',
  'return',
  'import',
  'from',
  'await',
  'props',
  'state',
  'value',
  'render',
  'config',
  'options',
  'result',
  'items',
  'index',
];
const DIR_NAMES = [
  'components',
  'hooks',
  'utils',
  'lib',
  'core',
  'api',
  'models',
  'views',
  'internal',
  'helpers',
  'types',
  'server',
  'client',
  'shared',
  'fixtures',
  '__tests__',
  'styles',
  'icons',
];
const EXTS = ['.ts', '.ts', '.ts', '.tsx', '.js', '.json', '.md', '.css', '.test.ts'];

function sourceText(rand, bytes) {
  let text = '';
  while (text.length < bytes) {
    const line = Array.from({ length: 3 + Math.floor(rand() * 8) }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
    text += `${line};\n`;
  }
  return text.slice(0, bytes);
}

/**
 * About `files` small files in about `dirs` folders, shaped like a large
 * JavaScript monorepo: packages/<name>/{src,test,...} with nested folders,
 * file sizes spread like source code (median about 2 KB, a long tail).
 * Returns the counts and total bytes actually written.
 */
export function buildMonorepo(root, { files = 30_000, dirs = 13_000, packages = 250 } = {}) {
  const rand = random(20261130);
  const perPackageDirs = Math.max(4, Math.round(dirs / packages) - 1);
  const perPackageFiles = Math.round(files / packages);
  let fileCount = 0;
  let dirCount = 1;
  let bytes = 0;
  const write = (path, text) => {
    writeFileSync(path, text);
    fileCount++;
    bytes += Buffer.byteLength(text);
  };
  mkdirSync(join(root, 'packages'), { recursive: true });
  write(join(root, 'package.json'), JSON.stringify({ name: 'bench-monorepo', private: true, workspaces: ['packages/*'] }, null, 2));
  for (let p = 0; p < packages; p++) {
    const pkg = join(root, 'packages', `pkg-${String(p).padStart(3, '0')}`);
    const folders = [join(pkg, 'src'), join(pkg, 'test')];
    for (const folder of folders) mkdirSync(folder, { recursive: true });
    dirCount += 3;
    while (folders.length < perPackageDirs) {
      const parent = folders[Math.floor(rand() * folders.length)];
      const child = join(parent, `${DIR_NAMES[Math.floor(rand() * DIR_NAMES.length)]}-${folders.length}`);
      mkdirSync(child);
      folders.push(child);
      dirCount++;
    }
    write(join(pkg, 'package.json'), JSON.stringify({ name: `@bench/pkg-${p}`, version: '1.0.0', main: 'src/index.ts' }, null, 2));
    write(join(pkg, 'README.md'), sourceText(rand, 400 + Math.floor(rand() * 1200)));
    // Every folder gets a file, the rest are spread at random.
    for (let f = 2; f < perPackageFiles; f++) {
      const folder = f - 2 < folders.length ? folders[f - 2] : folders[Math.floor(rand() * folders.length)];
      const size = Math.min(64 * 1024, Math.floor(Math.exp(Math.log(2000) + (rand() + rand() + rand() - 1.5) * 1.6)));
      write(join(folder, `module-${f}${EXTS[Math.floor(rand() * EXTS.length)]}`), sourceText(rand, Math.max(20, size)));
    }
  }
  // Installed dependencies, as a real checkout has them: ignored by git
  // (.gitignore) and by vouch (no glob names node_modules), never counted.
  const deps = buildNodeModules(join(root, 'node_modules'), rand, Math.round(files / 4));
  for (let p = 0; p < packages; p += 10) buildNodeModules(join(root, 'packages', `pkg-${String(p).padStart(3, '0')}`, 'node_modules'), rand, 40);
  return { files: fileCount, dirs: dirCount, bytes, ignored: deps };
}

/** About `files` files of installed packages (name/lib/..., package.json, small sources). */
function buildNodeModules(dir, rand, files) {
  let written = 0;
  for (let p = 0; written < files; p++) {
    const pkg = join(dir, `dep-${p}`, 'lib', 'internal');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(dir, `dep-${p}`, 'package.json'), `{"name":"dep-${p}"}`);
    for (let f = 0; f < 12 && written < files; f++, written++) writeFileSync(join(pkg, `m${f}.js`), sourceText(rand, 200 + Math.floor(rand() * 1800)));
  }
  return written;
}

/** `count` files of `mib` MiB of random bytes each. */
export function buildBigFiles(root, { count = 3, mib = 128 } = {}) {
  mkdirSync(join(root, 'data'), { recursive: true });
  const chunk = Buffer.allocUnsafe(1 << 20);
  for (let i = 0; i < count; i++) {
    const fd = openSync(join(root, 'data', `blob-${i}.bin`), 'w');
    for (let m = 0; m < mib; m++) writeSync(fd, randomFillSync(chunk));
    closeSync(fd);
  }
  return { files: count, bytes: count * mib * (1 << 20) };
}
