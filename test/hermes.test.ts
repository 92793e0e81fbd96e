import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADD_BROKEN, ADD_GOOD, ADD_SPEC as SPEC, ADD_TEST as TEST } from './helpers/add-project.js';
import { hermesBinary, hermesConfig, runHermes } from './helpers/hermes.js';
import { lastText, MockChat, type ChatScript } from './helpers/mock-chat.js';
import { Rig } from './helpers/rig.js';

/*
 * The same gate with the real Hermes Agent (hermes-agent from PyPI, in a
 * virtualenv in the test cache), through the native plugin `vouch install
 * hermes` writes, against a local mock of the chat completions API.
 */

let binary: string;
beforeAll(() => {
  binary = hermesBinary();
}, 900_000);

const mocks: MockChat[] = [];
afterEach(async () => {
  for (const mock of mocks.splice(0)) await mock.close();
});

const writeFile = (path: string, content: string) => ({ tool: { name: 'write_file', args: { path, content } } });
const say = (text: string) => ({ text });

async function session(script: ChatScript) {
  const rig = new Rig().write({ 'src/add.js': ADD_GOOD, 'test/add.test.js': TEST });
  await rig.spec(SPEC);
  expect((await rig.run(['verify'])).code).toBe(0);
  const mock = new MockChat(script);
  mocks.push(mock);
  const hermesHome = join(rig.home, 'hermes');
  mkdirSync(hermesHome, { recursive: true });
  writeFileSync(join(hermesHome, 'config.yaml'), hermesConfig(await mock.start()));
  const installed = await rig.run(['install', 'hermes'], { env: { HERMES_HOME: hermesHome } });
  expect(installed.code, installed.stderr).toBe(0);
  const run = await runHermes(binary, { cwd: rig.root, hermesHome, prompt: 'Make add() correct.', env: rig.env({ HERMES_HOME: hermesHome }) });
  return { rig, mock, run, hermesHome };
}

describe('the gate with the real Hermes Agent, through its native plugin', () => {
  it('holds a false "done" at pre_verify and feeds the reason back, denies a write to vouch.yaml, and lets the turn end once the fix passes', async () => {
    const { rig, mock, run } = await session((_request, turn) => {
      if (turn === 0) return writeFile('src/add.js', ADD_BROKEN);
      if (turn === 1) return say('Done.');
      if (turn === 2) return writeFile('vouch.yaml', 'checks: []\n');
      if (turn === 3) return writeFile('src/add.js', ADD_GOOD);
      return say('Fixed.');
    });

    expect(run.code, run.stderr).toBe(0);
    expect(mock.turns).toHaveLength(5);
    expect(lastText(mock.turns[2]!)).toContain('vouch blocked this stop');
    expect(lastText(mock.turns[2]!)).toContain('add(2, 2) returned 0, expected 4');
    expect(lastText(mock.turns[3]!)).toContain('vouch denied this write_file of vouch.yaml');
    expect(rig.read('vouch.yaml')).toBe(SPEC);
    expect(rig.read('src/add.js')).toBe(ADD_GOOD);
    expect(run.stdout).toContain('Fixed.');
    const sessions = (await rig.run(['sessions', '--json'])).json().sessions;
    expect(sessions).toHaveLength(1);
    expect(sessions[0].client).toBe('hermes');
    expect(sessions[0].decisions.map((d: { decision: string; reason: string }) => [d.decision, d.reason])).toEqual([
      ['block', 'not_passing'],
      ['allow', 'all_pass'],
    ]);
    expect(sessions[0].trail.map((t: { tool: string; paths: string[] }) => [t.tool, t.paths])).toEqual([
      ['write_file', ['src/add.js']],
      ['write_file', ['src/add.js']],
    ]);
  }, 400_000);

  it('lets an honest "done" through on the first stop: the change passes, nothing is held', async () => {
    const { rig, mock, run } = await session((_request, turn) => {
      if (turn === 0) return writeFile('src/add.js', `// adds two numbers\n${ADD_GOOD}`);
      return say('Done: add() is unchanged in behaviour and its test passes.');
    });

    expect(run.code, run.stderr).toBe(0);
    expect(mock.turns).toHaveLength(2);
    expect(rig.read('src/add.js')).toContain('// adds two numbers');
    const sessions = (await rig.run(['sessions', '--json'])).json().sessions;
    expect(sessions[0].client).toBe('hermes');
    expect(sessions[0].decisions.map((d: { decision: string; reason: string }) => [d.decision, d.reason])).toEqual([['allow', 'all_pass']]);
  }, 400_000);

  it('the plugin is Hermes\'s own: `hermes plugins list` shows it enabled, and uninstall takes the plugin and the config back byte for byte', async () => {
    const rig = new Rig().write({ 'src/add.js': ADD_GOOD });
    await rig.spec(SPEC);
    const hermesHome = join(rig.home, 'hermes');
    mkdirSync(hermesHome, { recursive: true });
    const config = `${hermesConfig('http://127.0.0.1:9/v1')}# the person's own comment\n`;
    writeFileSync(join(hermesHome, 'config.yaml'), config);
    const env = { HERMES_HOME: hermesHome };
    expect((await rig.run(['install', 'hermes'], { env })).code).toBe(0);
    expect((await rig.run(['install', 'hermes'], { env })).stdout).not.toContain('edited');
    const { execFileSync } = await import('node:child_process');
    const listed = execFileSync(binary, ['plugins', 'list'], { env: { ...process.env, ...env, HOME: rig.home }, encoding: 'utf8' });
    expect(listed).toMatch(/vouch[^\n]*enabled/i);
    expect((await rig.run(['uninstall', 'hermes'], { env })).code).toBe(0);
    expect(readFileSync(join(hermesHome, 'config.yaml'), 'utf8')).toBe(config);
    expect(() => readFileSync(join(hermesHome, 'plugins', 'vouch', '__init__.py'))).toThrow();
  }, 120_000);
});
