import { spawn } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI, collect, Rig, type RunResult } from './helpers/rig.js';

const ROOT = resolve(dirname(CLI), '..');

/** The trace's bundle and code-cache fields. */
function started(result: RunResult): string {
  expect(result.code, result.stderr).toBe(0);
  return /bundle=\w+(?: code_cache=\w+)?/.exec(result.stderr)?.[0] ?? `no trace in: ${result.stderr}`;
}

describe('the launcher (dist/cli.js)', () => {
  let copy: string;
  let rig: Rig;

  /** `vouch ARGS` from the copied package, whose dist/ a test may damage. */
  function copied(args: string[], options: { stdin?: string } = {}): Promise<RunResult> {
    const child = spawn(process.execPath, [join(copy, 'dist', 'cli.js'), ...args], { cwd: rig.root, env: rig.env({ VOUCH_TRACE: '1' }) });
    return collect(child, options);
  }

  beforeAll(() => {
    copy = mkdtempSync(join(tmpdir(), 'vouch-launcher-'));
    cpSync(join(ROOT, 'dist'), join(copy, 'dist'), { recursive: true });
    mkdirSync(join(copy, 'scripts'));
    cpSync(join(ROOT, 'scripts', 'code-cache.mjs'), join(copy, 'scripts', 'code-cache.mjs'));
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  });
  afterAll(() => rmSync(copy, { recursive: true, force: true }));
  // A workspace per test (the rig removes its own after each).
  beforeEach(async () => {
    rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
    expect((await rig.run(['verify'])).code).toBe(0);
  });

  it('sends hook, status and verify to the hot bundle, every other command to the split build, past -C and its value', async () => {
    expect(started(await copied(['status']))).toBe('bundle=hot code_cache=accepted');
    expect(started(await copied(['--no-color', '-C', rig.root, 'status', 't']))).toBe('bundle=hot code_cache=accepted');
    const pre = JSON.stringify({ session_id: 's', cwd: rig.root, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: 'src/a.ts' } });
    expect(started(await copied(['hook', 'claude-code', 'PreToolUse'], { stdin: pre }))).toBe('bundle=hot code_cache=accepted');
    expect(started(await copied(['verify', 't']))).toBe('bundle=hot code_cache=accepted');
    expect(started(await copied(['log']))).toBe('bundle=split');
    // A directory named like a hot command is -C's value, not the command.
    mkdirSync(rig.path('status'));
    writeFileSync(rig.path('status/vouch.yaml'), 'version: 1\nchecks:\n  - {id: u, run: ["true"], sources: ["*.md"]}\n');
    const checks = await copied(['-C', 'status', 'checks']);
    expect(started(checks)).toBe('bundle=split');
    expect(checks.stdout).toContain('u');
  });

  it('a damaged or forged code cache is refused by V8 and the hot bundle is compiled from its source: same answer', async () => {
    const before = await copied(['status', '--json']);
    writeFileSync(join(copy, 'dist', 'hot.js.cache'), Buffer.alloc(4096, 0x5a));
    const forged = await copied(['status', '--json']);
    expect(started(forged)).toBe('bundle=hot code_cache=rejected');
    expect(forged.json().checks).toEqual(before.json().checks);
  });

  it('a cache made for other source (the bundle changed after it) is refused', async () => {
    const cli = join(copy, 'dist', 'cli.js');
    // A fresh cache for the bundle as it is (made as install makes it), then the bundle grows by one comment.
    expect((await collect(spawn(process.execPath, [join(copy, 'scripts', 'code-cache.mjs')]))).code).toBe(0);
    expect(started(await copied(['status']))).toBe('bundle=hot code_cache=accepted');
    appendFileSync(join(copy, 'dist', 'hot.js'), '\n// changed\n');
    const changed = await collect(spawn(process.execPath, [cli, 'status'], { cwd: rig.root, env: rig.env({ VOUCH_TRACE: '1' }) }));
    expect(started(changed)).toBe('bundle=hot code_cache=rejected');
  });

  it('a cache made for another build is not given to V8, even for a bundle of the same length (V8 checks only the length)', async () => {
    // A cache for the bundle as the copy has it now (an earlier test may have changed the bundle).
    expect((await collect(spawn(process.execPath, [join(copy, 'scripts', 'code-cache.mjs')]))).code).toBe(0);
    const cache = join(copy, 'dist', 'hot.js.cache');
    const made = readFileSync(cache);
    expect(made.toString('latin1', 0, 8)).toBe('VOUCHCC1');
    // The same V8 data, its header naming another build: refused before V8 sees it.
    writeFileSync(cache, Buffer.concat([Buffer.from(`VOUCHCC1${'0'.repeat(32)}`, 'latin1'), made.subarray(40)]));
    expect(started(await copied(['status']))).toBe('bundle=hot code_cache=rejected');
    writeFileSync(cache, made);
    expect(started(await copied(['status']))).toBe('bundle=hot code_cache=accepted');
  });

  /** The cache V8 makes of the copy's bundle compiled and never run: what the warm-up must add to. */
  function compileOnlySize(): number {
    const { compileHot } = createRequire(import.meta.url)(join(copy, 'dist', 'cli.js')) as {
      compileHot: (file: string) => { script: { createCachedData(): Buffer } };
    };
    return compileHot(join(copy, 'dist', 'hot.js')).script.createCachedData().length + 40;
  }

  /** scripts/code-cache.mjs of the copy, with a private TMPDIR and VOUCH_HOME (both must stay empty). */
  async function makeCache(extra: Record<string, string> = {}): Promise<{ result: RunResult; left: string[] }> {
    const tmp = mkdtempSync(join(tmpdir(), 'vouch-cc-tmp-'));
    const home = join(tmp, 'caller-home');
    try {
      const env = { PATH: process.env.PATH ?? '', TMPDIR: tmp, VOUCH_HOME: home, CLAUDECODE: '1', ...extra };
      const result = await collect(spawn(process.execPath, [join(copy, 'scripts', 'code-cache.mjs')], { env }));
      return { result, left: readdirSync(tmp) };
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }

  it("the cache is taken after a warm-up of verify, status and the hooks: it holds what they compiled, and the caller's VOUCH_HOME and TMPDIR are untouched", async () => {
    // An agent's marker in the caller's environment does not reach the warm-up (its own environment, its own VOUCH_HOME).
    const { result, left } = await makeCache();
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(left).toEqual([]);
    const warm = statSync(join(copy, 'dist', 'hot.js.cache')).size;
    // Compile-only, V8 keeps the top level and little else; the warm-up adds the bytecode of every function the commands called.
    expect(warm).toBeGreaterThan(2 * compileOnlySize());
    expect(started(await copied(['status']))).toBe('bundle=hot code_cache=accepted');
    expect(started(await copied(['verify', 't']))).toBe('bundle=hot code_cache=accepted');
  });

  it('a warm-up that cannot run (no git on PATH) leaves the compile-only cache, says why, and exits 0', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'vouch-cc-path-'));
    try {
      const { result, left } = await makeCache({ PATH: empty });
      expect(result.code).toBe(0);
      expect(result.stderr).toContain('made without its warm-up (git could not make its repository');
      expect(left).toEqual([]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
    // About the size of a compile-only cache (V8's own bookkeeping moves it by a few bytes), far from a warm one.
    expect(statSync(join(copy, 'dist', 'hot.js.cache')).size).toBeLessThan(1.1 * compileOnlySize());
    expect(started(await copied(['status']))).toBe('bundle=hot code_cache=accepted');
  });

  it('without a code cache the hot bundle still answers (code_cache=absent)', async () => {
    rmSync(join(copy, 'dist', 'hot.js.cache'), { force: true });
    const result = await copied(['status']);
    expect(started(result)).toBe('bundle=hot code_cache=absent');
    expect(result.stdout).toContain('PASS');
  });

  it('a hot bundle that cannot be loaded blocks the Stop and denies the guarded call (a gate that cannot run is no pass); status fails as a bug', async () => {
    const hot = join(copy, 'dist', 'hot.js');
    const kept = readFileSync(hot);
    try {
      writeFileSync(hot, 'this is not javascript (');
      const payload = (event: string) =>
        JSON.stringify({ session_id: 's', cwd: rig.root, hook_event_name: event, tool_name: 'Write', tool_input: { file_path: 'src/a.ts' } });
      const stop = await copied(['hook', 'claude-code', 'Stop'], { stdin: payload('Stop') });
      expect(stop.code).toBe(0);
      expect(stop.json()).toMatchObject({ decision: 'block' });
      expect(stop.json().reason).toContain('could not be loaded');
      // The event named only in the payload (codex's hooks may omit it on the command line).
      const stopped = await copied(['-C', rig.root, 'hook', 'codex'], { stdin: payload('Stop') });
      expect(stopped.json()).toMatchObject({ decision: 'block' });
      const pre = await copied(['hook', 'claude-code', 'PreToolUse'], { stdin: payload('PreToolUse') });
      expect(pre.json().hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
      expect((await copied(['hook', 'git', 'pre-push'])).code).toBe(1);
      const status = await copied(['status']);
      expect(status.code).toBe(70);
      expect(status.stderr).toContain('reinstall vouch');
    } finally {
      writeFileSync(hot, kept);
    }
    expect(started(await copied(['status']))).toMatch(/^bundle=hot/);
  });

  it('the hot bundle asked for a command it does not hold says so and fails as a bug (exit 70), never runs something else', async () => {
    const script = `process.argv = [process.argv[0], ${JSON.stringify(join(copy, 'dist', 'cli.js'))}, 'log']; require(${JSON.stringify(join(copy, 'dist', 'hot.js'))}).run('absent');`;
    const result = await collect(spawn(process.execPath, ['-e', script], { cwd: rig.root, env: rig.env() }));
    expect(result.code).toBe(70);
    expect(result.stderr).toContain('the hot bundle does not hold the command log');
  });
});
