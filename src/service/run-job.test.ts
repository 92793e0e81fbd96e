import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { packTarGz } from '../archive/pack.js';
import { sha256 } from '../core/digest.js';
import type { ClaimedJob } from './jobs.js';
import { runJob, type JobRunner } from './run-job.js';
import { allowServiceSpec } from './server-trust.js';

const SPEC = 'version: 1\nchecks:\n  - {id: a, run: ["true"], sources: ["src/**"]}\n  - {id: b, run: ["true"], sources: ["src/**"]}\n';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

async function fixture(): Promise<{ job: ClaimedJob; archive: Buffer; runner: JobRunner }> {
  const home = mkdtempSync(join(tmpdir(), 'vouch-run-job-'));
  homes.push(home);
  expect(allowServiceSpec(home, Buffer.from(SPEC), 'vouch.yaml').ok).toBe(true);
  const archive = await packTarGz([
    { path: 'vouch.yaml', bytes: Buffer.from(SPEC), executable: false },
    { path: 'src/x.txt', bytes: Buffer.from('x'), executable: false },
  ]);
  const job: ClaimedJob = { id: '01m8p4w5s3h7dty1vaxab2xmkf', specSha256: sha256(Buffer.from(SPEC)), checks: ['a', 'b'], archiveParts: 1, timeLimitSeconds: 10, attempt: 1, nonce: 'f'.repeat(64), clientGit: { head: 'c'.repeat(40), dirty: false } };
  const runner: JobRunner = { home, sign: () => 'signed', sandbox: { record: { kind: 'none', why: 'unit test' }, gaps: [], notes: [], jobDisk: { kind: 'disk', why: 'unit test' } }, maxTreeBytes: 1 << 20, maxUnpackMs: 10_000 };
  return { job, archive, runner };
}

describe('running one job', () => {
  it('records the nonce and the client\'s git claim in every receipt, and runs no git', async () => {
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
});
