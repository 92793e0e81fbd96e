import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// What a user gets from `npm install -g vouch`: the release tarball (packed by
// scripts/release.mjs, with its SHA-256 manifest), installed
// globally into a fresh prefix (its dependencies from the registry,
// better-sqlite3's and vouch's native builds run by npm), must start and
// record a PASS. A file the package needs at run time but `files` leaves out
// fails here, not on a user's machine.
const repo = join(import.meta.dirname, '..');
const base = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-pack-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** The environment npm and the installed CLI get: the registry's CA roots and npm's own settings cross; nothing else of the test's. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const kept = ['PATH', 'HOME', 'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'npm_config_cache', 'npm_config_registry', 'npm_config_nodedir', 'npm_config_node_gyp'];
  const chosen: NodeJS.ProcessEnv = {};
  for (const name of kept) if (process.env[name] !== undefined) chosen[name] = process.env[name];
  return { ...chosen, ...extra };
}

describe('the npm package', () => {
  it(
    'packs with its manifest, installs globally from the tarball, runs (--version, a PASS in a tiny workspace), and verify-release finds the installed copy intact, then names one altered byte',
    { timeout: 900_000 },
    () => {
      const packed = join(base, 'packed');
      mkdirSync(packed);
      // The release script packs it (`npm pack`) and writes its SHA-256 manifest beside it.
      // --ignore-scripts: dist/ was built by the global setup; `prepare` would
      // rebuild it under the feet of tests running beside this one.
      execFileSync(process.execPath, [join(repo, 'scripts', 'release.mjs'), '--ignore-scripts', '--out', packed], { cwd: repo, env: env(), stdio: 'pipe' });
      const tarball = readdirSync(packed).find((name) => /^vouch-.*\.tgz$/.test(name));
      expect(tarball).toBeDefined();
      expect(readdirSync(packed)).toContain(`${tarball}.manifest.json`);
      // The tarball as packed matches its manifest, file by file (checked by the CLI under test, from this repo's build).
      const verifyRelease = (...args: string[]) =>
        spawnSync(process.execPath, [join(repo, 'dist', 'cli.js'), 'verify-release', join(packed, tarball!), ...args, '--json'], {
          env: env(),
          encoding: 'utf8',
        });
      const packedCheck = verifyRelease();
      expect(packedCheck.status, packedCheck.stdout + packedCheck.stderr).toBe(0);

      const prefix = join(base, 'prefix');
      const install = spawnSync(
        'npm',
        ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--allow-scripts=vouch,better-sqlite3', join(packed, tarball!)],
        {
          cwd: base,
          env: env(),
          encoding: 'utf8',
          timeout: 840_000,
        },
      );
      expect(install.status, install.stderr).toBe(0);
      // The install step built the native stat path from the shipped sources (binding.gyp, native/, the script).
      expect(existsSync(join(prefix, 'lib', 'node_modules', 'vouch', 'build', 'Release', 'vouch_native.node')), install.stderr).toBe(true);
      const vouch = join(prefix, 'bin', 'vouch');

      const version = spawnSync(vouch, ['--version'], { env: env(), encoding: 'utf8' });
      expect(version.status, version.stderr).toBe(0);
      expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);

      const workspace = join(base, 'ws');
      const home = join(base, 'vouch-home');
      mkdirSync(join(workspace, 'src'), { recursive: true });
      mkdirSync(home);
      writeFileSync(join(workspace, 'src', 'a.txt'), 'a');
      writeFileSync(join(workspace, 'vouch.yaml'), 'version: 1\nchecks:\n  - {id: tiny, run: ["node", "-e", "0"], sources: ["src/**"]}\n');
      const run = (args: string[]) => spawnSync(vouch, args, { cwd: workspace, env: env({ HOME: home, VOUCH_HOME: home, NO_COLOR: '1' }), encoding: 'utf8' });
      expect(run(['allow']).status).toBe(0);
      const verify = run(['verify', '--json']);
      expect(verify.status, verify.stderr).toBe(0);
      expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true, checks: [{ id: 'tiny', status: 'PASS' }] });
      // The ledger (better-sqlite3, built by the install) answers status.
      const status = run(['status', '--json']);
      expect(JSON.parse(status.stdout).checks[0].status).toBe('PASS');

      // The installed copy is the released one, file by file; what the install made itself is named, not verified.
      const installed = join(prefix, 'lib', 'node_modules', 'vouch');
      const clean = verifyRelease('--installed', installed);
      expect(clean.status, clean.stdout + clean.stderr).toBe(0);
      expect(JSON.parse(clean.stdout)).toMatchObject({ ok: true, findings: [], not_verified: ['build', 'dist/hot.js.cache', 'node_modules'] });
      // One byte of an installed file altered: named, exit 1.
      const altered = join(installed, 'dist', 'esm', 'main.js');
      const bytes = readFileSync(altered);
      bytes[10] = bytes[10]! ^ 0x20;
      writeFileSync(altered, bytes);
      const tampered = verifyRelease('--installed', installed);
      expect(tampered.status).toBe(1);
      expect(JSON.parse(tampered.stdout).findings).toEqual([expect.objectContaining({ where: 'installed', reason: 'differs', path: 'dist/esm/main.js' })]);
    },
  );
});
