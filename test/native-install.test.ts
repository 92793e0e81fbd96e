import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

// The install step (package.json "install": scripts/build-native.mjs) builds
// the optional native stat path. Whatever goes wrong, it must exit 0: a
// failed optional build never fails `npm ci` or a global install.
const repo = join(import.meta.dirname, '..');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A copy of what the package ships for the build: binding.gyp, native/, the script. */
function packageCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-native-'));
  dirs.push(dir);
  for (const path of ['binding.gyp', 'native', 'scripts/build-native.mjs']) cpSync(join(repo, path), join(dir, path), { recursive: true });
  return dir;
}

function install(dir: string, env: Record<string, string | undefined>) {
  return spawnSync(process.execPath, ['scripts/build-native.mjs'], {
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
}

describe('the install step of the native stat path', () => {
  it('exits 0 and says the fallback is used when the C does not compile, leaving no half-built addon', () => {
    const dir = packageCopy();
    appendFileSync(join(dir, 'native/lstat_batch.c'), '\nthis is not C;\n');
    const gyp = process.env.npm_config_node_gyp ?? '/usr/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js';
    const result = install(dir, { npm_config_node_gyp: gyp, npm_config_nodedir: '/usr' });
    expect(result.status).toBe(0);
    expect(result.stderr).toContain('the native stat path was not built');
    expect(result.stderr).toContain('JavaScript fallback');
    expect(existsSync(join(dir, 'build'))).toBe(false);
  });

  it('builds the addon from the shipped sources (node-gyp as npm names it, headers from nodedir)', () => {
    const dir = packageCopy();
    const gyp = process.env.npm_config_node_gyp ?? '/usr/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js';
    const result = install(dir, { npm_config_node_gyp: gyp, npm_config_nodedir: '/usr' });
    expect(result.status).toBe(0);
    expect(existsSync(join(dir, 'build/Release/vouch_native.node')), result.stderr).toBe(true);
  });

  it('exits 0 when node-gyp cannot be found at all', () => {
    const dir = packageCopy();
    const result = install(dir, { PATH: '/nonexistent', npm_config_node_gyp: '/nonexistent/node-gyp.js' });
    expect(result.status).toBe(0);
    expect(result.stderr).toContain('JavaScript fallback');
  });

  it('is skipped on request (VOUCH_SKIP_NATIVE=1), exit 0', () => {
    const dir = packageCopy();
    const result = install(dir, { VOUCH_SKIP_NATIVE: '1' });
    expect(result.status).toBe(0);
    expect(existsSync(join(dir, 'build'))).toBe(false);
  });
});
