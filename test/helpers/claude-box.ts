import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { BodyStore } from '../../src/ledger/sqlite/body-store.js';
import { ADD_GOOD, ADD_SPEC, ADD_TEST } from './add-project.js';
import { runClaude } from './claude.js';
import { MockAnthropic, type Script } from './mock-anthropic.js';
import { CLI, Rig } from './rig.js';

/*
 * What the tests that drive the real Claude Code CLI with its sandbox on (the
 * box of issue 23) share: a workspace installed with `vouch install
 * claude-code` (box on unless told `--no-sandbox`), one headless session in
 * it, and readings of the ledger the box keeps read-only for the agent.
 */

/** The person's home, apart from VOUCH_HOME (the rig's), so the box can keep VOUCH_HOME read-only and the npm cache writable. */
export const userHome = (rig: Rig) => join(dirname(rig.home), 'user');

/** The add() project, verified (`verify`: the checks to run, all by default) and installed; `install` holds the flags of `vouch install claude-code`. */
export async function boxedWorkspace(options: { spec?: string; install: string[]; files?: Record<string, string>; verify?: string[] }): Promise<Rig> {
  const rig = new Rig().write({ 'src/add.js': ADD_GOOD, 'test/add.test.js': ADD_TEST, ...options.files });
  mkdirSync(userHome(rig), { recursive: true });
  await rig.spec(options.spec ?? ADD_SPEC);
  expect((await rig.run(['verify', ...(options.verify ?? [])])).code).toBe(0);
  const installed = await rig.run(['install', 'claude-code', ...options.install], { env: { HOME: userHome(rig) } });
  expect(installed.code, installed.stderr).toBe(0);
  return rig;
}

/** One `claude -p` session in the workspace, the scripted agent behind the mock; `mocks` collects the mock for the file's afterEach to close. */
export async function boxedSession(binary: string, rig: Rig, mocks: MockAnthropic[], script: Script) {
  const mock = new MockAnthropic(script);
  mocks.push(mock);
  const baseUrl = await mock.start();
  const configDir = join(rig.home, 'claude');
  mkdirSync(configDir, { recursive: true });
  const started = Date.now();
  const run = await runClaude(binary, {
    cwd: rig.root,
    configDir,
    baseUrl,
    prompt: 'Make add() correct and tell me when it is done.',
    // The registry is reached through this machine's CA bundle; the sandboxed commands get it too.
    env: { ...rig.env(), HOME: userHome(rig), NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS },
    tools: ['Write', 'Edit', 'Bash'],
  });
  return { run, mock, ms: Date.now() - started };
}

function ledger<T>(rig: Rig, read: (db: Database.Database) => T): T {
  const db = new Database(rig.path('.vouch/ledger.db'), { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** The gate's decisions in the ledger, oldest first; none when the ledger has no chain yet. */
export function gateDecisions(rig: Rig): { decision: string; reason: string }[] {
  try {
    return ledger(rig, (db) => {
      const bodies = new BodyStore(db);
      const stored = db.prepare("SELECT body, dict FROM chain WHERE kind = 'gate' ORDER BY seq").all() as { body: string | Buffer; dict: number | null }[];
      return stored.map((row) => JSON.parse(bodies.decode(row)!));
    });
  } catch {
    return [];
  }
}

/** How many entries of a kind the ledger holds. */
export const entries = (rig: Rig, kind: string): number =>
  ledger(rig, (db) => db.prepare('SELECT count(*) FROM chain WHERE kind = ?').pluck().get(kind) as number);

export const receipts = (rig: Rig): number => entries(rig, 'receipt');

export const bash = (id: string, command: string) => ({ type: 'tool_use' as const, id, name: 'Bash', input: { command, description: 'run a command' } });
export const write = (id: string, file_path: string, content: string) => ({ type: 'tool_use' as const, id, name: 'Write', input: { file_path, content } });
export const say = (text: string) => ({ type: 'text' as const, text });
export const py = (code: string) => `python3 -c ${JSON.stringify(code)}`;
/** vouch as the agent's shell can run it: this build, by absolute path. */
export const vouch = (...args: string[]) => [process.execPath, CLI, ...args].map((a) => `'${a}'`).join(' ');
/** The session id Claude Code reported. */
export const sessionOf = (run: { events: Record<string, unknown>[] }) => run.events.find((e) => e.type === 'result')?.session_id as string;
