import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hookResponses } from './helpers/claude.js';
import { bash, claudeSessions, gateDecisions, say, write } from './helpers/claude-session.js';
import { lastUserText, type Block, type MessagesRequest } from './helpers/mock-anthropic.js';
import { CLI, Rig } from './helpers/rig.js';

/*
 * Crew's Done-when, through the real Claude Code CLI (`claude -p` against
 * the local mock of the Messages API playing the coordinator and its
 * worker): a request becomes a card with a frozen proof in one exchange
 * (vouch_card_open over MCP); a worker that breaks the proof is not let
 * close it; one that fixes it closes it by the gate's own run at its
 * SubagentStop; the asking session gets the one-line result at its Stop.
 */

const claude = claudeSessions();

const SPEC = `version: 1
checks:
  - id: tests
    run: ["sh", "-c", "grep -q good src/a.txt || { echo 'expected: good' >&2; echo \\"found: $(cat src/a.txt)\\" >&2; exit 1; }"]
    sources: ["src/**"]
`;

const CARD = /\bc-[0-9a-hjkmnp-tv-z]{8}\b/;
const isWorker = (request: MessagesRequest) => JSON.stringify(request.messages[0]?.content ?? '').includes('WORKER');
const tool = (id: string, name: string, input: Record<string, unknown>): Block => ({ type: 'tool_use', id, name, input });

/** A workspace with the hooks installed, `vouch` on the agent's PATH, and the MCP server the coordinator opens cards through. */
async function crew(): Promise<{ rig: Rig; args: string[]; env: Record<string, string> }> {
  const rig = new Rig().write({ 'src/a.txt': 'bad\n' });
  await rig.spec(SPEC);
  const installed = await rig.run(['install', 'claude-code', '--no-sandbox']);
  expect(installed.code, installed.stderr).toBe(0);
  const bin = join(rig.home, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'vouch'), `#!/bin/sh\nexec ${process.execPath} ${CLI} "$@"\n`);
  chmodSync(join(bin, 'vouch'), 0o755);
  // The coordinator's server: VOUCH_ROLE=coordinator in its entry, as docs/cards.md says.
  const config = join(rig.home, 'mcp.json');
  const server = { type: 'stdio', command: process.execPath, args: [CLI, 'mcp', '-C', rig.root], env: { VOUCH_HOME: rig.home, VOUCH_ROLE: 'coordinator' } };
  writeFileSync(config, JSON.stringify({ mcpServers: { vouch: server } }));
  return { rig, args: ['--mcp-config', config, '--strict-mcp-config'], env: { PATH: `${bin}:${process.env.PATH}` } };
}

describe("Crew's coordinator through real Claude Code", () => {
  it("a request becomes a card in one exchange; the breaking worker is held, the fixing one closes it by the gate's run; the asker gets one line", async () => {
    const { rig, args, env } = await crew();
    let id = '';
    let openedOnTurn = -1;
    const main: MessagesRequest[] = [];
    const worker: MessagesRequest[] = [];
    const { run } = await claude.session(
      rig,
      (request) => {
        if (isWorker(request)) {
          worker.push(request);
          switch (worker.length) {
            case 1:
              return [bash('toolu_w1', `vouch card claim ${id}`)];
            case 2:
              return [write('toolu_w2', rig.path('src/a.txt'), 'still bad\n')];
            case 3:
              return [say('Done: src/a.txt is fixed.')];
            case 4:
              return [write('toolu_w3', rig.path('src/a.txt'), 'good\n')];
            default:
              return [say('Fixed for real: src/a.txt says good.')];
          }
        }
        main.push(request);
        if (main.length === 1) {
          openedOnTurn = 0;
          return [
            say('Opening a card for this request.'),
            tool('toolu_m1', 'mcp__vouch__vouch_card_open', {
              goal: 'src/a.txt says good',
              artifact: 'src/a.txt',
              done_when: 'grep finds good in src/a.txt',
              proof: ['tests'],
              budget_tokens: 1_000_000,
            }),
          ];
        }
        if (main.length === 2) {
          id = CARD.exec(lastUserText(request))?.[0] ?? '';
          const prompt = `WORKER for card ${id}: run \`vouch card claim ${id}\`, make src/a.txt say good, and report.`;
          return [tool('toolu_m2', 'Agent', { description: 'work the card', prompt, subagent_type: 'general-purpose', run_in_background: false })];
        }
        return [say('The worker has stopped.')];
      },
      {
        prompt: 'make src/a.txt say good',
        tools: ['Write', 'Edit', 'Bash', 'Agent', 'mcp__vouch__vouch_card_open', 'mcp__vouch__vouch_card_show'],
        extraArgs: args,
        env,
      },
    );
    expect(run.code, run.stderr).toBe(0);

    // One exchange: the first model turn opened it, and the tool's answer was the contract line.
    expect(openedOnTurn).toBe(0);
    expect(id).toMatch(CARD);
    expect(lastUserText(main[1]!)).toContain(`src/a.txt · proof tests (frozen) · budget 5 attempts, 1000000 tokens · ${id} · owned by the coordinator`);

    // The breaking worker was held at its stop with the proof's failure; the fixing one was let go.
    const subStops = hookResponses(run, 'SubagentStop');
    expect(subStops).toHaveLength(2);
    expect(JSON.parse(subStops[0]!.stdout)).toMatchObject({ decision: 'block' });
    expect(lastUserText(worker[3]!)).toContain(`card ${id}'s proof is FAIL: tests FAIL (exit_code)`);
    expect(subStops[1]!.stdout).not.toContain('"block"');

    const shown = (await rig.run(['card', 'show', id, '--json'])).json<{ state: string; opened: unknown; events: Record<string, any>[] }>();
    expect(shown.state).toBe('done');
    expect(shown.events.map((e) => e.kind)).toEqual(['opened', 'claimed', 'verdict', 'verdict', 'completed', 'audit', 'answered']);
    expect(shown.events[0]).toMatchObject({ by: { role: 'coordinator', agent: 'claude-code', via: 'mcp' }, proof: { kind: 'checks' } });
    expect(shown.events[2]).toMatchObject({ verdict: 'FAIL', by: { role_from: 'gate' } });
    expect(shown.events[3]).toMatchObject({ verdict: 'PASS', by: { role_from: 'gate' } });
    expect(shown.events[4]).toMatchObject({ kind: 'completed', by: { role_from: 'gate' } });

    // The asking session's Stop carried the one line, and let it stop.
    const line = `${id} done - proof exit 0 - 2 runs, 1 fix`;
    const stops = hookResponses(run, 'Stop');
    expect(stops.map((s) => s.stdout).join('\n')).toContain(line);
    expect(shown.events.at(-1)).toMatchObject({ kind: 'answered', line });
    expect(gateDecisions(rig).map((g) => [g.decision, g.reason])).toEqual([
      ['block', 'card_not_passing'],
      ['allow', 'all_pass'],
      ['allow', 'all_pass'],
    ]);
  }, 300_000);

  it("attack: a worker spends past its card's token budget (counted from its own transcript): the card records it, and its next call is denied", async () => {
    const { rig, args, env } = await crew();
    const opened = await rig.run([
      'card',
      'open',
      '--goal',
      'g',
      '--artifact',
      'src/a.txt',
      '--done-when',
      'says good',
      '--proof',
      'tests',
      '--budget-tokens',
      '1',
      '--json',
    ]);
    expect(opened.code, opened.stderr).toBe(0);
    const id = opened.json<{ id: string }>().id;
    const worker: MessagesRequest[] = [];
    const { run } = await claude.session(
      rig,
      (request) => {
        if (isWorker(request)) {
          worker.push(request);
          if (worker.length === 1) return [bash('toolu_w1', `vouch card claim ${id}`)];
          if (worker.length === 2) return [bash('toolu_w2', 'ls src')];
          if (worker.length === 3) return [write('toolu_w3', rig.path('src/a.txt'), 'good\n')];
          return [say('Stopped: over budget.')];
        }
        if (worker.length === 0)
          return [
            tool('toolu_m1', 'Agent', { description: 'work', prompt: `WORKER for card ${id}`, subagent_type: 'general-purpose', run_in_background: false }),
          ];
        return [say('The worker stopped.')];
      },
      { tools: ['Write', 'Bash', 'Agent'], extraArgs: args, env },
    );
    expect(run.code, run.stderr).toBe(0);
    const shown = (await rig.run(['card', 'show', id, '--json'])).json<{ events: Record<string, any>[] }>();
    const stopped = shown.events.find((e) => e.kind === 'stopped');
    expect(stopped).toMatchObject({ reason: 'over_budget_tokens', budget_tokens: 1, worker: { client: 'claude-code' } });
    expect(stopped!.tokens).toBeGreaterThan(1);
    expect(stopped!.worker.agent_id).toEqual(expect.any(String));
    // Its Write after that was denied: the file is as it was.
    expect(hookResponses(run, 'PreToolUse').at(-1)!.stdout).toContain(`card ${id} over budget: stop and report`);
    expect(rig.read('src/a.txt')).toBe('bad\n');
  }, 300_000);

  it('the same through the shipped vouch-coordinator subagent: it opens the card over MCP and dispatches the worker itself; the gate closes the card on its run', async () => {
    const { rig, args, env } = await crew();
    mkdirSync(rig.path('.claude/agents'), { recursive: true });
    copyFileSync(join(import.meta.dirname, '..', 'agents', 'vouch-coordinator.md'), rig.path('.claude/agents/vouch-coordinator.md'));
    let id = '';
    const coordinator: MessagesRequest[] = [];
    const worker: MessagesRequest[] = [];
    const isCoordinator = (request: MessagesRequest) => JSON.stringify(request.messages[0]?.content ?? '').includes('REQUEST');
    const { run } = await claude.session(
      rig,
      (request) => {
        if (isWorker(request)) {
          worker.push(request);
          if (worker.length === 1) return [bash('toolu_w1', `vouch card claim ${id}`)];
          if (worker.length === 2) return [write('toolu_w2', rig.path('src/a.txt'), 'good\n')];
          return [say('Done: src/a.txt says good.')];
        }
        if (isCoordinator(request)) {
          coordinator.push(request);
          if (coordinator.length === 1) {
            return [
              tool('toolu_c1', 'mcp__vouch__vouch_card_open', {
                goal: 'src/a.txt says good',
                artifact: 'src/a.txt',
                done_when: 'grep finds good',
                proof: ['tests'],
              }),
            ];
          }
          if (coordinator.length === 2) {
            id = CARD.exec(lastUserText(request))?.[0] ?? '';
            const prompt = `WORKER for card ${id}: run \`vouch card claim ${id}\` first, make src/a.txt say good, and report.`;
            return [tool('toolu_c2', 'Agent', { description: 'work the card', prompt, subagent_type: 'general-purpose', run_in_background: false })];
          }
          if (coordinator.length === 3) return [tool('toolu_c3', 'mcp__vouch__vouch_card_show', { card_id: id })];
          return [say(`${id} is done.`)];
        }
        if (coordinator.length === 0)
          return [
            tool('toolu_m1', 'Agent', {
              description: 'coordinate',
              prompt: 'REQUEST: make src/a.txt say good',
              subagent_type: 'vouch-coordinator',
              run_in_background: false,
            }),
          ];
        return [say('The coordinator answered.')];
      },
      { tools: ['Write', 'Bash', 'Agent', 'mcp__vouch__vouch_card_open', 'mcp__vouch__vouch_card_show'], extraArgs: args, env },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(id).toMatch(CARD);
    // The coordinator was offered only what its definition names (no Write, Edit or Bash).
    const offered = (coordinator[0]!.tools ?? []).map((t) => t.name);
    expect(offered).not.toEqual(expect.arrayContaining(['Write']));
    expect(offered).not.toContain('Bash');
    const shown = (await rig.run(['card', 'show', id, '--json'])).json<{ state: string; events: Record<string, any>[] }>();
    expect(shown.state).toBe('done');
    expect(shown.events[0]).toMatchObject({ by: { role: 'coordinator', via: 'mcp' } });
    expect(shown.events.find((e) => e.kind === 'completed')).toMatchObject({ by: { role_from: 'gate' } });
    // What the coordinator read back before answering: the card done, by its own vouch_card_show.
    expect(lastUserText(coordinator[3]!)).toContain(`{"card":{"id":"${id}","state":"done","passed":true`);
  }, 300_000);
});
