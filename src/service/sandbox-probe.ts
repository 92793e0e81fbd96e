import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Confinement, SandboxGap } from '../receipt/sandbox-record.js';
import { handOver } from './hand-over.js';
import type { JobCgroup } from './job-cgroup.js';
import { commandLine, type Layers, type Tools } from './sandbox-command.js';

/** What the probe prints from inside: its status, its limits, and its descriptors (`ls` lists its own directory's as the fourth). */
const PROBE = 'cat /proc/self/status /proc/self/limits; echo fds: $(ls /proc/self/fd)';

/**
 * Starts the sandbox once with these layers (in `cgroup`, when there is
 * one) and reads, from inside, what holds; or the first line of why it did
 * not start.
 */
export function probe(tools: Tools, masks: readonly string[], layers: Layers, cgroup: JobCgroup | null): Confinement | string {
  const base = mkdtempSync(join(tmpdir(), 'vouch-sandbox-probe-'));
  try {
    const jobRoot = join(base, 'job');
    mkdirSync(jobRoot);
    if (layers.dropTo) handOver(jobRoot, layers.dropTo);
    const filterPath = layers.seccomp ? join(base, 'seccomp.bpf') : null;
    if (filterPath && layers.seccomp) writeFileSync(filterPath, layers.seccomp.program, { mode: 0o600 });
    const marker = join(base, 'cgroup-unjoined');
    const joining = cgroup ? { procs: cgroup.procs, marker } : null;
    const argv = commandLine(tools, masks, layers, filterPath, joining, jobRoot, jobRoot, ['/bin/sh', '-c', PROBE]);
    const ran = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', timeout: 10_000 });
    // A cgroup that takes no process bounds nothing: what else holds is seen without it (the record then says no cgroup held).
    if (existsSync(marker)) return probe(tools, masks, layers, null);
    if (ran.status !== 0) return (ran.stderr || ran.error?.message || `exit ${ran.status}`).trim().split('\n')[0]!;
    return observed(ran.stdout, layers, cgroup);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/** What /proc/self/status, /proc/self/limits and the descriptors, read inside, say held. */
function observed(text: string, layers: Layers, cgroup: JobCgroup | null): Confinement {
  const field = (name: string) => new RegExp(`^${name}:\\s*(\\S+)`, 'm').exec(text)?.[1];
  const limit = (name: string) => {
    const value = new RegExp(`^Max ${name}\\s+(\\S+)\\s+(\\S+)`, 'm').exec(text)?.[1];
    return value === undefined || value === 'unlimited' ? Number.POSITIVE_INFINITY : Number(value);
  };
  const capEff = field('CapEff') ?? 'unknown';
  const seccompMode = field('Seccomp');
  const uid = layers.dropTo?.uid ?? process.getuid?.() ?? -1;
  const gid = layers.dropTo?.gid ?? process.getgid?.() ?? -1;
  const want = layers.limits;
  const limitsHeld =
    want !== null &&
    limit('data size') <= want.memory_bytes &&
    limit('processes') <= want.processes &&
    limit('file size') <= want.file_bytes &&
    limit('open files') <= want.open_files;
  const seccomp = layers.seccomp && seccompMode === '2' ? layers.seccomp.policy : null;
  // 0, 1, 2 and the listing's own: anything else came from the worker.
  const fds = (/^fds:(.*)$/m.exec(text)?.[1] ?? '').split(/\s+/).filter(Boolean).map(Number);
  const bounds = cgroup?.bounds();
  const gaps: SandboxGap[] = [];
  if (uid === 0) gaps.push('host_root');
  if (!/^0+$/.test(capEff)) gaps.push('capabilities');
  if (!seccomp) gaps.push('seccomp');
  if (!limitsHeld) gaps.push('limits');
  if (!bounds) gaps.push('cgroup');
  if (fds.length !== 4 || fds.some((fd) => fd > 3)) gaps.push('descriptors');
  return {
    uid,
    gid,
    cap_eff: capEff,
    seccomp,
    limits: limitsHeld ? want : null,
    cgroup: bounds && cgroup ? { version: cgroup.place.version, memory_bytes: bounds.memoryBytes, processes: bounds.processes } : null,
    gaps,
  };
}
