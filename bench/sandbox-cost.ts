// What confining one check costs, and what a job's own confinement costs:
// bundled and loaded by bench/service.mjs. The sandbox is the one a worker
// here would use (detectSandbox, as `vouch worker` calls it): bubblewrap
// with every layer, the job's cgroup, and for a root worker the job
// directory's tmpfs.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { closeInheritedDescriptors } from '../src/service/descriptors.js';
import { JobTree, probeJobDisk } from '../src/service/job-tree.js';
import { detectSandbox } from '../src/service/sandbox.js';

export interface SandboxCost {
  readonly sandbox: string;
  readonly gaps: readonly string[];
  /** `true` alone and confined as a check (medians of alternated runs, ms). */
  readonly check_ms: { readonly bare: number; readonly confined: number; readonly cost: number };
  /** Per job: making its directory (a tmpfs for a root worker) and its cgroup, then removing both (medians, ms). */
  readonly job_ms: { readonly setup: number; readonly teardown: number };
}

export async function sandboxCost(runs: number): Promise<SandboxCost> {
  closeInheritedDescriptors();
  const jobDisk = await probeJobDisk(64 * 1024 * 1024);
  const sandbox = detectSandbox({ jobDisk });
  if (!sandbox.forJob) throw new Error(`no sandbox here: ${sandbox.notes.join('; ')}`);
  const setup: number[] = [];
  const teardown: number[] = [];
  let bare = 0;
  let confined = 0;
  for (let i = 0; i < Math.max(1, Math.floor(runs / 3)); i++) {
    let t0 = performance.now();
    const tree = JobTree.create(jobDisk);
    const jobRoot = join(tree.base, 'job');
    mkdirSync(jobRoot);
    sandbox.handOver?.(jobRoot);
    const job = sandbox.forJob(jobRoot, tree.base);
    setup.push(performance.now() - t0);
    if (i === 0) {
      const argv = [...job.wrap(['true'], jobRoot)];
      // Alternated, so the machine's noise falls on both alike.
      const times: { bare: number[]; confined: number[] } = { bare: [], confined: [] };
      for (let run = 0; run < runs; run++) {
        times.bare.push(timeOnce(['/usr/bin/true']));
        times.confined.push(timeOnce(argv));
      }
      bare = median(times.bare);
      confined = median(times.confined);
    }
    t0 = performance.now();
    await job.close();
    await tree.remove();
    teardown.push(performance.now() - t0);
  }
  const record = sandbox.record;
  return {
    sandbox:
      record.kind === 'bubblewrap'
        ? `bubblewrap, cgroup ${record.confinement?.cgroup ? `v${record.confinement.cgroup.version}` : 'none'}, job directory ${jobDisk.kind}`
        : record.why,
    gaps: sandbox.gaps,
    check_ms: { bare, confined, cost: Math.round((confined - bare) * 10) / 10 },
    job_ms: { setup: median(setup), teardown: median(teardown) },
  };
}

/** Runs `argv` once; milliseconds. A failed run is never timed. */
function timeOnce(argv: readonly string[]): number {
  const start = performance.now();
  const ran = spawnSync(argv[0]!, argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  if (ran.status !== 0) throw new Error(`${argv.join(' ')} failed (${ran.status}): ${ran.stderr.toString()}`);
  return performance.now() - start;
}

function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const value = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return Math.round(value * 10) / 10;
}
