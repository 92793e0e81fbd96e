// Where one fingerprint pass spends its time, in process: `node bench/probe.mjs DIR [--cold]`
// (bench/probe.mjs bundles this file). A diagnostic for tuning, not part of the benchmark table.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ALL_GROUPS, computeFingerprints } from '../src/engine/fingerprint.js';
import { TreeReader } from '../src/engine/tree-reader.js';
import { loadSpec } from '../src/spec/load.js';
import { workspaceAt } from '../src/workspace/find.js';

export async function probe(root: string, home: string, cold: boolean, worker: string | undefined): Promise<Record<string, number>> {
  const workspace = workspaceAt(root);
  const loaded = loadSpec(workspace.specPath);
  if (!loaded.ok) throw new Error(loaded.error.message);
  if (cold) rmSync(join(workspace.stateDir, 'statcache'), { force: true });
  const times: Record<string, number> = {};
  let last = performance.now();
  const lap = (name: string) => {
    const now = performance.now();
    times[name] = Math.round((now - last) * 10) / 10;
    last = now;
  };
  const reader = new TreeReader({ workspace, home, ...(worker && { hashWorker: pathToFileURL(worker) }) });
  const snapshot = reader.snapshot();
  lap('cache_load_ms');
  await computeFingerprints(
    snapshot,
    loaded.value.checks.map((check) => ({ check, groups: ALL_GROUPS })),
  );
  lap('fingerprints_ms');
  reader.close();
  lap('cache_save_ms');
  return { ...times, ...snapshot.counts };
}

/**
 * Hashes every file of the workspace's git index on this thread alone, then
 * with one worker thread helping: whether the pool pays on this machine now.
 */
export async function comparePool(root: string, worker: string): Promise<Record<string, number>> {
  const { execFileSync } = await import('node:child_process');
  const { hashFile } = await import('../src/scope/hash-file.js');
  const { hashInWorkers } = await import('../src/scope/hash-pool.js');
  const paths = execFileSync('git', ['ls-files', '-z'], { cwd: root, maxBuffer: 1 << 28 })
    .toString()
    .split('\0')
    .filter(Boolean);
  const jobs = paths.map((path) => ({ path, absolute: join(root, path) }));
  let start = performance.now();
  for (const job of jobs) hashFile(job.absolute, root);
  const alone = performance.now() - start;
  start = performance.now();
  await hashInWorkers(jobs, root, pathToFileURL(worker), { threads: 1 });
  const pooled = performance.now() - start;
  return { files: jobs.length, alone_ms: Math.round(alone), one_worker_ms: Math.round(pooled) };
}
