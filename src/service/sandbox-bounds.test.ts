import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCgroupPlace } from './cgroup-place.js';
import { closeInheritedDescriptors } from './descriptors.js';
import { detectSandbox, type Sandbox, type SandboxOptions } from './sandbox.js';

// What a worker does first (service-setup.ts): no descriptor this process inherited reaches a check.
closeInheritedDescriptors();
const usable = existsSync('/usr/bin/bwrap') && detectSandbox().forJob !== undefined;
if (!usable && process.env.CI) throw new Error('bubblewrap is required in CI (.ci/run installs it)');
const place = findCgroupPlace();
if (!place.ok) process.stderr.write(`!!! no cgroup can be made here (${place.why}): the job-bound tests are skipped, the gap tests run\n`);

const MIB = 1024 ** 2;
/** Small bounds, so that a test reaches them quickly: 256 MiB of memory for the job, 4 MiB for /tmp and /dev/shm. */
const SMALL: SandboxOptions = {
  limits: { memory_bytes: 256 * MIB, processes: 64, file_bytes: 64 * MIB, open_files: 256, tmp_bytes: 4 * MIB },
  jobDisk: { kind: 'tmpfs', bytes: 64 * MIB },
};

/** Runs `sh -c SCRIPT` as a worker runs a check of a job of its own, and what the job's bounds said of the run. */
async function inside(sandbox: Sandbox, jobRoot: string, script: string) {
  sandbox.handOver?.(jobRoot);
  const job = sandbox.forJob!(jobRoot, dirname(jobRoot));
  const argv = job.wrap(['sh', '-c', script], jobRoot);
  const ran = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', timeout: 60_000 });
  const bound = job.boundReached();
  expect(await job.close()).toBe(true);
  return { ...ran, bound };
}

// Needs bubblewrap able to make a job's namespaces; .ci/run installs it, so it runs in CI.
describe.runIf(usable)('a job is bounded as one: memory, shared memory, tmpfs and processes together', () => {
  const tag = `vouch-bounds-test-${process.pid}-${Date.now()}`;
  const optHome = join('/opt', tag, 'home');
  let base: string;
  let job: string;
  beforeAll(() => {
    mkdirSync(join(optHome, 'keys'), { recursive: true });
    base = mkdtempSync(join(tmpdir(), 'vouch-bounds-'));
    job = join(base, 'job');
    mkdirSync(job);
  });
  afterAll(() => {
    rmSync(join('/opt', tag), { recursive: true, force: true });
    rmSync(base, { recursive: true, force: true });
  });

  it("attack: / and /dev (bubblewrap's own tmpfs, of no size) and a masked directory are read-only; /tmp and /dev/shm stop at their size", async () => {
    const sandbox = detectSandbox({ ...SMALL, hide: [optHome] });
    const write = (path: string) => `if echo x > ${path} 2>/dev/null; then echo "${path} written"; else echo "${path} refused"; fi`;
    const ran = await inside(sandbox, job, [write('/x'), write('/dev/x'), write(`${optHome}/x`), write('/usr/x')].join('; '));
    expect(ran.stdout.trim().split('\n')).toEqual(['/x refused', '/dev/x refused', `${optHome}/x refused`, '/usr/x refused']);
    for (const dir of ['/dev/shm', '/tmp']) {
      const filled = await inside(sandbox, job, `head -c ${8 * MIB} /dev/zero > ${dir}/fill; echo rc=$?; wc -c < ${dir}/fill`);
      expect(filled.stdout, dir).toMatch(/rc=[1-9]\d*\s+(\d+)/);
      expect(Number(/\s(\d+)\s*$/.exec(filled.stdout)?.[1]), dir).toBeLessThanOrEqual(4 * MIB);
    }
    // The job directory stays writable.
    expect((await inside(sandbox, job, 'echo ok > made-here && cat made-here')).stdout).toBe('ok\n');
  });

  it('the record says every writable place and its size', () => {
    const sandbox = detectSandbox(SMALL);
    expect(sandbox.record).toMatchObject({
      kind: 'bubblewrap',
      writable: [
        { place: 'job directory', kind: 'tmpfs', bytes: 64 * MIB },
        { place: '/tmp', kind: 'tmpfs', bytes: 4 * MIB },
        { place: '/dev/shm', kind: 'tmpfs', bytes: 4 * MIB },
      ],
    });
  });

  // Needs a place for the job's cgroup (findCgroupPlace: root, cgroup v2 writable, as on the CI machine), so it runs in CI.
  it.runIf(place.ok)(
    'attack: 1 GiB of shared memory (mmap MAP_SHARED, which RLIMIT_DATA does not count) under a 256 MiB job: the kernel kills it, and the job says why',
    async () => {
      const sandbox = detectSandbox(SMALL);
      expect(sandbox.gaps).toEqual([]);
      const held = sandbox.record.kind === 'bubblewrap' ? sandbox.record.confinement : undefined;
      expect(held?.cgroup).toEqual({ version: place.ok ? place.place.version : 0, memory_bytes: 256 * MIB, processes: 64 });
      const mapped = await inside(
        sandbox,
        job,
        `python3 -c "import mmap; m = mmap.mmap(-1, 1 << 30, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS); [m.write(b'x' * (1 << 20)) for _ in range(1024)]; print('mapped 1 GiB')"`,
      );
      expect(mapped.stdout).not.toContain('mapped 1 GiB');
      expect(mapped.bound).toMatch(/^the job's memory bound \(256 MiB: anonymous, shared and tmpfs pages together\) was reached: the kernel killed 1 process/);
      // A run that stays within the bounds is told nothing.
      expect((await inside(sandbox, job, 'true')).bound).toBeNull();
    },
  );

  // Needs the job's cgroup, as above.
  it.runIf(place.ok)('attack: memory spread over processes (each under RLIMIT_DATA) is bounded in all', async () => {
    const sandbox = detectSandbox(SMALL);
    const spread = await inside(sandbox, job, `for i in 1 2 3 4; do python3 -c "b = bytearray(100 << 20); import time; time.sleep(3)" & done; wait; echo done`);
    expect(spread.bound).toMatch(/memory bound \(256 MiB/);
  });

  // Needs the job's cgroup, as above.
  it.runIf(place.ok)("a fork bomb meets the job's process bound, and the job says so", async () => {
    const sandbox = detectSandbox(SMALL);
    const bomb = await inside(sandbox, job, 'i=0; while [ $i -lt 200 ]; do sleep 2 & i=$((i+1)); done 2>/dev/null; wait');
    expect(bomb.bound).toMatch(/the job's process bound \(64 processes and threads\) refused \d+ forks?/);
  });

  it('where no cgroup can be made: the gap is named, the record says so, and the worker is told why', () => {
    const sandbox = detectSandbox({ ...SMALL, cgroupPlace: { ok: false, why: 'no cgroup v2 hierarchy is mounted (test)' } });
    expect(sandbox.gaps).toEqual(['cgroup']);
    expect(sandbox.record).toMatchObject({ kind: 'bubblewrap', confinement: { cgroup: null, gaps: ['cgroup'] } });
    expect(sandbox.notes).toContain('no cgroup per job: no cgroup v2 hierarchy is mounted (test)');
    expect(sandbox.cgroupPlace).toBeUndefined();
  });

  it('where the job directory is on the disk (a worker that is not root): the gap is named, and the record says the job directory is bounded per file only', () => {
    const sandbox = detectSandbox({ ...SMALL, jobDisk: { kind: 'disk', why: 'the worker is not root (test)' } });
    expect(sandbox.gaps).toContain('job_disk');
    expect(sandbox.record).toMatchObject({ writable: [{ place: 'job directory', kind: 'disk', bytes: null }, { place: '/tmp' }, { place: '/dev/shm' }] });
    expect(sandbox.notes.join('\n')).toContain('the worker is not root (test)');
  });

  // Needs the job's cgroup, as above.
  it.runIf(place.ok)('a job whose cgroup cannot be made runs nothing, and says why', async () => {
    const sandbox = detectSandbox(SMALL);
    // A cgroup of the job's name already there: making the job's fails (EEXIST).
    const name = `vouch-job-${process.pid}-Clash1`;
    const privateDir = join(base, name);
    mkdirSync(join(privateDir, 'job'), { recursive: true });
    const taken = place.ok ? (place.place.version === 2 ? [join(place.place.parent, name)] : [join(place.place.memory, name)]) : [];
    for (const dir of taken) mkdirSync(dir);
    try {
      const ran = await inside(sandbox, join(privateDir, 'job'), 'echo ran');
      expect(ran.stdout).toBe('');
      expect(ran.bound).toMatch(/^the job's cgroup could not be made \(cannot make cgroup vouch-job-\d+-Clash1 in .* \(EEXIST\)\): the check was not run$/);
    } finally {
      for (const dir of taken) rmdirSync(dir);
    }
  });
});
