import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI, collect, Rig } from './helpers/rig.js';

const HOOK = fileURLToPath(new URL('./helpers/module-log.mjs', import.meta.url));

/** The packages (by node_modules directory) a `vouch ARGS` process loaded. */
async function loadedPackages(rig: Rig, args: string[], env: Record<string, string> = {}): Promise<string[]> {
  const log = rig.path('../modules.log');
  const child = spawn(process.execPath, ['--import', HOOK, CLI, ...args], { cwd: rig.root, env: rig.env({ VOUCH_MODULE_LOG: log, ...env }) });
  await collect(child);
  const packages = readFileSync(log, 'utf8')
    .split('\n')
    .map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1])
    .filter((name): name is string => name !== undefined);
  return [...new Set(packages)].sort();
}

describe('lazy loading of the service', () => {
  it('status and verify on SQLite load neither the PostgreSQL driver, the HTTP server nor tar', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
    for (const args of [['verify'], ['status']]) {
      const loaded = await loadedPackages(rig, args);
      expect(loaded).toContain('better-sqlite3');
      expect(loaded.filter((name) => ['pg', 'pg-pool', 'fastify', 'tar-stream'].includes(name))).toEqual([]);
    }
  });

  it('status on a PostgreSQL ledger loads the driver but never the HTTP server (and the markers are real)', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
    // Nothing listens on port 1: the driver is loaded and fails to connect.
    const loaded = await loadedPackages(rig, ['status'], { VOUCH_LEDGER: 'postgres://u@127.0.0.1:1/x' });
    expect(loaded).toContain('pg');
    expect(loaded).not.toContain('fastify');
  });
});
