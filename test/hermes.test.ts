import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADD_BROKEN, ADD_GOOD, ADD_SPEC as SPEC, ADD_TEST as TEST } from './helpers/add-project.js';
import { hermesConfig, hermesSuite, runHermes, runHermesSlash } from './helpers/hermes.js';
import { lastText, MockChat, type ChatAnswer } from './helpers/mock-chat.js';
import { Rig } from './helpers/rig.js';

/*
 * The same gate with the real Hermes Agent (hermes-agent from PyPI, in a
 * virtualenv in the test cache), through the native plugin `vouch install
 * hermes` writes, against a local mock of the chat completions API.
 */

const hermes = hermesSuite();

const writeFile = (path: string, content: string) => ({ tool: { name: 'write_file', args: { path, content } } });
const say = (text: string) => ({ text });

/** One headless Hermes run in a fresh workspace, vouch's plugin installed; the script is told Hermes's home (the plugin is there). */
async function session(script: (turn: number, hermesHome: string) => ChatAnswer, spec = SPEC) {
  const rig = new Rig().write({ 'src/add.js': ADD_GOOD, 'test/add.test.js': TEST });
  await rig.spec(spec);
  expect((await rig.run(['verify'])).code).toBe(0);
  const hermesHome = join(rig.home, 'hermes');
  const mock = new MockChat((_request, turn) => script(turn, hermesHome));
  hermes.track(mock);
  mkdirSync(hermesHome, { recursive: true });
  writeFileSync(join(hermesHome, 'config.yaml'), hermesConfig(await mock.start()));
  const installed = await rig.run(['install', 'hermes'], { env: { HERMES_HOME: hermesHome } });
  expect(installed.code, installed.stderr).toBe(0);
  const run = await runHermes(hermes.binary(), { cwd: rig.root, hermesHome, prompt: 'Make add() correct.', env: rig.env({ HERMES_HOME: hermesHome }) });
  return { rig, mock, run, hermesHome };
}

describe('the gate with the real Hermes Agent, through its native plugin', () => {
  it('holds a false "done" at pre_verify and feeds the reason back, denies a write to vouch.yaml (never trailed: it did not run), answers vouch_status, and lets the turn end once the fix passes', async () => {
    const { rig, mock, run, hermesHome } = await session((turn, home) => {
      if (turn === 0) return writeFile('src/add.js', ADD_BROKEN);
      if (turn === 1) return say('Done.');
      if (turn === 2) return writeFile('vouch.yaml', 'checks: []\n');
      if (turn === 3) return writeFile(join(home, 'plugins', 'vouch', '__init__.py'), 'def register(ctx):\n    pass\n');
      if (turn === 4) return writeFile('src/add.js', ADD_GOOD);
      if (turn === 5) return { tool: { name: 'vouch_status', args: {} } };
      return say('Fixed.');
    });

    expect(run.code, run.stderr).toBe(0);
    expect(mock.turns).toHaveLength(7);
    expect(mock.turns[0]!.tools?.map((tool) => tool.function?.name)).toEqual(expect.arrayContaining(['vouch_status', 'vouch_verify']));
    expect(lastText(mock.turns[2]!)).toContain('vouch blocked this stop');
    expect(lastText(mock.turns[2]!)).toContain('add(2, 2) returned 0, expected 4');
    expect(lastText(mock.turns[3]!)).toContain('vouch denied this write_file of vouch.yaml');
    // attack: the agent rewrites vouch's plugin to a no-op: denied, the plugin is as install wrote it.
    expect(lastText(mock.turns[4]!)).toContain('vouch denied this write_file');
    expect(readFileSync(join(hermesHome, 'plugins', 'vouch', '__init__.py'), 'utf8')).toContain('def _pre_verify');
    // vouch's own tool, run by the plugin: the check's status against the files as they are.
    expect(JSON.parse(lastText(mock.turns[6]!)).checks).toEqual([expect.objectContaining({ id: 'tests', status: 'STALE', reason: 'fingerprint_changed' })]);
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
      ['vouch_status', []],
    ]);
  }, 400_000);

  it('lets an honest "done" through on the first stop: the change passes, nothing is held', async () => {
    const { rig, mock, run } = await session((turn) => {
      if (turn === 0) return writeFile('src/add.js', `// adds two numbers\n${ADD_GOOD}`);
      if (turn === 1) return { tool: { name: 'terminal', args: { command: 'echo "session=$HERMES_SESSION_ID"' } } };
      return say('Done: add() is unchanged in behaviour and its test passes.');
    });

    expect(run.code, run.stderr).toBe(0);
    expect(mock.turns).toHaveLength(3);
    // What the agent runs carries Hermes's marker: vouch knows it is inside an agent run (agent_run, not_gate_run).
    expect(lastText(mock.turns[2]!)).toMatch(/session=[\w-]+/);
    expect(rig.read('src/add.js')).toContain('// adds two numbers');
    const sessions = (await rig.run(['sessions', '--json'])).json().sessions;
    expect(sessions[0].client).toBe('hermes');
    expect(sessions[0].decisions.map((d: { decision: string; reason: string }) => [d.decision, d.reason])).toEqual([['allow', 'all_pass']]);
  }, 400_000);

  it('a "done" the fix never comes for is held max_blocks times, then let go and recorded as an escape, not a pass', async () => {
    const { rig, mock, run } = await session((turn) => (turn === 0 ? writeFile('src/add.js', ADD_BROKEN) : say('Done.')), `${SPEC}gate: {max_blocks: 2}\n`);

    expect(run.code, run.stderr).toBe(0);
    expect(mock.turns).toHaveLength(4);
    expect(rig.read('src/add.js')).toBe(ADD_BROKEN);
    const sessions = (await rig.run(['sessions', '--json'])).json().sessions;
    expect(sessions[0].decisions.map((d: { decision: string; reason: string }) => [d.decision, d.reason])).toEqual([
      ['block', 'not_passing'],
      ['block', 'not_passing'],
      ['escaped', 'max_blocks'],
    ]);
  }, 400_000);

  it("attack: a script the agent runs through terminal rewrites vouch's plugin to a no-op: the stop is held (wiring_changed), never let through", async () => {
    const { rig, mock, run } = await session((turn, home) => {
      const plugin = join(home, 'plugins', 'vouch', '__init__.py');
      if (turn === 0) return writeFile('unhook.py', `open(${JSON.stringify(plugin)}, 'w').write('def register(ctx):\\n    pass\\n')\nprint('unhooked')\n`);
      if (turn === 1) return { tool: { name: 'terminal', args: { command: 'python3 unhook.py' } } };
      return say('Done.');
    }, `${SPEC}gate: {max_blocks: 1}\n`);

    expect(run.code, run.stderr).toBe(0);
    expect(lastText(mock.turns[2]!)).toContain('unhooked');
    expect(lastText(mock.turns[3]!)).toContain('vouch blocked this stop');
    expect(lastText(mock.turns[3]!)).toContain('plugins/vouch/__init__.py');
    const sessions = (await rig.run(['sessions', '--json'])).json().sessions;
    expect(sessions[0].decisions.map((d: { decision: string; reason: string }) => [d.decision, d.reason])).toEqual([
      ['block', 'wiring_changed'],
      ['escaped', 'max_blocks'],
    ]);
  }, 400_000);

  it('/vouch report, typed into the real Hermes, shows the report in the chat (Markdown by default, its JSON model with json), writes the HTML with html, and says the usage for anything else', async () => {
    const rig = new Rig().write({ 'src/add.js': ADD_GOOD, 'test/add.test.js': TEST });
    await rig.spec(SPEC);
    expect((await rig.run(['verify'])).code).toBe(0);
    const hermesHome = join(rig.home, 'hermes');
    mkdirSync(hermesHome, { recursive: true });
    writeFileSync(join(hermesHome, 'config.yaml'), hermesConfig('http://127.0.0.1:9/v1'));
    expect((await rig.run(['install', 'hermes'], { env: { HERMES_HOME: hermesHome } })).code).toBe(0);
    const { outputs, stderr } = await runHermesSlash(hermes.binary(), {
      cwd: rig.root,
      hermesHome,
      commands: ['/vouch report', '/vouch report json', '/vouch report html', '/vouch report pdf', '/vouch status'],
      env: rig.env({ HERMES_HOME: hermesHome }),
    });
    const [md, model, html, usage, status] = outputs as [string, string, string, string, string];
    expect(md, stderr).toMatch(/^# vouch report/);
    expect(md).toMatch(/\| tests \| PASS \|/);
    expect(md).toContain('**intact**');
    // The same facts as `vouch report --format json` itself gives.
    const ownJson = JSON.parse((await rig.run(['report', '--format', 'json', '--out', '-'])).stdout);
    const parsed = JSON.parse(model);
    expect(parsed.kind).toBe(ownJson.kind);
    expect(parsed.checks.map((c: { id: string; now: unknown }) => [c.id, c.now])).toEqual(
      ownJson.checks.map((c: { id: string; now: unknown }) => [c.id, c.now]),
    );
    expect(parsed.integrity).toEqual(ownJson.integrity);
    expect(html).toContain(join(rig.root, '.vouch', 'report.html'));
    expect(existsSync(rig.path('.vouch/report.html'))).toBe(true);
    expect(usage).toBe(
      'usage: /vouch status | checks | verify [CHECK...] | report [md|json|html] | card <request> [--artifact PATH] [--done-when TEXT] [--proof CHECK]...',
    );
    expect(status).toMatch(/^PASS +tests/);
  }, 180_000);

  it("the plugin is Hermes's own: `hermes plugins list` shows it enabled, `hermes vouch doctor` runs vouch doctor, and uninstall takes the plugin and the config back byte for byte", async () => {
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
    const listed = execFileSync(hermes.binary(), ['plugins', 'list'], { env: { ...process.env, ...env, HOME: rig.home }, encoding: 'utf8' });
    expect(listed).toMatch(/vouch[^\n]*enabled/i);
    // vouch's doctor, through the CLI command the plugin registers with Hermes.
    const doctor = execFileSync(hermes.binary(), ['vouch', 'doctor'], { cwd: rig.root, env: { ...process.env, ...rig.env(env) }, encoding: 'utf8' });
    expect(doctor).toMatch(/^ok {3}hermes +wired: /m);
    expect(doctor).toMatch(/^ok {3}trust +allowed: /m);
    expect((await rig.run(['uninstall', 'hermes'], { env })).code).toBe(0);
    expect(readFileSync(join(hermesHome, 'config.yaml'), 'utf8')).toBe(config);
    expect(() => readFileSync(join(hermesHome, 'plugins', 'vouch', '__init__.py'))).toThrow();
  }, 120_000);
});
