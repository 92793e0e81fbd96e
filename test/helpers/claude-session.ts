import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeAll } from 'vitest';
import { BodyStore } from '../../src/ledger/sqlite/body-store.js';
import { claudeBinary, runClaude } from './claude.js';
import { MockAnthropic, type Script } from './mock-anthropic.js';
import type { Rig } from './rig.js';

/*
 * What the tests that drive the real Claude Code CLI share: the scripted
 * agent's tool calls, one headless session against the local Messages API
 * mock, and the gate's decisions as the ledger holds them.
 */

export const write = (id: string, file_path: string, content: string) => ({ type: 'tool_use' as const, id, name: 'Write', input: { file_path, content } });
export const bash = (id: string, command: string) => ({ type: 'tool_use' as const, id, name: 'Bash', input: { command, description: 'run a command' } });
export const say = (text: string) => ({ type: 'text' as const, text });

/** The mocks a file's sessions started: close them after each test (`for (const m of mocks.splice(0)) await m.close()`). */
export type MockList = MockAnthropic[];

/** One `claude -p` session in the rig's workspace, its own config directory under the rig's home, the scripted agent behind the mock. */
export async function claudeSession(
  binary: string,
  rig: Rig,
  mocks: MockList,
  script: Script,
  options: { prompt?: string; extraArgs?: string[]; tools?: string[]; env?: Record<string, string> } = {},
) {
  const mock = new MockAnthropic(script);
  mocks.push(mock);
  const baseUrl = await mock.start();
  const configDir = join(rig.home, 'claude');
  mkdirSync(configDir, { recursive: true });
  const run = await runClaude(binary, {
    cwd: rig.root,
    configDir,
    baseUrl,
    prompt: options.prompt ?? 'Make the tests pass and tell me when it is done.',
    env: rig.env(options.env),
    tools: options.tools ?? ['Write', 'Edit', 'Bash'],
    ...(options.extraArgs && { extraArgs: options.extraArgs }),
  });
  return { run, mock };
}

/**
 * A test file's real Claude Code sessions: the pinned CLI (fetched once, in
 * beforeAll) and the mocks its sessions start, closed after each test.
 */
export function claudeSessions() {
  let binary: string | undefined;
  beforeAll(() => {
    binary = claudeBinary();
  }, 600_000);
  const mocks: MockList = [];
  afterEach(async () => {
    for (const mock of mocks.splice(0)) await mock.close();
  });
  return {
    session: (rig: Rig, script: Script, options: Parameters<typeof claudeSession>[4] = {}) => claudeSession(binary!, rig, mocks, script, options),
  };
}

export interface GateRecord {
  readonly decision: string;
  readonly reason: string;
  readonly checks: { id: string; status: string; reason: string }[];
}

/** The gate's decisions in the workspace's SQLite ledger, oldest first. */
export function gateDecisions(rig: Rig): GateRecord[] {
  const db = new Database(rig.path('.vouch/ledger.db'), { readonly: true });
  try {
    const bodies = new BodyStore(db);
    const stored = db.prepare("SELECT body, dict FROM chain WHERE kind = 'gate' ORDER BY seq").all() as { body: string | Buffer; dict: number | null }[];
    return stored.map((row) => JSON.parse(bodies.decode(row)!) as GateRecord);
  } finally {
    db.close();
  }
}
