import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RACY_MARGIN_NS } from '../src/cache/stat-key.js';
import { CLI, collect, Rig } from './helpers/rig.js';
import { signedWorkspace } from './helpers/signed.js';

const HOOK = fileURLToPath(new URL('./helpers/module-log.mjs', import.meta.url));

/**
 * The heavy parts a `vouch ARGS` process evaluated, as VOUCH_TRACE=1 names
 * them (each part's module notes itself when it is evaluated: src/core/start.ts),
 * and which bundle answered: the hot bundle (hook, status, verify) or the split build.
 */
async function loadedParts(rig: Rig, args: string[], options: { stdin?: string } = {}): Promise<{ parts: string[]; bundle: string; builtins: string[] }> {
  const result = await rig.run(args, { ...(options.stdin !== undefined && { stdin: options.stdin }), env: { VOUCH_TRACE: '1' } });
  expect(result.code, result.stderr).toBe(0);
  const line = /^vouch trace: .*\bbundle=(\w+)\b.*\bloaded=(\S+) builtins=(\S+)$/m.exec(result.stderr);
  expect(line, result.stderr).not.toBeNull();
  const list = (field: string) => (field === '-' ? [] : field.split(','));
  return { bundle: line![1]!, parts: list(line![2]!), builtins: list(line![3]!) };
}

/** Asks about the YAML parser only. */
const YAML = { only: ['yaml'] };

/** The parts the export, audit, key-store, report, fleet and card code note: what the status and guard must not load. */
const HEAVY = ['audit', 'cards', 'export', 'fleet', 'intoto', 'keystore', 'report'];

/** Of the parts a process evaluated, those asked about (by default the heavy ones; `['yaml']` for the YAML parser). */
async function loadedMarkers(rig: Rig, args: string[], options: { stdin?: string; only?: readonly string[] } = {}): Promise<string[]> {
  const { only = HEAVY, ...rest } = options;
  return (await loadedParts(rig, args, rest)).parts.filter((part) => only.includes(part));
}

describe('lazy loading', () => {
  it('--version is answered by the launcher alone: no bundle, no SQLite, YAML, zlib or crypto (what README promises)', async () => {
    const rig = new Rig();
    const log = rig.path('../modules.log');
    rmSync(log, { force: true });
    const child = spawn(process.execPath, ['--import', HOOK, CLI, '--version'], { cwd: rig.root, env: rig.env({ VOUCH_MODULE_LOG: log }) });
    const result = await collect(child, {});
    expect(result.code, result.stderr).toBe(0);
    const loaded = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    // The log sees modules (it is not empty), and none of the heavy ones.
    expect(loaded.some((url) => url.includes('/dist/cli.js'))).toBe(true);
    expect(loaded.filter((url) => /better-sqlite3|\/yaml\/|node:zlib|node:crypto|^zlib$|^crypto$/.test(url))).toEqual([]);
    // Neither the hot bundle nor the split build: the launcher holds the version.
    expect(loaded.filter((url) => url.startsWith('file:') && url.includes('/dist/') && !url.endsWith('/dist/cli.js'))).toEqual([]);
    expect(readFileSync(fileURLToPath(loaded.find((url) => url.endsWith('/dist/cli.js'))!), 'utf8')).not.toMatch(/better-sqlite3|from "yaml"/);
  });

  it('hook, status and verify run from the hot bundle with its code cache; other commands from the split build', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
    await rig.run(['verify']);
    const status = await rig.run(['status'], { env: { VOUCH_TRACE: '1' } });
    expect(status.stderr).toMatch(/bundle=hot code_cache=accepted/);
    const pre = JSON.stringify({ session_id: 's', cwd: rig.root, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: 'src/a.ts' } });
    expect((await rig.run(['-C', rig.root, 'hook', 'claude-code', 'PreToolUse'], { stdin: pre, env: { VOUCH_TRACE: '1' } })).stderr).toMatch(
      /bundle=hot code_cache=accepted/,
    );
    expect((await loadedParts(rig, ['verify'])).bundle).toBe('hot');
    expect((await loadedParts(rig, ['checks'])).bundle).toBe('split');
    expect((await loadedParts(rig, ['log'])).bundle).toBe('split');
  });

  it('status on a signing workspace loads the signature check, never the export or audit code', async () => {
    const rig = await signedWorkspace(new Rig(), 1);
    expect(await loadedMarkers(rig, ['status', 't'])).toEqual(['keystore']);
  });

  it('status on an unsigned workspace loads no crypto, export or audit code at all', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
    await rig.run(['verify']);
    expect(await loadedMarkers(rig, ['status'])).toEqual([]);
  });

  it('status and verify answered from the spec cache load no YAML parser (nor does the ledger they open)', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
    // The first verify creates .vouch/, the second fills the spec cache.
    await rig.run(['verify']);
    await rig.run(['verify']);
    expect(await loadedMarkers(rig, ['status'], YAML)).toEqual([]);
    expect(await loadedMarkers(rig, ['verify'], YAML)).toEqual([]);
    // The marker is real: a spec the cache has not seen is parsed (`allow` would parse it and fill the cache: `checks` reads it first).
    rig.write({ 'vouch.yaml': 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n# edited\n' });
    expect(await loadedMarkers(rig, ['checks'], YAML)).toEqual(['yaml']);
  });

  it('the write guard answered from the spec cache loads no YAML parser, and an edited spec is read afresh (its new protect: list holds)', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    const spec = 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\nprotect: ["tests/**"]\n';
    await rig.spec(spec);
    await rig.run(['verify']);
    await rig.run(['verify']);
    const pre = (path: string) =>
      JSON.stringify({ session_id: 's', cwd: rig.root, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: path } });
    expect(await loadedMarkers(rig, ['hook', 'claude-code', 'PreToolUse'], { stdin: pre('tests/x.ts'), ...YAML })).toEqual([]);
    expect((await rig.run(['hook', 'claude-code', 'PreToolUse'], { stdin: pre('tests/x.ts'), ...YAML })).stdout).toContain('"permissionDecision":"deny"');
    // Edited (not even allowed again): the bytes are not the cached spec's, so the YAML is read and its new glob protects.
    rig.write({ 'vouch.yaml': `${spec}  - "docs/**"\n`.replace('protect: ["tests/**"]\n  - "docs/**"', 'protect:\n  - "tests/**"\n  - "docs/**"') });
    expect(await loadedMarkers(rig, ['hook', 'claude-code', 'PreToolUse'], { stdin: pre('docs/x.md'), ...YAML })).toEqual(['yaml']);
    expect((await rig.run(['hook', 'claude-code', 'PreToolUse'], { stdin: pre('docs/x.md'), ...YAML })).stdout).toContain('"permissionDecision":"deny"');
  });

  it('a warm status and the write guard on an ordinary edit load none of Node’s heavy modules but zlib and no glob matcher; a protect: glob loads the matcher', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    const spec = 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n';
    await rig.spec(spec);
    // Files younger than the racy margin are walked and hashed every time: wait until the scope can be remembered.
    await new Promise((resolve) => setTimeout(resolve, Number(RACY_MARGIN_NS / 1_000_000n) + 500));
    await rig.run(['verify']);
    await rig.run(['status']);
    // The receipts are read with zlib (which brings stream); nothing else: no node:crypto (digests from the addon), no socket or tty (output goes to the descriptors), no spawn.
    const status = await loadedParts(rig, ['status']);
    expect(status.builtins.filter((name) => name !== 'zlib' && name !== 'stream')).toEqual([]);
    expect(status.parts).toEqual(['sqlite']);
    const pre = (path: string) =>
      JSON.stringify({
        session_id: 's',
        cwd: rig.root,
        hook_event_name: 'PreToolUse',
        tool_name: 'Edit',
        tool_input: { file_path: join(rig.root, path), old_string: 'a', new_string: 'b' },
      });
    // A session's first call records it (and its git baseline); every later call is the one an agent pays for each edit.
    await rig.run(['hook', 'claude-code', 'PreToolUse'], { stdin: pre('src/a.ts') });
    const edit = await loadedParts(rig, ['hook', 'claude-code', 'PreToolUse'], { stdin: pre('src/a.ts') });
    expect(edit.builtins).toEqual([]);
    // Nor SQLite: the guard reads no ledger.
    expect(edit.parts).toEqual([]);
    // The markers are real: verify spawns and hashes, and a protect: glob is matched with picomatch (and its denial holds).
    expect((await loadedParts(rig, ['verify'])).builtins).toEqual(expect.arrayContaining(['child_process', 'crypto']));
    await rig.spec(`${spec}protect: ["tests/**"]\n`);
    await rig.run(['verify']);
    expect((await loadedParts(rig, ['hook', 'claude-code', 'PreToolUse'], { stdin: pre('tests/x.ts') })).parts).toEqual(['picomatch']);
    expect((await rig.run(['hook', 'claude-code', 'PreToolUse'], { stdin: pre('tests/x.ts') })).stdout).toContain('"permissionDecision":"deny"');
  });

  it('the report and the dispatch engine stay off the hot paths: status and the write guard load neither', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
    await rig.run(['verify']);
    expect(await loadedMarkers(rig, ['status'])).toEqual([]);
    const pre = JSON.stringify({ session_id: 's', cwd: rig.root, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: 'src/a.ts' } });
    expect(await loadedMarkers(rig, ['hook', 'claude-code', 'PreToolUse'], { stdin: pre })).toEqual([]);
    // The markers are real: the commands that need them load them.
    expect(await loadedMarkers(rig, ['report', '--out', '-'])).toEqual(expect.arrayContaining(['report', 'fleet']));
    expect(await loadedMarkers(rig, ['fleet'])).toEqual(['fleet']);
  });

  it("verify of one check loads neither the cards' nor the dispatches' folds while the ledger is within its policy; an automatic gc that is due loads them (what open cards and dispatches still need)", async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec('version: 1\nretention: {per_check: 1, auto: 2}\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
    // Two receipts, per_check 1: one candidate, below the threshold of 2.
    expect(await loadedMarkers(rig, ['verify'], { only: ['cards', 'fleet'] })).toEqual([]);
    expect(await loadedMarkers(rig, ['verify'], { only: ['cards', 'fleet'] })).toEqual([]);
    // The third is due: the gc reads what must stay, and the markers show it (so the two above can fail).
    expect(await loadedMarkers(rig, ['verify'], { only: ['cards', 'fleet'] })).toEqual(['cards', 'fleet']);
  });

  it('the markers are real: export loads them (so the checks above can fail)', async () => {
    const rig = await signedWorkspace(new Rig(), 1);
    expect(await loadedMarkers(rig, ['export', '--check', 't', '--out', 'b.jsonl'])).toEqual(expect.arrayContaining(['export', 'intoto', 'keystore']));
    expect(await loadedMarkers(rig, ['audit'])).toEqual(expect.arrayContaining(['audit']));
  });

  it('the card engine loads with `vouch card` only (the status above loads none of it)', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
    expect(await loadedMarkers(rig, ['card', 'list'])).toEqual(['cards']);
  });
});
