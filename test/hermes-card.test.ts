import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hermesConfig, hermesSuite, runHermes, runHermesSlash } from './helpers/hermes.js';
import { lastText, MockChat, type ChatAnswer, type ChatRequest } from './helpers/mock-chat.js';
import { CLI, Rig } from './helpers/rig.js';

/*
 * Crew's intake from the real Hermes Agent (hermes-agent from PyPI): `/vouch
 * card <request>` typed into Hermes asks one batch of questions or none,
 * then opens the card with the engine behind vouch_card_open and answers
 * with the contract line; the one-line result of a card the session opened
 * comes back at the end of its turn (the plugin's transform_llm_output).
 */

const hermes = hermesSuite();

const SPEC = `version: 1
checks:
  - id: tests
    run: ["sh", "-c", "grep -q good src/a.txt"]
    sources: ["src/**"]
`;
const CARD = /\bc-[0-9a-hjkmnp-tv-z]{8}\b/;

/** A workspace with vouch's Hermes plugin installed, and `vouch` on the agent's PATH. */
async function workspace(baseUrl = 'http://127.0.0.1:9/v1'): Promise<{ rig: Rig; hermesHome: string; env: NodeJS.ProcessEnv }> {
  const rig = new Rig().write({ 'src/a.txt': 'bad\n' });
  await rig.spec(SPEC);
  const hermesHome = join(rig.home, 'hermes');
  mkdirSync(hermesHome, { recursive: true });
  writeFileSync(join(hermesHome, 'config.yaml'), hermesConfig(baseUrl));
  const installed = await rig.run(['install', 'hermes'], { env: { HERMES_HOME: hermesHome } });
  expect(installed.code, installed.stderr).toBe(0);
  const bin = join(rig.home, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'vouch'), `#!/bin/sh\nexec ${process.execPath} ${CLI} "$@"\n`);
  chmodSync(join(bin, 'vouch'), 0o755);
  return { rig, hermesHome, env: rig.env({ HERMES_HOME: hermesHome, PATH: `${bin}:${process.env.PATH}` }) };
}

describe('/vouch card in the real Hermes Agent', () => {
  it('asks one batch of questions for what the request leaves open, then opens the card as the coordinator and answers with the contract line', async () => {
    const { rig, hermesHome, env } = await workspace();
    const request = '/vouch card make src/a.txt say good';
    const full = `${request} --artifact src/a.txt --done-when "grep finds good in src/a.txt" --proof tests --budget-tokens 50000`;
    const { outputs, stderr } = await runHermesSlash(hermes.binary(), {
      cwd: rig.root,
      hermesHome,
      commands: [request, full, '/vouch card --proof tests'],
      env,
    });
    const [asked, opened, usage] = outputs as [string, string, string];
    expect(asked, stderr).toContain('answer these in one go');
    expect(asked).toContain('--artifact PATH');
    expect(asked).toContain('--done-when');
    expect(asked).toContain('the allowed vouch.yaml has: tests');
    expect(asked).not.toMatch(CARD);
    const id = CARD.exec(opened)?.[0];
    expect(id, opened).toBeDefined();
    expect(opened.trim()).toBe(`src/a.txt · proof tests (frozen) · budget 5 attempts, 50000 tokens · ${id} · owned by the coordinator`);
    expect(usage).toContain('usage: /vouch');
    const shown = (await rig.run(['card', 'show', id!, '--json'])).json<{ goal: string; events: Record<string, any>[] }>();
    expect(shown.events.map((e) => e.kind)).toEqual(['opened']);
    expect(shown.events[0]).toMatchObject({ by: { role: 'coordinator', role_from: 'VOUCH_ROLE' }, goal: 'make src/a.txt say good', proof: { kind: 'checks' } });
  }, 300_000);

  it('attack: a proof naming a check the allowed vouch.yaml does not have opens nothing, and says why', async () => {
    const { rig, hermesHome, env } = await workspace();
    const { outputs } = await runHermesSlash(hermes.binary(), {
      cwd: rig.root,
      hermesHome,
      commands: ['/vouch card make it good --artifact src/a.txt --done-when "it is good" --proof true'],
      env,
    });
    expect(outputs[0]).toContain('vouch card:');
    expect(outputs[0]).not.toMatch(CARD);
    expect((await rig.run(['card', 'list', '--json'])).json<{ cards: unknown[] }>().cards).toEqual([]);
  }, 300_000);

  it('the card this session opened closes, and the session sees the one line at the end of its turn, once', async () => {
    let id = '';
    // Filled in once the workspace exists (the mock must be listening before Hermes's config can name it).
    const at: { rig?: Rig; env?: NodeJS.ProcessEnv } = {};
    const mock = new MockChat((request: ChatRequest, turn: number): ChatAnswer => {
      if (turn === 0) {
        // By its path: Hermes's terminal runs a login shell, with a PATH of its own.
        const open = `VOUCH_ROLE=coordinator ${join(at.rig!.home, 'bin', 'vouch')} card open --goal "src/a.txt says good" --artifact src/a.txt --done-when "grep finds good" --proof tests`;
        return { tool: { name: 'terminal', args: { command: open } } };
      }
      if (turn === 1) {
        id = CARD.exec(lastText(request))?.[0] ?? '';
        // Meanwhile a person fixes the file and closes the card outside the agent.
        at.rig!.write({ 'src/a.txt': 'good\n' });
        for (const act of ['verify', 'complete']) execFileSync(process.execPath, [CLI, 'card', act, id], { cwd: at.rig!.root, env: at.env, stdio: 'ignore' });
        return { text: 'I opened the card.' };
      }
      return { text: 'Still here.' };
    });
    hermes.track(mock);
    const { rig, hermesHome, env } = await workspace(await mock.start());
    at.rig = rig;
    at.env = rig.env();
    const run = await runHermes(hermes.binary(), { cwd: rig.root, hermesHome, prompt: 'Open a card for making src/a.txt say good.', env });
    expect(run.code, run.stderr).toBe(0);
    expect(id).toMatch(CARD);
    const line = `${id} done - proof exit 0 - 1 run, 0 fixes`;
    expect(run.stdout).toContain('I opened the card.');
    expect(run.stdout).toContain(line);
    const shown = (await rig.run(['card', 'show', id, '--json'])).json<{ state: string; events: Record<string, any>[] }>();
    expect(shown.state).toBe('done');
    expect(shown.events[0]).toMatchObject({ asked_from: { client: 'hermes' } });
    expect(shown.events.at(-1)).toMatchObject({ kind: 'answered', line, to: { client: 'hermes' } });
    expect(shown.events.filter((e) => e.kind === 'answered')).toHaveLength(1);
  }, 400_000);
});
