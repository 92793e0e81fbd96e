import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect, Rig } from './helpers/rig.js';

/*
 * Checks side by side. Two checks that each wait for the other's marker
 * file (outside the workspace, so no scope sees it) can both pass only when
 * they run at the same time; one after another, the first gives up after a
 * bounded wait and fails, and the second finds the first's marker at once.
 * The bound keeps every test finite whatever the schedule does.
 */

interface Receipt {
  readonly check_id: string;
  readonly verdict: string;
  readonly started_at: string;
  readonly finished_at: string;
}

/** A check that leaves its marker, then waits up to `tenths` × 0.1 s for `other`'s. */
function meets(markers: string, id: string, other: string, tenths: number, extra = ''): string {
  const script = `touch '${markers}/${id}'; i=0; while [ ! -e '${markers}/${other}' ]; do i=$((i+1)); if [ $i -gt ${tenths} ]; then echo '${id}: ${other} never came'; exit 1; fi; sleep 0.1; done; echo '${id}: met ${other}'`;
  return `  - {id: ${id}, run: ["sh", "-c", "${script}"], sources: ["src/**"]${extra}}\n`;
}

/** Beside the workspace, never in it (removed with the rig). */
function markersOf(rig: Rig): string {
  const dir = join(dirname(rig.root), 'markers');
  mkdirSync(dir, { recursive: true });
  return dir;
}

async function pair(tenths: number, extraA = '', extraB = ''): Promise<{ rig: Rig; markers: string }> {
  const rig = new Rig().write({ 'src/a.txt': 'a\n' });
  const markers = markersOf(rig);
  await rig.spec(`version: 1\nchecks:\n${meets(markers, 'a', 'b', tenths, extraA)}${meets(markers, 'b', 'a', tenths, extraB)}`);
  return { rig, markers };
}

async function receipt(rig: Rig, id: string): Promise<Receipt> {
  const shown = await rig.run(['show', id, '--json']);
  expect(shown.code, shown.stderr).toBe(0);
  return shown.json<{ receipt: Receipt }>().receipt;
}

/** The second check started only after the first had finished. */
function oneAfterAnother(first: Receipt, second: Receipt): boolean {
  return Date.parse(second.started_at) >= Date.parse(first.finished_at);
}

describe('verify runs independent checks side by side', () => {
  it('two checks that each wait for the other both pass: they really ran at the same time; the chain holds', async () => {
    // 30 s of patience: side by side they meet as soon as both have started, however loaded the machine.
    const { rig } = await pair(300);
    const result = await rig.run(['verify', '-j', '2', '--json'], { timeoutMs: 60_000 });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.json().checks.map((c: { id: string; status: string }) => [c.id, c.status])).toEqual([
      ['a', 'PASS'],
      ['b', 'PASS'],
    ]);
    const [a, b] = [await receipt(rig, 'a'), await receipt(rig, 'b')];
    expect(oneAfterAnother(a, b) || oneAfterAnother(b, a)).toBe(false);
    // Two receipts appended while both ran: each chained to the one before it.
    const audit = await rig.run(['audit']);
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
  });

  it('-j 1 runs them one after another: the first gives up waiting and fails, the second finds its marker', async () => {
    const { rig } = await pair(15);
    const result = await rig.run(['verify', '-j', '1', '--json']);
    expect(result.code).toBe(1);
    expect(result.json().checks.map((c: { id: string; status: string }) => [c.id, c.status])).toEqual([
      ['a', 'FAIL'],
      ['b', 'PASS'],
    ]);
    expect(oneAfterAnother(await receipt(rig, 'a'), await receipt(rig, 'b'))).toBe(true);
  });

  it('serial: true keeps a check from running beside any other, whatever -j says', async () => {
    const { rig } = await pair(15, ', serial: true');
    const result = await rig.run(['verify', '-j', '4', '--json']);
    expect(result.code).toBe(1);
    expect(result.json().checks.map((c: { id: string; status: string }) => [c.id, c.status])).toEqual([
      ['a', 'FAIL'],
      ['b', 'PASS'],
    ]);
    expect(oneAfterAnother(await receipt(rig, 'a'), await receipt(rig, 'b'))).toBe(true);
    // The other one marked serial instead: the same, the order of vouch.yaml kept.
    const other = await pair(15, '', ', serial: true');
    const again = await other.rig.run(['verify', '-j', '4', '--json']);
    expect(again.json().checks.map((c: { id: string; status: string }) => c.status)).toEqual(['FAIL', 'PASS']);
  });

  it('a check that writes files another covers, run beside it: the other is UNKNOWN changed_during_run, never PASS, and the hint names serial: true; marked serial, both pass', async () => {
    const spec = (markers: string, serial: string) =>
      'version: 1\nchecks:\n' +
      // gen waits (bounded) for cover to start, then regenerates the file cover reads.
      `  - {id: gen, run: ["sh", "-c", "i=0; while [ ! -e '${markers}/cover' ] && [ $i -lt 15 ]; do i=$((i+1)); sleep 0.1; done; echo regenerated > out/file.txt; touch '${markers}/gen'"], sources: ["src/**"]${serial}}\n` +
      `  - {id: cover, run: ["sh", "-c", "touch '${markers}/cover'; i=0; while [ ! -e '${markers}/gen' ] && [ $i -lt 300 ]; do i=$((i+1)); sleep 0.1; done"], sources: ["out/**"]}\n`;
    const side = new Rig().write({ 'src/a.txt': 'a\n', 'out/file.txt': 'old\n' });
    await side.spec(spec(markersOf(side), ''));
    const result = await side.run(['verify', '-j', '2'], { timeoutMs: 60_000 });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/UNKNOWN\s+cover\b/);
    expect(result.stdout).toContain('mark checks that write the same files `serial: true`');
    const apart = new Rig().write({ 'src/a.txt': 'a\n', 'out/file.txt': 'old\n' });
    await apart.spec(spec(markersOf(apart), ', serial: true'));
    const json = await apart.run(['verify', '-j', '2', '--json'], { timeoutMs: 60_000 });
    expect(json.code, json.stdout).toBe(0);
    expect(json.json().checks.map((c: { status: string }) => c.status)).toEqual(['PASS', 'PASS']);
  });

  it("each check's output is printed whole when it ends, never mixed with the other's, though both wrote at the same time", async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a\n' });
    const markers = markersOf(rig);
    // Both meet first, then write a line every 50 ms (a 5 lines, b 5 lines) and fail; a takes longer, so b ends first.
    const noisy = (id: string, other: string, pause: string) =>
      `  - {id: ${id}, run: ["sh", "-c", "touch '${markers}/${id}'; i=0; while [ ! -e '${markers}/${other}' ] && [ $i -lt 300 ]; do i=$((i+1)); sleep 0.1; done; for n in 1 2 3 4 5; do echo ${id}-line-$n; sleep ${pause}; done; exit 1"], sources: ["src/**"]}\n`;
    await rig.spec(`version: 1\nchecks:\n${noisy('a', 'b', '0.2')}${noisy('b', 'a', '0.05')}`);
    const result = await rig.run(['verify', '-j', '2'], { timeoutMs: 60_000 });
    expect(result.code).toBe(1);
    const lines = result.stdout.split('\n');
    const at = (id: string) => lines.flatMap((line, i) => (line.includes(`${id}-line-`) ? [i] : []));
    const [a, b] = [at('a'), at('b')];
    expect(a.length).toBeGreaterThanOrEqual(5);
    expect(b.length).toBeGreaterThanOrEqual(5);
    // b ended first: all of b's lines come before any of a's, and neither block is cut into by the other.
    expect(Math.max(...b)).toBeLessThan(Math.min(...a));
    expect(lines.findIndex((line) => /^FAIL\s+b\b/.test(line))).toBeLessThan(lines.findIndex((line) => /^FAIL\s+a\b/.test(line)));
    // --json keeps vouch.yaml's order, whatever ended first.
    const json = await rig.run(['verify', '-j', '2', '--json'], { timeoutMs: 60_000 });
    expect(json.json().checks.map((c: { id: string }) => c.id)).toEqual(['a', 'b']);
  });

  it('Ctrl-C side by side: the running checks are interrupted and recorded, the one never started is counted and named', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    rig.script('wait.sh', 'echo $$ > "$1.pid"\nsleep 300');
    await rig.spec(
      'version: 1\nchecks:\n' +
        '  - {id: first, run: ["./wait.sh", "first"], sources: ["src/**"]}\n' +
        '  - {id: second, run: ["./wait.sh", "second"], sources: ["src/**"]}\n' +
        '  - {id: third, run: ["true"], sources: ["src/**"]}\n',
    );
    const child = rig.spawn(['verify', '-j', '2', '--json']);
    const deadline = Date.now() + 30_000;
    while (!(existsSync(rig.path('first.pid')) && existsSync(rig.path('second.pid'))) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGINT');
    const result = await collect(child);
    expect(result.code).toBe(130);
    expect(result.json()).toMatchObject({
      ok: false,
      checks: [
        { id: 'first', status: 'UNKNOWN', reason: 'interrupted', receipt: expect.any(String) },
        { id: 'second', status: 'UNKNOWN', reason: 'interrupted', receipt: expect.any(String) },
        { id: 'third', status: 'UNKNOWN', reason: 'interrupted', receipt: null },
      ],
    });
    expect(
      (await rig.run(['log', '--json']))
        .json()
        .map((r: { check_id: string }) => r.check_id)
        .sort(),
    ).toEqual(['first', 'second']);
  });

  it('-j takes a whole number of at least 1, and is refused with --remote (usage, exit 2)', async () => {
    const { rig } = await pair(1);
    for (const value of ['0', 'two', '1.5']) {
      const result = await rig.run(['verify', '-j', value]);
      expect(result.code, value).toBe(2);
      expect(result.stderr).toContain('--jobs expects an integer of at least 1');
    }
    const remote = await rig.run(['verify', '-j', '2', '--remote', 'https://verifier.invalid']);
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain('--jobs (-j) is not used with --remote');
  });
});

describe('the gate runs the checks a stop owes side by side', () => {
  const hook = (rig: Rig, event: string, payload: Record<string, unknown>) =>
    rig.run(['hook', 'claude-code', event], {
      stdin: JSON.stringify({ session_id: 'sess-1', cwd: rig.root, transcript_path: '/dev/null', hook_event_name: event, ...payload }),
      timeoutMs: 60_000,
    });

  /** The session (or, with `agent`, one subagent) writes a covered file, then stops. */
  async function stopAfterEdit(rig: Rig, agent?: string): Promise<{ decision: string; reason: string }> {
    rig.write({ 'src/a.txt': 'edited\n' });
    const who = agent === undefined ? {} : { agent_id: agent, agent_type: 'general-purpose' };
    const wrote = await hook(rig, 'PostToolUse', {
      tool_name: 'Write',
      tool_input: { file_path: rig.path('src/a.txt'), content: 'edited\n' },
      tool_response: { type: 'update' },
      tool_use_id: 't1',
      duration_ms: 4,
      ...who,
    });
    expect(wrote.code, wrote.stderr).toBe(0);
    const stop =
      agent === undefined
        ? await hook(rig, 'Stop', { stop_hook_active: false })
        : await hook(rig, 'SubagentStop', { stop_hook_active: false, last_assistant_message: 'Done.', ...who });
    expect(stop.code, stop.stderr).toBe(0);
    return stop.stdout.trim() === '' ? { decision: 'allow', reason: '' } : JSON.parse(stop.stdout);
  }

  it('two relevant checks that each wait for the other: the stop is allowed, both run by the gate at the same time', async () => {
    const { rig } = await pair(300);
    expect((await stopAfterEdit(rig)).decision).toBe('allow');
    const [a, b] = [await receipt(rig, 'a'), await receipt(rig, 'b')];
    expect([a.verdict, b.verdict]).toEqual(['PASS', 'PASS']);
    expect(oneAfterAnother(a, b) || oneAfterAnother(b, a)).toBe(false);
  });

  it("a subagent's stop runs them in the hook's own process within the budget, side by side too: allowed", async () => {
    const { rig } = await pair(300);
    expect((await stopAfterEdit(rig, 'agent-a')).decision).toBe('allow');
    const [a, b] = [await receipt(rig, 'a'), await receipt(rig, 'b')];
    expect([a.verdict, b.verdict]).toEqual(['PASS', 'PASS']);
    expect(oneAfterAnother(a, b) || oneAfterAnother(b, a)).toBe(false);
  });

  it("the budget cuts short every check running side by side in a subagent's stop: each is recorded interrupted, the stop blocked", async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a\n' });
    await rig.spec(
      'version: 1\ngate: {budget_seconds: 1}\nchecks:\n  - {id: a, run: ["sleep", "30"], sources: ["src/**"]}\n  - {id: b, run: ["sleep", "30"], sources: ["src/**"]}\n',
    );
    expect((await stopAfterEdit(rig, 'agent-a')).decision).toBe('block');
    // One after another, b would never have started (no receipt): both ran, both were cut at the budget.
    for (const id of ['a', 'b']) expect(await receipt(rig, id)).toMatchObject({ verdict: 'UNKNOWN', reason: 'interrupted' });
  });

  it("a person's dispatch grade runs them in its own process, side by side too: verified", async () => {
    const { rig } = await pair(300);
    const claim = JSON.stringify({ summary: 'done', deliverables: [{ what: 'a and b meet', evidence: 'executed', how: 'vouch verify' }] });
    rig.write({ 'claim.json': claim });
    const ordered = await rig.run(['dispatch', 'new', '--json', '--prompt', 'make a and b meet']);
    expect(ordered.code, ordered.stderr).toBe(0);
    const id = ordered.json<{ id: string }>().id;
    expect((await rig.run(['dispatch', 'report', id, '--report', 'claim.json', '--json'])).code).toBe(0);
    const graded = await rig.run(['dispatch', 'grade', id, '--json'], { timeoutMs: 60_000 });
    expect(graded.code, graded.stdout + graded.stderr).toBe(0);
    expect(graded.json()).toMatchObject({ state: 'verified' });
    const [a, b] = [await receipt(rig, 'a'), await receipt(rig, 'b')];
    expect(oneAfterAnother(a, b) || oneAfterAnother(b, a)).toBe(false);
  });

  it('with serial: true the gate runs them one after another: the first fails waiting, the stop is blocked on it', async () => {
    const { rig } = await pair(15, ', serial: true');
    const stop = await stopAfterEdit(rig);
    expect(stop.decision).toBe('block');
    expect(stop.reason).toContain('a: FAIL (exit_code)');
    expect(stop.reason).toContain('a: b never came');
    const [a, b] = [await receipt(rig, 'a'), await receipt(rig, 'b')];
    expect([a.verdict, b.verdict]).toEqual(['FAIL', 'PASS']);
    expect(oneAfterAnother(a, b)).toBe(true);
  });
});
