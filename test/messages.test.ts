import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { collect, Rig } from './helpers/rig.js';

/*
 * What a person reads when something is wrong: each message says what, where
 * and what to do, in vouch's words rather than Node's.
 */

const spec = (check: string) => `version: 1\nchecks:\n  - id: t\n    run: ["true"]\n    sources: ["src/**"]\n${check}`;

async function until(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('an unknown option', () => {
  it.each([
    [['verify', '--jsn'], /^vouch verify: unknown option "--jsn" \(did you mean "--json"\?\)$/m],
    [['status', '--jsno'], /^vouch status: unknown option "--jsno" \(did you mean "--json"\?\)$/m],
    [['log', '--limt', '3'], /^vouch log: unknown option "--limt" \(did you mean "--limit"\?\)$/m],
    [['card', 'open', '--gaol', 'x'], /^vouch card open: unknown option "--gaol" \(did you mean "--goal"\?\)$/m],
    [['--jsn', 'status'], /^vouch: unknown option "--jsn" \(did you mean "--json"\?\)$/m],
  ])('%j: says which, suggests the near one, names the command once', async (args, message) => {
    const rig = new Rig().write({ 'vouch.yaml': spec('') });
    const result = await rig.run(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/vouch: vouch /);
    expect(result.stderr).toMatch(/^ {2}expected: one of: --dir/m);
  });

  it('an option far from any real one gets no guess, only the list', async () => {
    const rig = new Rig().write({ 'vouch.yaml': spec('') });
    const result = await rig.run(['status', '--frobnicate']);
    expect(result.stderr).toMatch(/^vouch status: unknown option "--frobnicate"$/m);
    expect(result.stderr).toContain('expected: one of: --dir (-C), --no-color, --help (-h), --json');
  });

  it('a value missing, and a value given to a flag that takes none, are said in words', async () => {
    const rig = new Rig().write({ 'vouch.yaml': spec('') });
    expect((await rig.run(['log', '--limit'])).stderr).toMatch(/^vouch log: option "--limit" needs a value$/m);
    expect((await rig.run(['status', '--json=yes'])).stderr).toMatch(/^vouch status: option "--json" takes no value$/m);
    expect((await rig.run(['fleet', 'extra'])).stderr).toMatch(/^vouch fleet: unexpected argument "extra": this command takes options only$/m);
  });

  it('a message that already names its command does not name it twice', async () => {
    const rig = new Rig();
    const result = await rig.run(['install', 'mcp']);
    expect(result.stderr).toMatch(/^vouch install mcp needs --client$/m);
  });
});

describe('a command that does not exist', () => {
  it('says it was not found, in which PATH directories vouch looked, and what to do, instead of ENOENT: spawn', async () => {
    const rig = new Rig().write({
      'src/a.txt': 'a',
      'vouch.yaml': 'version: 1\nchecks:\n  - {id: ghost, run: ["no-such-program-vouch", "x"], sources: ["src/**"]}\n',
    });
    // A check runs with the PATH pinned when a person allowed the spec, so
    // that is the PATH the message names.
    const path = '/nonexistent/bin:/usr/bin:/bin';
    expect((await rig.run(['allow'], { env: { PATH: path } })).code).toBe(0);
    const result = await rig.run(['verify'], { env: { PATH: path } });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'spawn_error: ENOENT: command not found: "no-such-program-vouch" is in none of the directories on the check\'s PATH (/nonexistent/bin, /usr/bin, /bin); install it there, or write its full path in run: in vouch.yaml',
    );
    expect(result.stdout).not.toMatch(/spawn no-such-program-vouch/);
    expect((await rig.run(['status', '--json'])).json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'spawn_error' });
  });

  it('a relative path that is not there names the full path it looked for', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: ghost, run: ["./tools/check.sh"], sources: ["src/**"]}\n');
    const result = await rig.run(['verify']);
    expect(result.stdout).toContain(
      `command not found: "./tools/check.sh" does not exist (looked for ${rig.path('tools/check.sh')}, from the check's cwd); fix run: in vouch.yaml`,
    );
  });

  it('a script whose #! interpreter is missing says so, not that the script is missing', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a', 'check.sh': '#!/nonexistent/interpreter\nexit 0\n' });
    const { chmodSync } = await import('node:fs');
    chmodSync(rig.path('check.sh'), 0o755);
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["./check.sh"], sources: ["src/**"]}\n');
    const result = await rig.run(['verify']);
    expect(result.stdout).toContain('"./check.sh" exists, but the interpreter on its #! line was not found');
  });

  it('a script that is not executable says so, and how to fix it', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a', 'check.sh': '#!/bin/sh\nexit 0\n' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["./check.sh"], sources: ["src/**"]}\n');
    const result = await rig.run(['verify']);
    expect(result.stdout).toContain('EACCES: "./check.sh" cannot be executed (permission denied): make it executable (chmod +x)');
  });
});

describe('spec errors quote what they found as its YAML type', () => {
  it.each([
    ['a number', '    timeout: 99999\n', 'found:    99999', 99999],
    ['a boolean', '    timeout: true\n', 'found:    true', true],
    ['a quoted number (a string)', '    timeout: "5"\n', 'found:    "5"', '5'],
    ['a string', '    block: sometimes\n', 'found:    "sometimes"', 'sometimes'],
  ])('%s', async (_name, yaml, shown, json) => {
    const rig = new Rig().write({ 'vouch.yaml': spec(yaml) });
    const text = await rig.run(['checks']);
    expect(text.code).toBe(2);
    expect(text.stderr).toContain(shown);
    const doc = (await rig.run(['checks', '--json'])).json();
    expect(doc.error.more[0].found).toStrictEqual(json);
  });
});

describe('Ctrl-C', () => {
  it('with 2 checks selected, says how many of the 2 ran and which never started; the summary counts both', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    rig.script('wait.sh', 'echo $$ > started.pid\nsleep 300');
    await rig.spec('version: 1\nchecks:\n  - {id: first, run: ["./wait.sh"], sources: ["src/**"]}\n  - {id: second, run: ["true"], sources: ["src/**"]}\n');
    // One after another (-j 1): second waits behind first, so the stop comes before it starts.
    const child = rig.spawn(['verify', '-j', '1']);
    await until(() => existsSync(rig.path('started.pid')));
    child.kill('SIGINT');
    const result = await collect(child);
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('vouch: stopped: 1 of 2 selected checks ran; not started (nothing recorded): second');
    expect(result.stdout).toContain('0 of 2 blocking checks PASS');
    expect(result.stdout).not.toContain('of 1 blocking');
    expect((await rig.run(['log', '--json'])).json().map((r: { check_id: string }) => r.check_id)).toEqual(['first']);
  });

  it('--json lists the check that never started as UNKNOWN interrupted with no receipt', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    rig.script('wait.sh', 'echo $$ > started.pid\nsleep 300');
    await rig.spec('version: 1\nchecks:\n  - {id: first, run: ["./wait.sh"], sources: ["src/**"]}\n  - {id: second, run: ["true"], sources: ["src/**"]}\n');
    const child = rig.spawn(['verify', '-j', '1', '--json']);
    await until(() => existsSync(rig.path('started.pid')));
    child.kill('SIGINT');
    const result = await collect(child);
    expect(result.json()).toMatchObject({
      ok: false,
      checks: [
        { id: 'first', status: 'UNKNOWN', reason: 'interrupted', receipt: expect.any(String) },
        { id: 'second', status: 'UNKNOWN', reason: 'interrupted', receipt: null, exit_code: null, duration_ms: null },
      ],
    });
  });
});
