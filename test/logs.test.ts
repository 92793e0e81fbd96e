import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { openSqliteLedger } from '../src/ledger/sqlite/sqlite-ledger.js';
import { draftOf, manifestOf } from './helpers/drafts.js';
import { Rig } from './helpers/rig.js';

/*
 * The whole output of every run: stored redacted and compressed beside the
 * ledger, shown by `show --log`, mined for failure lines by `verify`,
 * removed by gc with its receipt.
 */

const SECRET = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';

/** A TAP run: "not ok 2" early, a secret, then ~13 KB of passing lines, exit 1. */
const TAPE = `
const lines = ['TAP version 13', 'ok 1 - adds', 'not ok 2 - subtracts', '  ---', '  at: test.js:12', '  ...'];
console.log(lines.join('\\n'));
process.stdout.write('deploying with ${SECRET.slice(0, 20)}');
setTimeout(() => {
  process.stdout.write('${SECRET.slice(20)} now\\n');
  for (let i = 3; i < 290; i++) console.log('ok ' + i + ' - a passing assertion with some words in it');
  console.error('# failed 1 of 290');
  // exitCode, not exit(): the check's stdout is a socket, and exit() drops what a slow reader (a loaded machine) has not taken yet.
  process.exitCode = 1;
}, 30);
`;

async function tapeRig(): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.txt': 'a', 'tape.cjs': TAPE });
  await rig.spec(
    'version: 1\nchecks:\n  - {id: tape, run: ["node", "tape.cjs"], sources: ["src/**"]}\n  - {id: quiet, run: ["node", "-e", "console.log(1)"], sources: ["src/**"]}\n',
  );
  return rig;
}

function logFiles(rig: Rig): string[] {
  try {
    return readdirSync(rig.path('.vouch/logs')).filter((name) => name.endsWith('.gz'));
  } catch {
    return [];
  }
}

/** Every byte under .vouch, log files decompressed: where a secret must not be. */
function stateBytes(rig: Rig): string {
  return logFiles(rig)
    .map((name) => gunzipSync(readFileSync(rig.path(`.vouch/logs/${name}`))).toString('latin1'))
    .join('\n');
}

describe('stored logs', () => {
  it('a failure line early in 13 KB of output is shown by verify, with a pointer to the whole log', async () => {
    const rig = await tapeRig();
    const result = await rig.run(['verify', 'tape']);
    expect(result.code).toBe(1);
    const id = /FAIL\s+tape\s+\S+\s+([0-9a-z]{8})\n/.exec(result.stdout)?.[1];
    expect(id).toBeDefined();
    expect(result.stdout).toMatch(/stdout:3 not ok 2 - subtracts/);
    expect(result.stdout).toContain(`whole output: vouch show ${id} --log`);
    // The tail alone would not have it: the excerpt holds only the end.
    const shown = await rig.run(['show', id!, '--json']);
    expect(shown.json().receipt.stdout.bytes).toBeGreaterThan(13_000);
    expect(shown.json().receipt.stdout.excerpt).not.toContain('not ok 2');
  });

  it('show --log prints the whole output, stdout then stderr, with a secret split across writes redacted, in the file on disk too', async () => {
    const rig = await tapeRig();
    await rig.run(['verify', 'tape']);
    const log = await rig.run(['show', 'tape', '--log']);
    expect(log.code).toBe(0);
    const lines = log.stdout.split('\n');
    expect(lines[0]).toBe('TAP version 13');
    expect(lines).toContain('not ok 2 - subtracts');
    expect(lines).toContain('ok 289 - a passing assertion with some words in it');
    expect(log.stdout.endsWith('ok 289 - a passing assertion with some words in it\n# failed 1 of 290\n')).toBe(true);
    expect(log.stdout).toContain('deploying with [REDACTED] now');
    expect(log.stdout).not.toContain('ghp_abcdefghij');
    expect(logFiles(rig)).toHaveLength(1);
    const disk = stateBytes(rig);
    expect(disk).toContain('not ok 2 - subtracts');
    expect(disk).not.toContain('ghp_abcdefghij');
    // The file is named by the SHA-256 of its bytes, and the receipt names it.
    const receipt = (await rig.run(['show', 'tape', '--json'])).json().receipt;
    expect(logFiles(rig)[0]).toBe(`${receipt.log.sha256}.gz`);
    expect(receipt.log.bytes).toBe(readFileSync(rig.path(`.vouch/logs/${receipt.log.sha256}.gz`)).length);
  });

  it('a receipt recorded before vouch kept logs gives a clear message and exit 6, never empty success', async () => {
    const rig = await tapeRig();
    await rig.run(['verify', 'quiet']);
    const ledger = openSqliteLedger(rig.path('.vouch/ledger.db'), { create: false })!;
    const old = await ledger.appendReceipt(draftOf('legacy', manifestOf('legacy')), manifestOf('legacy'));
    await ledger.close();
    const result = await rig.run(['show', old.body.id, '--log']);
    expect(result.code).toBe(6);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`receipt ${old.body.id} (legacy) has no stored log: it was recorded before vouch kept whole logs`);
    expect(result.stderr).toContain('code: log_not_found');
    // The old receipt still reads (and its hash still holds).
    const shown = await rig.run(['show', old.body.id, '--json']);
    expect(shown.code).toBe(0);
    expect(shown.json().intact).toBe(true);
    expect(shown.json().receipt.log).toBeUndefined();
  });

  it('a log whose file is gone gives the same exit 6 and says so', async () => {
    const rig = await tapeRig();
    await rig.run(['verify', 'quiet']);
    for (const name of logFiles(rig)) rmSync(rig.path(`.vouch/logs/${name}`));
    const result = await rig.run(['show', 'quiet', '--log']);
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/the log of receipt \S+ \(quiet\) is no longer stored/);
  });

  it('gc removes a log with its receipt, and keeps the log of a kept receipt', async () => {
    const rig = await tapeRig();
    await rig.run(['verify', 'tape']);
    const first = (await rig.run(['show', 'tape', '--json'])).json().receipt;
    await rig.run(['verify', 'tape']);
    const second = (await rig.run(['show', 'tape', '--json'])).json().receipt;
    expect(first.log.sha256).not.toBe(second.log.sha256);
    expect(logFiles(rig).sort()).toEqual([`${first.log.sha256}.gz`, `${second.log.sha256}.gz`].sort());
    const gc = await rig.run(['gc', '--keep-per-check', '1', '--json']);
    expect(gc.json()).toMatchObject({ ok: true, removed: 1, logsRemoved: 1 });
    expect(logFiles(rig)).toEqual([`${second.log.sha256}.gz`]);
    expect((await rig.run(['show', 'tape', '--log'])).code).toBe(0);
    // Nothing more to remove: the kept receipt's log stays.
    const again = await rig.run(['gc', '--keep-per-check', '1', '--json']);
    expect(again.json()).toMatchObject({ removed: 0, logsRemoved: 0 });
    expect(logFiles(rig)).toEqual([`${second.log.sha256}.gz`]);
  });
});

describe('progress when stderr is not a terminal', () => {
  it('a running check prints "still running" lines at the interval', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: slow, run: ["node", "-e", "setTimeout(() => {}, 900)"], sources: ["src/**"]}\n');
    const result = await rig.run(['verify'], { env: { VOUCH_PROGRESS_INTERVAL_MS: '200' } });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^vouch: slow still running, \d+ms$/m);
    expect(result.stderr).not.toContain('\r');
  });

  it('a check that ends within the interval prints none', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: fast, run: ["node", "-e", "1"], sources: ["src/**"]}\n');
    const result = await rig.run(['verify']);
    expect(result.stderr).not.toContain('still running');
  });
});

describe('show: which receipt', () => {
  it('with no argument shows the latest receipt; with a check id, that check latest', async () => {
    const rig = await tapeRig();
    await rig.run(['verify', 'tape']);
    await rig.run(['verify', 'quiet']);
    const latest = await rig.run(['show', '--json']);
    expect(latest.code).toBe(0);
    expect(latest.json().receipt.check_id).toBe('quiet');
    const tape = await rig.run(['show', 'tape', '--json']);
    expect(tape.json().receipt.check_id).toBe('tape');
    expect((await rig.run(['show', 'nosuch'])).code).toBe(2);
  });

  it('with nothing recorded says so', async () => {
    const rig = await tapeRig();
    const result = await rig.run(['show']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('nothing has been recorded in this workspace yet');
  });

  it('receipts made in one run have distinct short ids; show takes the short id, the full id and a unique prefix', async () => {
    const rig = await tapeRig();
    const run = await rig.run(['verify', '--json']);
    const ids = (run.json().checks as { receipt: string }[]).map((c) => c.receipt);
    expect(ids).toHaveLength(2);
    expect(ids[0]!.slice(-8)).not.toBe(ids[1]!.slice(-8));
    for (const id of ids) {
      for (const form of [id, id.slice(-8), id.slice(0, 24)]) {
        const shown = await rig.run(['show', form, '--json']);
        expect(shown.code).toBe(0);
        expect(shown.json().receipt.id).toBe(id);
      }
    }
    const log = await rig.run(['log']);
    for (const id of ids) expect(log.stdout).toContain(id.slice(-8));
  });

  it('an id part several receipts share lists them', async () => {
    const rig = await tapeRig();
    const run = await rig.run(['verify', '--json']);
    const ids = (run.json().checks as { receipt: string }[]).map((c) => c.receipt);
    // Made within a second: their time parts share the first 6 characters (one per 17 minutes).
    const shared = ids[0]!.slice(0, 6);
    expect(ids[1]!.startsWith(shared)).toBe(true);
    const result = await rig.run(['show', shared]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('code: receipt_ambiguous');
    for (const id of ids) expect(result.stderr).toContain(`${id} (${id.slice(-8)})`);
  });
});
