import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hookResponses } from './helpers/claude.js';
import { bash, claudeSessions, gateDecisions, say } from './helpers/claude-session.js';
import { opened } from './helpers/cards.js';
import { CLI, Rig } from './helpers/rig.js';

/*
 * Every tool call's end reaches vouch through the real Claude Code CLI
 * (`claude -p` against the local mock of the Messages API): PostToolUse for
 * every tool, PostToolUseFailure for the calls that fail, so a card worker's
 * budget counts every call; a call that only reads names no write and adds
 * nothing to the trail a Stop loads.
 */

const claude = claudeSessions();

const read = (id: string, file_path: string) => ({ type: 'tool_use' as const, id, name: 'Read', input: { file_path } });

interface TrailEntry {
  readonly event: string;
  readonly tool: string | null;
  readonly paths: string[];
  readonly opaque_writes: boolean;
}

const trailOf = async (rig: Rig) => (await rig.run(['sessions', '--json'])).json<{ sessions: { trail: TrailEntry[] }[] }>().sessions[0]!.trail;

describe('tool hooks, with the real Claude Code CLI', () => {
  it('a failed Bash and a failed Read reach PostToolUseFailure, a Read PostToolUse; only the Bash goes on the trail, and a session that only read stops with no run', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a\n' });
    await rig.spec('version: 1\nchecks:\n  - {id: suite, run: ["sh", "-c", "grep -q a src/a.txt"], sources: ["src/**"]}\n');
    const installed = await rig.run(['install', 'claude-code', '--no-sandbox']);
    expect(installed.code, installed.stderr).toBe(0);
    const { run } = await claude.session(
      rig,
      (_request, turn) => {
        if (turn === 0) return [say('Looking around.'), bash('toolu_1', 'ls src/missing')];
        if (turn === 1) return [read('toolu_2', rig.path('src/missing.txt'))];
        if (turn === 2) return [read('toolu_3', rig.path('src/a.txt'))];
        return [say('Nothing needed changing; done.')];
      },
      { tools: ['Read', 'Bash'] },
    );
    expect(run.code, run.stderr).toBe(0);

    const events = run.events.filter((e) => e.subtype === 'hook_response').map((e) => e.hook_event);
    expect(hookResponses(run, 'PostToolUseFailure'), JSON.stringify(events)).toHaveLength(2);
    expect(hookResponses(run, 'PostToolUse'), JSON.stringify(events)).toHaveLength(1);
    // The failed shell command is on the trail (it may have written before failing); the reads are not.
    expect((await trailOf(rig)).map((t) => `${t.event}/${t.tool}`)).toEqual(['PostToolUseFailure/Bash']);
    expect(gateDecisions(rig).map((d) => d.decision)).toEqual(['allow']);
    expect((await rig.run(['log', '--json'])).json<unknown[]>()).toHaveLength(0);
  }, 300_000);

  it("attack: a card's worker fails five Reads in a row (tools the guard never sees): the card records failed_calls, and its next call is denied", async () => {
    const rig = new Rig().write({ 'src/a.txt': 'good\n' });
    await rig.spec('version: 1\nchecks:\n  - {id: tests, run: ["sh", "-c", "grep -q good src/a.txt"], sources: ["src/**"]}\n');
    const id = await opened(rig, ['--proof', 'tests']);
    // `vouch` on the agent's PATH, as a project's devDependency or a global install puts it.
    const bin = join(rig.home, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'vouch'), `#!/bin/sh\nexec ${process.execPath} ${CLI} "$@"\n`);
    chmodSync(join(bin, 'vouch'), 0o755);
    const installed = await rig.run(['install', 'claude-code', '--no-sandbox']);
    expect(installed.code, installed.stderr).toBe(0);
    const { run } = await claude.session(
      rig,
      (_request, turn) => {
        if (turn === 0) return [say('Claiming the card.'), bash('toolu_0', `vouch card claim ${id}`)];
        if (turn >= 1 && turn <= 5) return [read(`toolu_${turn}`, rig.path(`src/missing-${turn}.txt`))];
        if (turn === 6) return [bash('toolu_6', 'ls src')];
        return [say('Stopping: I could not find the files.')];
      },
      { tools: ['Read', 'Bash'], env: { PATH: `${bin}:${process.env.PATH}` } },
    );
    expect(run.code, run.stderr).toBe(0);

    expect(hookResponses(run, 'PostToolUseFailure')).toHaveLength(5);
    const shown = (await rig.run(['card', 'show', id, '--json'])).json<{ events: Record<string, unknown>[] }>();
    expect(shown.events.map((e) => e.kind)).toEqual(['opened', 'claimed', 'stopped']);
    expect(shown.events.at(-1)).toMatchObject({ kind: 'stopped', reason: 'failed_calls', failed_in_a_row: 5, by: { via: 'hook' } });
    const denial = hookResponses(run, 'PreToolUse').at(-1)!;
    expect(denial.stdout).toContain(`card ${id} over budget: stop and report`);
  }, 300_000);
});
