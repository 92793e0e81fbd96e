import { execFileSync, type ChildProcessByStdio } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

/**
 * A client CLI at a pinned version, installed on demand from the npm
 * registry into the test cache (VOUCH_TEST_CACHE, default
 * ~/.cache/vouch-test/<folder>), never as a dependency of this project.
 * Install scripts are skipped: `binary` names the native executable inside
 * the installed packages, relative to the cache folder. Fails (never skips)
 * when it cannot install.
 */
export function pinnedBinary(folder: string, packageSpec: string, binary: string): string {
  const cache = join(process.env.VOUCH_TEST_CACHE ?? join(homedir(), '.cache', 'vouch-test'), folder);
  const path = join(cache, binary);
  if (existsSync(path)) return path;
  mkdirSync(cache, { recursive: true });
  if (!existsSync(join(cache, 'package.json'))) writeFileSync(join(cache, 'package.json'), '{"private": true}\n');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', packageSpec], {
    cwd: cache,
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 600_000,
  });
  if (!existsSync(path)) throw new Error(`${packageSpec} installed into ${cache}, but ${path} is missing`);
  return path;
}

/** What a headless client run printed: its exit code, the JSON lines of stdout, and stderr. */
export interface JsonLinesRun {
  readonly code: number | null;
  readonly events: Record<string, any>[];
  readonly stderr: string;
}

/** Waits for a client process (killed after 240 s) and parses the JSON lines it printed. */
export function jsonLinesOf(child: ChildProcessByStdio<null, Readable, Readable>): Promise<JsonLinesRun> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      const events = stdout
        .split('\n')
        .filter((line) => line.trim().startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, any>);
      resolve({ code, events, stderr });
    });
  });
}
