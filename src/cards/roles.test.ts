import { describe, expect, it } from 'vitest';
import { agentRun } from '../clients/agent-run.js';
import { actorOf } from './roles.js';

describe('agentRun: what the agent clients put in the environment of what they run', () => {
  it.each([
    [{ CLAUDECODE: '1' }, 'claude-code', 'CLAUDECODE'],
    [{ CODEX_THREAD_ID: '01a2' }, 'codex', 'CODEX_THREAD_ID'],
    [{ CODEX_TOOL_CALL_ID: 'c1' }, 'codex', 'CODEX_TOOL_CALL_ID'],
    [{ CODEX_CI: '1' }, 'codex', 'CODEX_CI'],
    [{ CODEX_SANDBOX: 'seatbelt' }, 'codex', 'CODEX_SANDBOX'],
    [{ CURSOR_AGENT: '1' }, 'cursor', 'CURSOR_AGENT'],
    [{ GEMINI_CLI: '1' }, 'gemini-cli', 'GEMINI_CLI'],
    [{ AI_AGENT: 'hermes' }, 'hermes', 'AI_AGENT'],
  ])('%o is an agent run of %s', (env, agent, marker) => {
    expect(agentRun(env)).toEqual({ agent, marker });
  });

  it.each([[{}], [{ CLAUDECODE: '' }], [{ CLAUDECODE: '0' }], [{ AI_AGENT: '  ' }], [{ TERM: 'xterm', HOME: '/root' }]])(
    '%o is a person at a terminal',
    (env) => {
      expect(agentRun(env)).toBeNull();
    },
  );
});

describe('actorOf: roles from VOUCH_ROLE, else owner at a terminal and worker in an agent run', () => {
  it('defaults by where it runs', () => {
    expect(actorOf({}, 'cli')).toEqual({ ok: true, value: { role: 'owner', role_from: 'default', agent: null, via: 'cli' } });
    expect(actorOf({ CLAUDECODE: '1' }, 'cli')).toEqual({ ok: true, value: { role: 'worker', role_from: 'default', agent: 'claude-code', via: 'cli' } });
    // An MCP caller is an agent, whatever its environment shows.
    expect(actorOf({}, 'mcp')).toMatchObject({ ok: true, value: { role: 'worker', agent: 'mcp-client' } });
  });

  it('takes VOUCH_ROLE, except owner inside an agent run', () => {
    expect(actorOf({ VOUCH_ROLE: 'verifier', CODEX_THREAD_ID: 't' }, 'cli')).toMatchObject({
      ok: true,
      value: { role: 'verifier', role_from: 'VOUCH_ROLE', agent: 'codex' },
    });
    expect(actorOf({ VOUCH_ROLE: 'owner' }, 'cli')).toMatchObject({ ok: true, value: { role: 'owner', role_from: 'VOUCH_ROLE' } });
    expect(actorOf({ VOUCH_ROLE: 'owner', CLAUDECODE: '1' }, 'cli')).toMatchObject({ ok: false, error: { code: 'card_agent_run' } });
    expect(actorOf({ VOUCH_ROLE: 'owner' }, 'mcp')).toMatchObject({ ok: false, error: { code: 'card_agent_run' } });
    expect(actorOf({ VOUCH_ROLE: 'root' }, 'cli')).toMatchObject({ ok: false, error: { code: 'usage', found: 'root' } });
  });
});
