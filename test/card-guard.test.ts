import { describe, expect, it } from 'vitest';
import { Rig, type RunResult } from './helpers/rig.js';

/*
 * The agent gate's guard and task cards: proof scripts under .vouch/cards/
 * are written by the verifier, never the worker. Driven through
 * `vouch hook claude-code|codex PreToolUse` with the payloads the clients
 * send (a subagent's carries agent_type, as Claude Code 2.1.332 does).
 */

const SPEC = `version: 1
checks:
  - id: tests
    run: ["true"]
    sources: ["src/**"]
`;
const SCRIPT = '.vouch/cards/c-7k2m9xqa/proof.sh';

async function workspace(): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.txt': 'a\n' });
  await rig.spec(SPEC);
  return rig;
}

function pre(
  rig: Rig,
  tool_name: string,
  tool_input: Record<string, unknown>,
  options: { env?: Record<string, string>; agentType?: string; client?: string } = {},
): Promise<RunResult> {
  const payload = {
    session_id: 'sess-1',
    cwd: rig.root,
    hook_event_name: 'PreToolUse',
    tool_name,
    tool_input,
    tool_use_id: 't1',
    ...(options.agentType && { agent_id: 'a1', agent_type: options.agentType }),
  };
  return rig.run(['hook', options.client ?? 'claude-code', 'PreToolUse'], { stdin: JSON.stringify(payload), env: { CLAUDECODE: '1', ...options.env } });
}

function denial(result: RunResult): string | null {
  expect(result.code, result.stderr).toBe(0);
  if (result.stdout.trim() === '') return null;
  const output = JSON.parse(result.stdout).hookSpecificOutput;
  expect(output.permissionDecision).toBe('deny');
  return output.permissionDecisionReason as string;
}

const write = (rig: Rig, path: string) => ({ file_path: rig.path(path), content: '#!/bin/sh\nexit 0\n' });

describe('the guard and .vouch/cards/', () => {
  it("denies a worker's Write of a proof script, before it happens", async () => {
    const rig = await workspace();
    for (const env of [{}, { VOUCH_ROLE: 'worker' }, { VOUCH_ROLE: 'coordinator' }, { VOUCH_ROLE: 'owner' }] as Record<string, string>[]) {
      const reason = denial(await pre(rig, 'Write', write(rig, SCRIPT), { env }));
      expect(reason, JSON.stringify(env)).toContain(`vouch denied this Write of ${SCRIPT}`);
      expect(reason).toContain('the verifier writes them');
    }
  });

  it("denies a worker's shell write and Codex patch there too", async () => {
    const rig = await workspace();
    expect(denial(await pre(rig, 'Bash', { command: `mkdir -p .vouch/cards/c-7k2m9xqa && printf 'exit 0' > ${SCRIPT}` }))).toContain('verifier');
    expect(denial(await pre(rig, 'Bash', { command: `sed -i 's/exit 1/exit 0/' ${SCRIPT}` }))).toContain(SCRIPT);
    const patch = `*** Begin Patch\n*** Add File: ${SCRIPT}\n+#!/bin/sh\n+exit 0\n*** End Patch\n`;
    expect(denial(await pre(rig, 'apply_patch', { command: patch }, { client: 'codex', env: { CODEX_THREAD_ID: 't' } }))).toContain('verifier');
  });

  it('lets the verifier (VOUCH_ROLE=verifier) write proof scripts, and nothing else: not the work, not the ledger, not the spec', async () => {
    const rig = await workspace();
    const env = { VOUCH_ROLE: 'verifier' };
    expect(denial(await pre(rig, 'Write', write(rig, SCRIPT), { env }))).toBeNull();
    expect(denial(await pre(rig, 'Bash', { command: `cat > ${SCRIPT} <<'EOF'\n#!/bin/sh\ngrep -q a src/a.txt\nEOF` }, { env }))).toBeNull();
    expect(denial(await pre(rig, 'Write', write(rig, 'src/a.txt'), { env }))).toContain('acts as the verifier');
    expect(denial(await pre(rig, 'Write', write(rig, '.vouch/ledger.db'), { env }))).toContain('.vouch/ holds the receipts');
    expect(denial(await pre(rig, 'Write', write(rig, 'vouch.yaml'), { env }))).toContain('definition of "done"');
  });

  it('takes the role from a Claude Code subagent named verifier, for that subagent only', async () => {
    const rig = await workspace();
    expect(denial(await pre(rig, 'Write', write(rig, SCRIPT), { agentType: 'verifier' }))).toBeNull();
    expect(denial(await pre(rig, 'Write', write(rig, SCRIPT), { agentType: 'vouch-verifier' }))).toBeNull();
    expect(denial(await pre(rig, 'Write', write(rig, 'src/a.txt'), { agentType: 'verifier' }))).toContain('acts as the verifier');
    // The main agent of the same session, and any other subagent, are workers.
    expect(denial(await pre(rig, 'Write', write(rig, SCRIPT)))).toContain('verifier writes them');
    expect(denial(await pre(rig, 'Write', write(rig, SCRIPT), { agentType: 'general-purpose' }))).toContain('verifier writes them');
    // A subagent named worker is a worker even in a verifier's session.
    expect(denial(await pre(rig, 'Write', write(rig, SCRIPT), { agentType: 'worker', env: { VOUCH_ROLE: 'verifier' } }))).toContain('verifier writes them');
  });
});
