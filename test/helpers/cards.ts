import { expect } from 'vitest';
import type { Rig, RunResult } from './rig.js';

/** Environment of a command run by Claude Code's Bash tool (as observed with 2.1.332). */
export const IN_CLAUDE_CODE = { CLAUDECODE: '1', AI_AGENT: 'claude-code_2-1-332_agent' } as const;
/** Environment of a command run by Codex's shell tool (as observed with 0.171.0). */
export const IN_CODEX = { CODEX_THREAD_ID: '01a22c49-943a-7e53-aa10-fdd18186d423', CODEX_CI: '1', CODEX_TOOL_CALL_ID: 'c1' } as const;

export const as = (role: 'worker' | 'verifier' | 'coordinator' | 'owner', extra: Record<string, string> = {}) => ({ VOUCH_ROLE: role, ...extra });

/** `vouch card ARGS --json` in the rig, as the given environment. */
export function card(rig: Rig, args: readonly string[], env: Record<string, string | undefined> = {}): Promise<RunResult> {
  return rig.run(['card', ...args, '--json'], { env });
}

/** Opens a card and returns its id; fails the test with vouch's own words when it cannot. */
export async function opened(rig: Rig, flags: readonly string[], env: Record<string, string | undefined> = {}): Promise<string> {
  const result = await card(rig, ['open', '--goal', 'make a good', '--artifact', 'src/a.txt', '--done-when', 'src/a.txt says good', ...flags], env);
  expect(result.code, result.stderr).toBe(0);
  const id = result.json().id as string;
  expect(id).toMatch(/^c-[0-9a-z]{8}$/);
  return id;
}

/** Asserts a refusal: the exit code and the stable code in the --json error. */
export function refused(result: RunResult, code: string, exit = 4): void {
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(exit);
  expect(result.json().error.code).toBe(code);
}

/** The kinds of a card's events, oldest first, from `card show --json`. */
export async function kinds(rig: Rig, id: string): Promise<string[]> {
  return (await card(rig, ['show', id])).json().events.map((e: { kind: string }) => e.kind);
}
