// A hash worker thread (hash-pool.ts): claims batches of files from a shared
// counter and hashes them with the same hashFile as the main thread, so every
// guarantee of a read (O_NOFOLLOW, regular file, inside the workspace,
// unchanged while read) holds whichever thread read it.
import { parentPort, workerData } from 'node:worker_threads';
import { hashFile } from './hash-file.js';
import { encodeOutcome, PackedJobs, type WorkerInput } from './hash-pool-protocol.js';

const input = workerData as WorkerInput;
const next = new Int32Array(input.counter);
const jobs = new PackedJobs(input);
const count = jobs.count;
for (;;) {
  const start = Atomics.add(next, 0, input.batch);
  if (start >= count) break;
  const end = Math.min(start + input.batch, count);
  const outcomes = [];
  for (let i = start; i < end; i++) {
    const job = jobs.job(i);
    outcomes.push(encodeOutcome(hashFile(job.absolute, input.within, job.expected, input.lean)));
  }
  parentPort!.postMessage({ start, outcomes });
}
parentPort!.postMessage({ done: true });
