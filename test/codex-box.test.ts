import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADD_GOOD as GOOD, ADD_SPEC as SPEC, ADD_TEST as TEST } from './helpers/add-project.js';
import { codexBinary } from './helpers/codex.js';
import { inputText, MockResponses, type ResponsesScript } from './helpers/mock-openai.js';
import { jsonLinesOf } from './helpers/pinned-cli.js';
import { CLI, Rig } from './helpers/rig.js';

/*
 * The agent works in a box with Codex too (issue 23): `vouch install codex`
 * writes a permission profile into .codex/config.toml (selected by
 * default_permissions, approval_policy "never") that keeps what vouches
 * read-only inside the writable workspace. Proven with the real Codex CLI
 * (`codex exec`, its own sandbox on: no bypass flag) against the local mock
 * of the Responses API. The project is trusted in CODEX_HOME's config, as
 * Codex records it once a person trusts it, since Codex reads a project's
 * .codex/config.toml only then; CODEX_HOME is outside /tmp, where Codex
 * refuses to set up its sandbox helpers.
 */

let binary: string;
beforeAll(() => {
  binary = codexBinary();
}, 600_000);

const mocks: MockResponses[] = [];
const homes: string[] = [];
afterEach(async () => {
  for (const mock of mocks.splice(0)) await mock.close();
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

async function workspace(options: { spec?: string; install?: string[] } = {}): Promise<Rig> {
  const rig = new Rig().write({ 'src/add.js': GOOD, 'test/add.test.js': TEST });
  await rig.spec(options.spec ?? SPEC);
  expect((await rig.run(['verify'])).code).toBe(0);
  const installed = await rig.run(['install', 'codex', ...(options.install ?? [])], { env: { PATH: `${dirname(binary)}:${process.env.PATH}` } });
  expect(installed.code, installed.stderr).toBe(0);
  // The rig's HOME is under /tmp, and so the default CODEX_HOME: install says Codex could not box commands there (the sessions below use one outside).
  if (!options.install?.includes('--no-sandbox'))
    expect(installed.stderr).toContain('under the temporary directory: Codex will not start its sandbox helpers there');
  return rig;
}

/** A codex exec run in the workspace; the script is made knowing the run's CODEX_HOME. `model` decides the tools Codex offers (gpt-5.5: its freeform apply_patch too). */
async function session(rig: Rig, scripted: (codexHome: string) => ResponsesScript, model = 'mock-model') {
  const cache = process.env.VOUCH_TEST_CACHE ?? join(homedir(), '.cache', 'vouch-test');
  mkdirSync(cache, { recursive: true });
  const codexHome = mkdtempSync(join(cache, 'codex-home-'));
  homes.push(codexHome);
  const mock = new MockResponses(scripted(codexHome));
  mocks.push(mock);
  const baseUrl = await mock.start();
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      `model = "${model}"`,
      'model_provider = "mock"',
      '',
      '[model_providers.mock]',
      'name = "mock"',
      `base_url = "${baseUrl}"`,
      'wire_api = "responses"',
      'env_key = "MOCK_API_KEY"',
      '',
      `[projects.${JSON.stringify(rig.root)}]`,
      'trust_level = "trusted"',
      '',
    ].join('\n'),
  );
  const child = spawn(binary, ['exec', '--json', '--skip-git-repo-check', '--dangerously-bypass-hook-trust', 'Make add() correct.'], {
    cwd: rig.root,
    env: { ...rig.env(), CODEX_HOME: codexHome, MOCK_API_KEY: 'dummy' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const started = Date.now();
  const run = await jsonLinesOf(child);
  return { run, mock, codexHome, ms: Date.now() - started };
}

const shell = (call_id: string, cmd: string) => ({ type: 'function_call' as const, call_id, name: 'exec_command', arguments: { cmd } });
const say = (text: string) => ({ type: 'message' as const, text });
const py = (code: string) => `python3 -c ${JSON.stringify(code)}`;
const vouch = (...args: string[]) => [process.execPath, CLI, ...args].map((a) => `'${a}'`).join(' ');

async function decisions(rig: Rig): Promise<string[][]> {
  const sessions = (await rig.run(['sessions', '--json'])).json().sessions;
  return sessions.flatMap((s: { decisions: { decision: string; reason: string }[] }) => s.decisions.map((d) => [d.decision, d.reason]));
}

describe('the box, with the real Codex CLI', () => {
  it('attack: python writes into .vouch/, vouch.yaml, .codex/ (hooks and the box itself), VOUCH_HOME and CODEX_HOME fail inside the box, and so does a hidden Stop hook aimed at the ledger; a source edit goes through and the stop is allowed', async () => {
    const rig = await workspace();
    const config = rig.read('.codex/config.toml');
    const hooks = rig.read('.codex/hooks.json');
    const attacks = (codexHome: string) => [
      py("open('.vouch/forged','w').write('x')"),
      py("open('vouch.yaml','a').write('checks: []')"),
      py("open('.codex/hooks.json','w').write('{}')"),
      py("open('.codex/config.toml','w').write('default_permissions = \":danger-full-access\"')"),
      py(`open('${join(rig.home, 'trust-forged.json')}','w').write('{}')`),
      py(`open('${join(codexHome, 'config.toml')}','a').write('sandbox_mode = \"danger-full-access\"')`),
    ];
    // Case 1 of issue 23: a script strips Codex's markers, allows the spec in a fresh VOUCH_HOME and answers the Stop hook itself, aiming a gate-stamped PASS at the real ledger.
    const hiddenHook = py(
      `import subprocess, os, json; env = {k: v for k, v in os.environ.items() if not k.startswith('CODEX_')}; env['VOUCH_HOME'] = '/tmp/vouch-forged-home-${process.pid}'; ` +
        `subprocess.run(['${process.execPath}', '${CLI}', 'allow'], env=env); ` +
        `r = subprocess.run(['${process.execPath}', '${CLI}', 'hook', 'codex', 'Stop'], env=env, input=json.dumps({'session_id': 'forged', 'cwd': os.getcwd(), 'hook_event_name': 'Stop'}), capture_output=True, text=True); print(r.stdout, r.stderr)`,
    );
    const before = (await rig.run(['log', '--json'])).json();
    let list: string[] = [];
    const { run, mock, codexHome } = await session(rig, (home: string) => {
      list = attacks(home);
      return (_request, turn) => {
        if (turn < list.length) return [shell(`call_${turn}`, `${list[turn]!}; echo "exit $?"`)];
        if (turn === list.length) return [shell('call_hook', hiddenHook)];
        if (turn === list.length + 1) return [shell('call_src', "sed -i '1i // checked' src/add.js && echo edited")];
        return [say('Done.')];
      };
    });
    const codexConfig = readFileSync(join(codexHome, 'config.toml'), 'utf8');
    expect(run.code, run.stderr).toBe(0);
    expect(list).toHaveLength(6);
    for (const [i, attack] of list.entries()) expect(inputText(mock.turns[i + 1]!), attack).toMatch(/Read-only file system[\s\S]*exit 1/);
    expect(existsSync(rig.path('.vouch/forged'))).toBe(false);
    expect(rig.read('vouch.yaml')).toBe(SPEC);
    expect(rig.read('.codex/hooks.json')).toBe(hooks);
    expect(rig.read('.codex/config.toml')).toBe(config);
    expect(existsSync(join(rig.home, 'trust-forged.json'))).toBe(false);
    expect(codexConfig).not.toContain('sandbox_mode');
    // The forged stop could not record: the ledger is read-only in the box.
    expect(inputText(mock.turns[list.length + 1]!)).toContain('SQLITE_READONLY');
    // One receipt more: the gate's own run at the real stop, nothing from inside the box.
    expect((await rig.run(['log', '--json'])).json()).toHaveLength(before.length + 1);
    rmSync(`/tmp/vouch-forged-home-${process.pid}`, { recursive: true, force: true });
    expect(inputText(mock.turns[list.length + 2]!)).toContain('edited');
    expect(rig.read('src/add.js')).toBe(`// checked\n${GOOD}`);
    expect(await decisions(rig)).toEqual([['allow', 'all_pass']]);
    const sessionId = run.events.find((e) => e.type === 'thread.started')?.thread_id as string;
    const checked = await rig.run(['sessions', '--check', sessionId, '--json']);
    expect(checked.code, checked.stdout).toBe(0);
    expect(checked.json().sessions[0].box).toMatchObject({ client: 'codex', on: true, gaps: [] });
  }, 300_000);

  it("attack (issue 23, case 7): apply_patch bodies aimed at a card's proof script under .vouch/cards/ and at vouch.yaml, behind headers Codex trims (spaces, a tab), as a here-document to exec_command, and as an argv apply_patch from a script vouch cannot read: denied by the guard or refused read-only by Codex's box; the stop holds to the spec", async () => {
    const rig = await workspace();
    const patch = (header: string, body: string) => `*** Begin Patch\n${header}\n${body}*** End Patch\n`;
    const proof = '.vouch/cards/c-00000000/proof.sh';
    const weaken = '@@\n-    sources: ["src/**"]\n+    sources: ["nothing/**"]\n';
    const freeform = (call_id: string, input: string) => ({ type: 'custom_tool_call' as const, call_id, name: 'apply_patch', input });
    const argv = JSON.stringify(['apply_patch', patch('\t*** Update File: vouch.yaml', weaken)]);
    const attacks = [
      freeform('call_1', patch(`   *** Add File: ${proof}`, '+exit 0\n')),
      freeform('call_2', patch('\t*** Update File: vouch.yaml', weaken)),
      shell('call_3', `apply_patch <<'EOF'\n${patch(`\t*** Add File: ${proof}`, '+exit 0\n')}EOF\n`),
      // vouch reads neither the script nor what it runs (Codex's own binary called as apply_patch, the argv Codex dispatches on): Codex's box is the line here.
      shell(
        'call_4',
        `python3 -c ${JSON.stringify(`import subprocess, json; r = subprocess.run(json.loads(${JSON.stringify(argv)}), executable=${JSON.stringify(binary)}, capture_output=True, text=True); print('exit', r.returncode, r.stdout, r.stderr)`)}`,
      ),
    ];
    const { run, mock } = await session(
      rig,
      () => (_request, turn) => {
        if (turn < attacks.length) return [attacks[turn]!];
        if (turn === attacks.length)
          return [freeform('call_src', patch('  *** Update File: src/add.js', '@@\n-module.exports = (a, b) => a + b;\n+module.exports = (a, b) => b + a;\n'))];
        return [say('Done.')];
      },
      'gpt-5.5',
    );
    expect(run.code, run.stderr).toBe(0);
    const outputs = mock.turns.slice(1).map((turn) => {
      const last = [...turn.input].reverse().find((item) => item.type.endsWith('_output'));
      return typeof last?.output === 'string' ? last.output : JSON.stringify(last?.output ?? '');
    });
    expect(outputs[0]).toContain(`vouch denied this apply_patch of ${proof}`);
    expect(outputs[1]).toContain('vouch denied this apply_patch of vouch.yaml');
    expect(outputs[2]).toMatch(new RegExp(`vouch denied this .*${proof.replaceAll('.', '\\.')}`));
    // Codex's apply_patch says no more than this; that it is the box saying it, the same script with `install codex --no-sandbox` shows (the write lands).
    expect(outputs[3]).toMatch(/exit 1 +Failed to write file \S+\/vouch\.yaml/);
    expect(existsSync(rig.path(proof))).toBe(false);
    expect(rig.read('vouch.yaml')).toBe(SPEC);
    // The honest patch of a source file, behind the same indented header, goes through; the stop runs the spec as the person allowed it.
    expect(rig.read('src/add.js')).toBe('module.exports = (a, b) => b + a;\n');
    expect(await decisions(rig)).toEqual([['allow', 'all_pass']]);
  }, 300_000);

  it('an honest session in the box under gate.require_box is allowed with no block: it edits sources, runs the tests, writes /tmp and reads vouch status', async () => {
    const rig = await workspace({ spec: `${SPEC}gate: {require_box: true}\n` });
    const scratch = join('/tmp', `vouch-codex-box-${process.pid}-${Date.now()}`);
    const { run, mock, ms } = await session(rig, () => (_request, turn) => {
      switch (turn) {
        case 0:
          return [shell('call_1', "sed -i '1i // adds two numbers' src/add.js && node test/add.test.js")];
        case 1:
          return [shell('call_2', `echo scratch > ${scratch} && cat ${scratch} && rm ${scratch}`)];
        case 2:
          return [shell('call_3', vouch('status'))];
        default:
          return [say('Done: add() adds, its test passes.')];
      }
    });
    expect(run.code, run.stderr).toBe(0);
    expect(inputText(mock.turns[1]!)).toContain('ok');
    expect(inputText(mock.turns[2]!)).toContain('scratch');
    // status reads the ledger in the box (read-only there) and says the box is on.
    expect(inputText(mock.turns[3]!)).toContain("box: on (Codex's sandbox");
    expect(rig.read('src/add.js')).toBe(`// adds two numbers\n${GOOD}`);
    expect(await decisions(rig)).toEqual([['allow', 'all_pass']]);
    const [summary] = (await rig.run(['sessions', '--json'])).json().sessions;
    const stopMs = Date.parse(summary.decisions.at(-1).at) - Date.parse(summary.trail.at(-1).at);
    // Figures for the record, never asserted (the machine is shared).
    console.log(`honest boxed codex session: ${ms} ms for the whole codex exec run, ${stopMs} ms from its last tool call to the gate's decision`);
  }, 300_000);
});

describe('without the box, with the real Codex CLI', () => {
  it('attack: require_box holds a session run after `install codex --no-sandbox` at its stop (box_off), and says why', async () => {
    const rig = await workspace({ spec: `${SPEC}gate: {require_box: true}\n`, install: ['--no-sandbox'] });
    expect(existsSync(rig.path('.codex/config.toml'))).toBe(false);
    const { run, mock } = await session(rig, () => (_request, turn) => (turn === 0 ? [shell('call_1', "sed -i '1i // edited' src/add.js")] : [say('Done.')]));
    expect(run.code, run.stderr).toBe(0);
    expect(inputText(mock.turns[2]!)).toContain('vouch.yaml sets gate.require_box, and this session ran without the box');
    expect(inputText(mock.turns[2]!)).toContain('no permission profile is selected (default_permissions)');
    expect((await decisions(rig))[0]).toEqual(['block', 'box_off']);
  }, 300_000);
});
