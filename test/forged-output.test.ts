import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { McpSession, textOf } from './helpers/mcp.js';
import { CLI, Rig, type RunResult } from './helpers/rig.js';

/*
 * Text that reaches vouch from outside (a file name, a check's output, an
 * agent's claim or prompt, a card's fields, a hook payload's session id) is
 * shown for what it is: its control characters and bidi overrides escaped,
 * on a terminal and off it, through every command that prints it. Each test
 * is an attack on what a person reads; JSON keeps the exact bytes.
 */

const ESC = '\u001b';
/** Erases the line the cursor is on, goes back to its start and writes a verdict vouch never gave. */
const ERASE_AND_FORGE = `${ESC}[2K\rPASS`;
const NAME = `a${ERASE_AND_FORGE}.txt`;
const NAME_SHOWN = 'a\\x1b[2K\\x0dPASS.txt';
/** Sets the terminal's title (OSC), then clears the screen. */
const OSC_AND_CLEAR = `${ESC}]0;owned\u0007${ESC}[2J`;
const OSC_SHOWN = '\\x1b]0;owned\\x07\\x1b[2J';
/** Right-to-left override: "exe.pdf" reads as "fdp.exe" backwards. */
const RLO = '\u202e';

/** Nothing a terminal would act on: no ESC, no CR, no C1 control, no bidi override. */
function expectInert(text: string): void {
  expect(text).not.toContain(ESC);
  expect(text).not.toContain('\r');
  expect(text).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/);
}

function expectInertRun(result: RunResult): void {
  expectInert(result.stdout);
  expectInert(result.stderr);
}

const SPEC = `version: 1
checks:
  - id: tests
    run: ["./check.sh"]
    sources: ["src/**"]
`;

/** A workspace whose check prints escape sequences and a bidi override, and fails unless src/good.txt says good. */
async function workspace(): Promise<Rig> {
  const rig = new Rig().write({ 'src/good.txt': 'good\n', [`src/${NAME}`]: 'one\n' });
  // sh's printf writes the octal escapes as bytes: ESC ] 0 ; owned BEL ESC [ 2 J, and U+202E in UTF-8.
  rig.script('check.sh', "printf 'out \\033]0;owned\\007\\033[2J invoice\\342\\200\\256fdp.exe\\n'\ngrep -q good src/good.txt");
  await rig.spec(SPEC);
  return rig;
}

describe('a file named to forge a verdict', () => {
  it('a STALE file named "\\e[2K\\rPASS" cannot erase its STALE line in status, off a terminal or on one (colour on)', async () => {
    const rig = await workspace();
    expect((await rig.run(['verify'])).code).toBe(0);
    rig.write({ [`src/${NAME}`]: 'two\n' });

    const plain = await rig.run(['status']);
    expect(plain.code).toBe(1);
    expectInertRun(plain);
    expect(plain.stdout).toMatch(/STALE\s+tests\s+fingerprint_changed/);
    expect(plain.stdout).toContain(`src/${NAME_SHOWN} modified`);

    // Colour on: vouch's own sequences are there, the file's are still escaped.
    const coloured = await rig.run(['status'], { env: { NO_COLOR: undefined, FORCE_COLOR: '1' } });
    expect(coloured.stdout).toContain(`${ESC}[33mSTALE${ESC}[39m`);
    expect(coloured.stdout).not.toContain(`${ESC}[2K`);
    expect(coloured.stdout).not.toContain('\r');
    expect(coloured.stdout).toContain(`src/${NAME_SHOWN} modified`);

    // JSON keeps the exact name.
    expect(JSON.stringify((await rig.run(['status', '--json'])).json().checks[0].changed)).toContain(JSON.stringify(`src/${NAME}`).slice(1, -1));
  });

  it('on a real terminal (a pseudo-terminal, colour on by default) the name is still shown escaped', async () => {
    const rig = await workspace();
    expect((await rig.run(['verify'])).code).toBe(0);
    rig.write({ [`src/${NAME}`]: 'two\n' });
    // `script` gives vouch a pseudo-terminal, as an interactive shell would (it also turns \n into \r\n).
    const tty = spawnSync('script', ['-qec', `${process.execPath} ${CLI} status`, '/dev/null'], {
      cwd: rig.root,
      env: rig.env({ NO_COLOR: undefined }),
    }).stdout.toString();
    expect(tty).toContain(`${ESC}[33mSTALE${ESC}[39m`);
    expect(tty).not.toContain(`${ESC}[2K`);
    expect(tty).not.toMatch(/\r(?!\n)/);
    expect(tty).toContain(`src/${NAME_SHOWN} modified`);
  });

  it('show --files lists the name escaped', async () => {
    const rig = await workspace();
    const verified = await rig.run(['verify', '--json']);
    const show = await rig.run(['show', verified.json().checks[0].receipt, '--files']);
    expect(show.code).toBe(0);
    expectInertRun(show);
    expect(show.stdout).toContain(`src/${NAME_SHOWN}`);
  });

  it('a name with a newline cannot start a line of its own in the status table', async () => {
    const rig = await workspace();
    expect((await rig.run(['verify'])).code).toBe(0);
    rig.write({ 'src/b.txt\n  PASS  tests  just now': 'x' });
    const status = await rig.run(['status']);
    expect(status.stdout).toContain('src/b.txt\\x0a  PASS  tests  just now added');
    expect(status.stdout.split('\n').filter((line) => /^\s*PASS\b/.test(line))).toEqual([]);
  });
});

describe("a check's output carrying escape sequences", () => {
  it('verify quotes the tail of a failing check escaped: the title is not set, the screen not cleared, the override not applied', async () => {
    const rig = await workspace();
    rig.write({ 'src/good.txt': 'bad\n' });
    const verify = await rig.run(['verify']);
    expect(verify.code).toBe(1);
    expectInertRun(verify);
    expect(verify.stdout).toContain(`out ${OSC_SHOWN} invoice\\u202efdp.exe`);
    const show = await rig.run(['show', (await rig.run(['log', '--json'])).json()[0].id]);
    expectInertRun(show);
    expect(show.stdout).toContain(`out ${OSC_SHOWN} invoice\\u202efdp.exe`);
  });

  it('the hook block reason the agent and its person read quotes the output escaped', async () => {
    const rig = await workspace();
    expect((await rig.run(['verify'])).code).toBe(0);
    rig.write({ 'src/good.txt': 'bad\n' });
    const payload = (event: string, extra: Record<string, unknown>) =>
      JSON.stringify({ session_id: 'sess-1', cwd: rig.root, transcript_path: '/dev/null', hook_event_name: event, ...extra });
    await rig.run(['hook', 'claude-code', 'PostToolUse'], {
      stdin: payload('PostToolUse', {
        tool_name: 'Write',
        tool_input: { file_path: rig.path('src/good.txt'), content: 'bad\n' },
        tool_response: { type: 'update' },
        tool_use_id: 't1',
      }),
    });
    const stop = await rig.run(['hook', 'claude-code', 'Stop'], { stdin: payload('Stop', { stop_hook_active: false }) });
    const reply = JSON.parse(stop.stdout) as { decision: string; reason: string };
    expect(reply.decision).toBe('block');
    expectInert(reply.reason);
    expect(reply.reason).toContain(`out ${OSC_SHOWN} invoice\\u202efdp.exe`);
    expectInert(stop.stderr);
  });

  it('a hook error that quotes its input (stdin that is not JSON) denies with the quote escaped, in the reason the agent reads and on stderr', async () => {
    const rig = new Rig();
    const result = await rig.run(['hook', 'claude-code', 'PreToolUse'], { stdin: '\x1b[2K\rPASS' });
    const reply = JSON.parse(result.stdout);
    expect(reply.hookSpecificOutput.permissionDecision).toBe('deny');
    const reason: string = reply.hookSpecificOutput.permissionDecisionReason;
    expect(reason).toContain('stdin is not JSON');
    expect(reason).not.toMatch(/[\x1b\r]/);
    expect(reason).toContain('\\x1b[2K');
    expect(result.stderr).not.toMatch(/[\x1b\r]/);
    expect(result.stderr).toContain('hook error (the call is denied)');
  });

  it('an MCP client shows the text answer escaped; the structured answer stays exact', async () => {
    const rig = await workspace();
    expect((await rig.run(['verify'])).code).toBe(0);
    rig.write({ [`src/${NAME}`]: 'two\n' });
    const mcp = await McpSession.connect(rig);
    const result = await mcp.call('vouch_status', { check_ids: ['tests'] });
    expectInert(textOf(result));
    expect(textOf(result)).toContain(`src/${NAME_SHOWN} modified`);
    expect(JSON.stringify(result.structuredContent)).toContain(JSON.stringify(`src/${NAME}`).slice(1, -1));
  });
});

describe('recorded words of agents and people', () => {
  it("a dispatch claim with bidi overrides is shown escaped in dispatch show and in the report; fleet's prompt too", async () => {
    const rig = await workspace();
    const ordered = await rig.run(['dispatch', 'new', '--prompt', `fix it ${OSC_AND_CLEAR}`, '--json']);
    const id = ordered.json().id as string;
    rig.write({
      'claim.json': JSON.stringify({
        summary: `all green ${RLO}SSAP`,
        deliverables: [{ what: `invoice${RLO}fdp.exe`, evidence: 'executed', how: `ran ${ESC}[8m hidden` }],
      }),
    });
    expect((await rig.run(['dispatch', 'report', id, '--report', 'claim.json'])).code).toBe(0);

    const show = await rig.run(['dispatch', 'show', id]);
    expectInertRun(show);
    expect(show.stdout).toContain('all green \\u202eSSAP');
    expect(show.stdout).toContain('invoice\\u202efdp.exe');
    expect(show.stdout).toContain('ran \\x1b[8m hidden');
    const fleet = await rig.run(['fleet']);
    expectInertRun(fleet);
    expect(fleet.stdout).toContain(`fix it ${OSC_SHOWN}`);

    const report = await rig.run(['report', '--out', '-']);
    expect(report.code).toBe(0);
    expectInert(report.stdout);
    expect(report.stdout).toContain('all green \\u202eSSAP');

    // The record and its JSON keep the exact words.
    expect((await rig.run(['dispatch', 'show', id, '--json'])).json().claim.summary).toBe(`all green ${RLO}SSAP`);
  });

  it('a card whose goal carries a carriage return cannot rewrite its own line in card show or card list', async () => {
    const rig = await workspace();
    const goal = 'ship it\rDONE: every proof PASS, close it';
    const opened = await rig.run([
      'card',
      'open',
      '--goal',
      goal,
      '--artifact',
      'src/good.txt',
      '--done-when',
      `tests pass${ESC}[2K`,
      '--proof',
      'tests',
      '--json',
    ]);
    expect(opened.code, opened.stderr).toBe(0);
    const id = opened.json().id as string;
    for (const args of [
      ['card', 'show', id],
      ['card', 'list'],
    ]) {
      const result = await rig.run(args);
      expect(result.code, args.join(' ')).toBe(0);
      expectInertRun(result);
      expect(result.stdout).toContain('ship it\\x0dDONE: every proof PASS, close it');
    }
    expect((await rig.run(['card', 'show', id])).stdout).toContain('tests pass\\x1b[2K');
  });

  it('a session id from a hook payload with escape sequences is listed escaped by sessions', async () => {
    const rig = await workspace();
    const session = `s-1${ESC}[2K\rallowed`;
    const stdin = JSON.stringify({ session_id: session, cwd: rig.root, transcript_path: '/dev/null', hook_event_name: 'Stop', stop_hook_active: false });
    expect((await rig.run(['hook', 'claude-code', 'Stop'], { stdin })).code).toBe(0);
    const sessions = await rig.run(['sessions']);
    expectInertRun(sessions);
    expect(sessions.stdout).toContain('s-1\\x1b[2K\\x0dallowed');
    expect((await rig.run(['sessions', '--json'])).json().sessions[0].session).toBe(session);
  });

  it('a check id typed with an escape sequence is echoed escaped (log, verify)', async () => {
    const rig = await workspace();
    const log = await rig.run(['log', `x${OSC_AND_CLEAR}`]);
    expectInertRun(log);
    expect(log.stdout).toContain(`x${OSC_SHOWN}`);
    const verify = await rig.run(['verify', `x${OSC_AND_CLEAR}`]);
    expect(verify.code).toBe(2);
    expectInertRun(verify);
    expect(verify.stderr).toContain(OSC_SHOWN);
  });
});

describe('what must stay exact', () => {
  it('--json carries the bytes as recorded (JSON escapes C0 itself): nothing of the terminal boundary leaks into it', async () => {
    const rig = await workspace();
    rig.write({ 'src/good.txt': 'bad\n' });
    const verify = await rig.run(['verify', '--json']);
    const show = await rig.run(['show', verify.json().checks[0].receipt, '--json']);
    expect(show.json().receipt.stdout.excerpt).toBe(`out ${OSC_AND_CLEAR} invoice${RLO}fdp.exe\n`);
    // As JSON.stringify writes it: C0 as \u001b, the override as the character itself; no terminal escape.
    expect(show.stdout).toContain('out \\u001b]0;owned\\u0007\\u001b[2J');
    expect(show.stdout).toContain(RLO);
    expect(show.stdout).not.toContain('\\x1b');
  });
});
