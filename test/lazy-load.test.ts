import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI, collect, Rig } from './helpers/rig.js';
import { signedWorkspace } from './helpers/signed.js';

const HOOK = fileURLToPath(new URL('./helpers/module-log.mjs', import.meta.url));

/** Text that only the export, audit and key-store code contains, as it survives bundling. */
const MARKERS = {
  export: 'DSSEv1',
  intoto: 'https://in-toto.io/Statement/v1',
  audit: 'entries were deleted without gc recording it',
  keystore: 'is not the public half of',
  report: 'Content-Security-Policy',
  fleet: 'the record was edited or entries are missing',
  cards: 'a verdict is missing',
};

/** Text only the YAML parser contains: loaded only when vouch.yaml must be parsed. */
const YAML_MARKER = { yaml: 'Implicit keys need to be on a single line' };

/** The bundled chunks a `vouch ARGS` process loaded, and which markers they contain. */
async function loadedMarkers(rig: Rig, args: string[], options: { stdin?: string; markers?: Record<string, string> } = {}): Promise<string[]> {
  const { stdin, markers = MARKERS } = options;
  const log = rig.path('../modules.log');
  rmSync(log, { force: true });
  const child = spawn(process.execPath, ['--import', HOOK, CLI, ...args], { cwd: rig.root, env: rig.env({ VOUCH_MODULE_LOG: log }) });
  const result = await collect(child, stdin === undefined ? {} : { stdin });
  expect(result.code, result.stderr).toBe(0);
  const files = readFileSync(log, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith('file:') && url.includes('/dist/'))
    .map((url) => fileURLToPath(url));
  expect(files.length).toBeGreaterThan(1);
  const text = files.map((file) => readFileSync(file, 'utf8')).join('\n');
  return Object.entries(markers)
    .filter(([, marker]) => text.includes(marker))
    .map(([name]) => name);
}

describe('lazy loading', () => {
  it('--version loads no SQLite, YAML, zlib or crypto (what README promises)', async () => {
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
    const text = loaded.filter((url) => url.startsWith('file:') && url.includes('/dist/')).map((url) => readFileSync(fileURLToPath(url), 'utf8')).join('\n');
    expect(text).not.toContain(YAML_MARKER.yaml);
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
    expect(await loadedMarkers(rig, ['status'], { markers: YAML_MARKER })).toEqual([]);
    expect(await loadedMarkers(rig, ['verify'], { markers: YAML_MARKER })).toEqual([]);
    // The marker is real: a spec the cache has not seen is parsed (`allow` would parse it and fill the cache: `checks` reads it first).
    rig.write({ 'vouch.yaml': 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n# edited\n' });
    expect(await loadedMarkers(rig, ['checks'], { markers: YAML_MARKER })).toEqual(['yaml']);
  });

  it('the write guard answered from the spec cache loads no YAML parser, and an edited spec is read afresh (its new protect: list holds)', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    const spec = 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\nprotect: ["tests/**"]\n';
    await rig.spec(spec);
    await rig.run(['verify']);
    await rig.run(['verify']);
    const pre = (path: string) => JSON.stringify({ session_id: 's', cwd: rig.root, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: path } });
    expect(await loadedMarkers(rig, ['hook', 'claude-code', 'PreToolUse'], { stdin: pre('tests/x.ts'), markers: YAML_MARKER })).toEqual([]);
    expect((await rig.run(['hook', 'claude-code', 'PreToolUse'], { stdin: pre('tests/x.ts') })).stdout).toContain('"permissionDecision":"deny"');
    // Edited (not even allowed again): the bytes are not the cached spec's, so the YAML is read and its new glob protects.
    rig.write({ 'vouch.yaml': `${spec}  - "docs/**"\n`.replace('protect: ["tests/**"]\n  - "docs/**"', 'protect:\n  - "tests/**"\n  - "docs/**"') });
    expect(await loadedMarkers(rig, ['hook', 'claude-code', 'PreToolUse'], { stdin: pre('docs/x.md'), markers: YAML_MARKER })).toEqual(['yaml']);
    expect((await rig.run(['hook', 'claude-code', 'PreToolUse'], { stdin: pre('docs/x.md') })).stdout).toContain('"permissionDecision":"deny"');
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
