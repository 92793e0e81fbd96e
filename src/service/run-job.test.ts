import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { packTarGz } from '../archive/pack.js';
import { sha256 } from '../core/digest.js';
import type { ClaimedJob } from './jobs.js';
import { runJob, type JobRunner } from './run-job.js';
import { allowServiceSpec } from './server-trust.js';
import { serverPinsFor, writeServerPins } from './server-pins.js';
import type { PackFile } from '../archive/pack.js';
import { removeServerPins } from './server-pins.js';

const SPEC = 'version: 1\nchecks:\n  - {id: a, run: ["true"], sources: ["src/**"]}\n  - {id: b, run: ["true"], sources: ["src/**"]}\n';

const file = (path: string, text: string): PackFile => ({ path, bytes: Buffer.from(text), executable: false });

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

/**
 * A server home that allowed `spec`, its pins taken from `tree` (files
 * written to a directory of their own), and a job for `checks` whose
 * upload is vouch.yaml plus `upload`.
 */
async function fixture(
  spec = SPEC,
  upload: PackFile[] = [file('src/x.txt', 'x')],
  tree: PackFile[] = upload,
  checks = ['a', 'b'],
): Promise<{ job: ClaimedJob; archive: Buffer; runner: JobRunner }> {
  const home = mkdtempSync(join(tmpdir(), 'vouch-run-job-'));
  homes.push(home);
  const allowed = allowServiceSpec(home, Buffer.from(spec), 'vouch.yaml');
  expect(allowed.ok).toBe(true);
  const checkout = join(home, 'checkout');
  for (const f of tree) {
    mkdirSync(dirname(join(checkout, f.path)), { recursive: true });
    writeFileSync(join(checkout, f.path), f.bytes);
  }
  mkdirSync(checkout, { recursive: true });
  if (allowed.ok) expect(writeServerPins(home, await serverPinsFor(allowed.value, checkout)).ok).toBe(true);
  const archive = await packTarGz([file('vouch.yaml', spec), ...upload]);
  const job: ClaimedJob = {
    id: '01m8p4w5s3h7dty1vaxab2xmkf',
    specSha256: sha256(Buffer.from(spec)),
    checks,
    archiveParts: 1,
    timeLimitSeconds: 10,
    attempt: 1,
    nonce: 'f'.repeat(64),
    clientGit: { head: 'c'.repeat(40), dirty: false },
  };
  const runner: JobRunner = {
    home,
    sign: () => 'signed',
    sandbox: { record: { kind: 'none', why: 'unit test' }, gaps: [], notes: [], jobDisk: { kind: 'disk', why: 'unit test' } },
    maxTreeBytes: 1 << 20,
    maxUnpackMs: 10_000,
  };
  return { job, archive, runner };
}

describe('running one job', () => {
  it("records the nonce and the client's git claim in every receipt, and runs no git", async () => {
    const { job, archive, runner } = await fixture();
    const outcome = await runJob(job, Readable.from([archive]), runner, new AbortController().signal, () => false);
    expect(outcome.kind).toBe('ran');
    const receipts = outcome.kind === 'ran' ? outcome.receipts : [];
    expect(receipts.map((r) => r.draft.check_id)).toEqual(['a', 'b']);
    for (const { draft } of receipts) {
      expect(draft.git).toEqual({ head: 'c'.repeat(40), dirty: false });
      expect(draft.service).toMatchObject({ job: job.id, nonce: 'f'.repeat(64), git_source: 'client' });
    }
  });

  it('a job stopped (its time spent) before its checks ran has no receipt for them: it is not done, it is failed with no_receipt', async () => {
    const { job, archive, runner } = await fixture();
    const outcome = await runJob(job, Readable.from([archive]), runner, AbortSignal.abort('time limit'), () => false);
    expect(outcome).toMatchObject({ kind: 'ran', receipts: [], error: { code: 'no_receipt' } });
    expect(outcome.kind === 'ran' && outcome.error?.message).toBe('no receipt for "a", "b": the job was stopped (time limit) before they ran');
  });

  it("each check sees only the files the spec declares for it: not vouch.yaml, not an undeclared file of the upload, not another check's files", async () => {
    const spec = `version: 1
checks:
  - {id: a, run: ["sh", "-c", "find . -type f | sort"], sources: ["src/**"]}
  - {id: b, run: ["sh", "-c", "find . -type f | sort"], tests: ["test/**"], inputs: ["package.json"]}
`;
    const upload = [
      file('src/x.txt', 'x'),
      file('test/t.txt', 't'),
      file('package.json', '{}'),
      file('notes/undeclared.txt', 'u'),
      file('conftest.py', 'import os'),
    ];
    const { job, archive, runner } = await fixture(spec, upload);
    const outcome = await runJob(job, Readable.from([archive]), runner, new AbortController().signal, () => false);
    const receipts = outcome.kind === 'ran' ? outcome.receipts : [];
    expect(receipts.map((r) => `${r.draft.check_id}:${r.draft.verdict}:${r.draft.stdout?.excerpt.trim()}`)).toEqual([
      'a:PASS:./src/x.txt',
      'b:PASS:./package.json\n./test/t.txt',
    ]);
  });

  it('attack: an upload whose tool config or inputs are not what the operator pinned gets an UNKNOWN receipt (tool_config_changed, input_changed) and nothing runs', async () => {
    const spec = `version: 1
checks:
  - {id: a, run: ["sh", "-c", "touch /proc/never-here"], sources: ["src/**"]}
  - {id: b, run: ["sh", "-c", "exit 0"], sources: ["src/**"], inputs: ["package.json"]}
`;
    const pinned = [file('src/x.txt', 'x'), file('package.json', '{"scripts": {"test": "node test.js"}}')];
    const upload = [file('src/x.txt', 'x'), file('.npmrc', 'script-shell=/bin/true\n'), file('package.json', '{"scripts": {"test": "exit 0"}}')];
    const { job, archive, runner } = await fixture(spec, upload, pinned);
    const outcome = await runJob(job, Readable.from([archive]), runner, new AbortController().signal, () => false);
    const receipts = outcome.kind === 'ran' ? outcome.receipts : [];
    expect(receipts.map((r) => `${r.draft.check_id}:${r.draft.verdict}:${r.draft.reason}:${r.draft.ran}`)).toEqual([
      'a:UNKNOWN:tool_config_changed:false',
      'b:UNKNOWN:tool_config_changed:false',
    ]);
    expect(receipts[0]!.draft.detail).toContain('.npmrc');
    // The receipt lists the inputs' hashes (the manifest's input group): the upload's package.json, not the pinned one.
    expect(receipts[1]!.manifest.files.filter((f) => f[3] === 'input').map((f) => f[0])).toEqual(['package.json']);
    // The inputs alone differing (no tool config in the way): input_changed, with the file named.
    const only = await fixture(spec, [file('src/x.txt', 'x'), file('package.json', '{"scripts": {"test": "exit 0"}}')], pinned, ['b']);
    const changed = await runJob(only.job, Readable.from([only.archive]), only.runner, new AbortController().signal, () => false);
    expect(changed.kind === 'ran' && changed.receipts.map((r) => `${r.draft.reason}:${r.draft.detail}`)).toEqual([
      expect.stringMatching(/^input_changed:input package\.json \(changed\)/),
    ]);
  });

  it('a spec allowed before the server pinned anything is refused until its operator allows it again', async () => {
    const { job, archive, runner } = await fixture();
    removeServerPins(runner.home, job.specSha256);
    const outcome = await runJob(job, Readable.from([archive]), runner, new AbortController().signal, () => false);
    expect(outcome).toMatchObject({
      kind: 'refused',
      error: { code: 'spec_not_allowed', message: expect.stringContaining('vouch serve allow FILE --tree DIR') },
    });
  });
});
