// The automatic gc's cost (docs/benchmarks.md, "Automatic gc"): the check a
// person's verify makes after every run (gcCandidates), on a ledger within
// its policy and on one far over it, and one bounded run (autoGc) there.
// Not part of `npm run bench`; bundle and run it as docs/benchmarks.md says.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteLedger } from '../src/ledger/sqlite/sqlite-ledger.js';
import { autoGc } from '../src/retention/auto.js';
import { draftOf, manifestOf } from '../test/helpers/drafts.js';

const CHECKS = ['c0', 'c1', 'c2', 'c3'];
const RETENTION = { days: 30, perCheck: 200, logDays: null, logs: true, auto: 100 };

async function filled(path: string, count: number): Promise<ReturnType<typeof openSqliteLedger>> {
  const ledger = openSqliteLedger(path, { create: true })!;
  const manifest = manifestOf('x');
  for (let done = 0; done < count; done += 5000) {
    const items = [];
    for (let i = done; i < Math.min(count, done + 5000); i++)
      items.push({ draft: draftOf(CHECKS[i % 4]!, manifest, new Date(Date.now() - (count - i) * 1000)), manifest });
    await ledger.appendReceipts(items);
  }
  return ledger;
}

async function main(): Promise<void> {
  const receipts = Number(process.argv[2] ?? 200_000);
  const dir = mkdtempSync(join(tmpdir(), 'vouch-auto-gc-'));
  try {
    const policy = { now: new Date(), keepDays: RETENTION.days, keepPerCheck: RETENTION.perCheck };
    const within = (await filled(join(dir, 'within.db'), 600))!;
    const over = (await filled(join(dir, 'over.db'), receipts))!;
    for (const [name, ledger] of [
      ['600 receipts, within policy', within],
      [`${receipts} receipts, over policy`, over],
    ] as const) {
      const times: number[] = [];
      for (let run = 0; run < 11; run++) {
        const started = performance.now();
        await ledger.gcCandidates(policy, CHECKS, RETENTION.auto);
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      console.log(`gcCandidates, ${name}: median ${times[5]!.toFixed(2)} ms (min ${times[0]!.toFixed(2)}, max ${times[10]!.toFixed(2)})`);
    }
    for (let run = 0; run < 3; run++) {
      const started = performance.now();
      const outcome = await autoGc(over, CHECKS, { retention: RETENTION, home: dir, now: new Date() });
      const removed = outcome.kind === 'ran' ? outcome.result.removed : 0;
      console.log(`autoGc on ${receipts} receipts: ${outcome.kind}, ${removed} removed, ${(performance.now() - started).toFixed(0)} ms`);
    }
    await within.close();
    await over.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
