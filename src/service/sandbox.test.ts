import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeInheritedDescriptors } from './descriptors.js';
import { DEFAULT_LIMITS, detectSandbox as detectPlain, type Sandbox, type SandboxOptions } from './sandbox.js';

// What a worker does first (service-setup.ts): no descriptor this process inherited reaches a check.
closeInheritedDescriptors();
/** The sandbox as a root worker has it: job directories on a tmpfs of their own (job-tree.ts mounts them; here the record only says so). */
const detectSandbox = (options: SandboxOptions = {}) => detectPlain({ jobDisk: { kind: 'tmpfs', bytes: 64 * 1024 ** 2 }, ...options });

const KEY = '-----BEGIN PRIVATE KEY-----\nnot-a-real-key\n-----END PRIVATE KEY-----\n';
const usable = existsSync('/usr/bin/bwrap') && detectSandbox().forJob !== undefined;
if (!usable) {
  if (process.env.CI) throw new Error('bubblewrap is required in CI (.ci/run installs it)');
  process.stderr.write('!!! bubblewrap not installed or not usable: the sandbox unit tests are skipped\n');
}

/** Runs `sh -c SCRIPT` the way a worker runs a check: wrapped for the job directory (handed to the checks' user), in it, in a job cgroup of its own; with what the job's bounds said of it. */
async function inside(sandbox: Sandbox, jobRoot: string, script: string) {
  sandbox.handOver?.(jobRoot);
  const job = sandbox.forJob!(jobRoot, dirname(jobRoot));
  const argv = job.wrap(['sh', '-c', script], jobRoot);
  const ran = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', timeout: 20_000 });
  const bound = job.boundReached();
  expect(await job.close()).toBe(true);
  return { ...ran, bound };
}

// Needs bubblewrap able to make a job's namespaces; .ci/run installs it, so it runs in CI.
describe.runIf(usable)('bubblewrap sandbox', () => {
  // Directories the sandbox binds read-only, where an operator might keep the server's home or key.
  const tag = `vouch-sandbox-test-${process.pid}-${Date.now()}`;
  const optHome = join('/opt', tag, 'home');
  const etcKeys = join('/etc', tag);
  let tmpHome: string;
  let jobBase: string;
  let job: string;

  beforeAll(() => {
    mkdirSync(join(optHome, 'keys'), { recursive: true });
    // Readable by anyone: so the control below shows what the masks alone hold (a root worker's checks also run as another user).
    writeFileSync(join(optHome, 'keys', 'server.key'), KEY, { mode: 0o644 });
    // A home under /tmp whose key file is a link to a file under /etc.
    mkdirSync(etcKeys, { recursive: true });
    writeFileSync(join(etcKeys, 'server.key'), KEY, { mode: 0o600 });
    tmpHome = mkdtempSync(join(tmpdir(), 'vouch-sandbox-home-'));
    mkdirSync(join(tmpHome, 'keys'));
    symlinkSync(join(etcKeys, 'server.key'), join(tmpHome, 'keys', 'server.key'));
    jobBase = mkdtempSync(join(tmpdir(), 'vouch-sandbox-job-'));
    job = join(jobBase, 'job');
    mkdirSync(job);
  });
  afterAll(() => {
    for (const dir of [join('/opt', tag), etcKeys, tmpHome, jobBase]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the setup is real: without hiding, a check under /opt could read the key (this is the attack)', async () => {
    const open = detectSandbox();
    const read = await inside(open, job, `cat ${join(optHome, 'keys', 'server.key')}`);
    expect(read.stdout).toContain('PRIVATE KEY');
  });

  it('key theft: a VOUCH_HOME under /opt (bound read-only) is empty inside the sandbox; its key cannot be read', async () => {
    const sandbox = detectSandbox({ hide: [optHome, join(optHome, 'keys', 'server.key')] });
    const read = await inside(sandbox, job, `cat ${join(optHome, 'keys', 'server.key')}`);
    expect(read.status).not.toBe(0);
    expect(read.stdout).not.toContain('PRIVATE KEY');
    expect((await inside(sandbox, job, `ls -A ${optHome}`)).stdout).toBe('');
    // The rest of /opt is still there.
    expect((await inside(sandbox, job, `test -d /opt/${tag}`)).status).toBe(0);
  });

  it('key theft: a key file linked to /etc is empty inside, whether read through the link target or the home', async () => {
    const sandbox = detectSandbox({ hide: [tmpHome, join(tmpHome, 'keys', 'server.key')] });
    const direct = await inside(sandbox, job, `cat ${join(etcKeys, 'server.key')}`);
    expect(direct.stdout).not.toContain('PRIVATE KEY');
    const viaHome = await inside(sandbox, job, `cat ${join(tmpHome, 'keys', 'server.key')}`);
    expect(viaHome.stdout).not.toContain('PRIVATE KEY');
    // Other files of /etc are readable.
    expect((await inside(sandbox, job, 'test -r /etc/passwd')).status).toBe(0);
  });

  it('key theft: a job directory inside the hidden VOUCH_HOME (TMPDIR there) is writable, the key beside it still hidden', async () => {
    const nested = join(optHome, 'jobs', 'j1', 'job');
    mkdirSync(nested, { recursive: true });
    const sandbox = detectSandbox({ hide: [optHome] });
    expect((await inside(sandbox, nested, 'echo ok > made-here && test -s made-here')).status).toBe(0);
    expect((await inside(sandbox, nested, `cat ${join(optHome, 'keys', 'server.key')}`)).stdout).not.toContain('PRIVATE KEY');
  });

  it('writes: /etc and /opt are read-only, /tmp is a private tmpfs that leaves nothing on the host, the job directory is writable', async () => {
    const sandbox = detectSandbox({ hide: [optHome] });
    const marker = `vouch-sandbox-escape-${process.pid}`;
    expect((await inside(sandbox, job, `echo x > /etc/${marker}`)).status).not.toBe(0);
    expect(existsSync(`/etc/${marker}`)).toBe(false);
    expect((await inside(sandbox, job, `echo x > /opt/${marker}`)).status).not.toBe(0);
    expect(existsSync(`/opt/${marker}`)).toBe(false);
    expect((await inside(sandbox, job, `echo x > /tmp/${marker} && test -s /tmp/${marker}`)).status).toBe(0);
    expect(existsSync(`/tmp/${marker}`)).toBe(false);
    expect((await inside(sandbox, job, 'echo ok > made-here && test -s made-here')).status).toBe(0);
    expect(existsSync(join(job, 'made-here'))).toBe(true);
  });
});

/**
 * The "shocker" escape: open_by_handle_at with a handle for inode 2 (the
 * root of an ext4/xfs file system) through any descriptor on that file
 * system, here the job directory. It needs CAP_DAC_READ_SEARCH; with it, a
 * check lists the host's / past every mount namespace.
 */
const SHOCKER = `#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <dirent.h>
int main(void) {
  struct { struct file_handle fh; unsigned int ino[2]; } root;
  root.fh.handle_bytes = 8; root.fh.handle_type = 1; root.ino[0] = 2; root.ino[1] = 0;
  int mfd = open(".", O_RDONLY | O_DIRECTORY);
  int fd = open_by_handle_at(mfd, &root.fh, O_RDONLY | O_DIRECTORY);
  if (fd < 0) { printf("refused: %s\\n", strerror(errno)); return 7; }
  DIR *d = fdopendir(fd); struct dirent *e;
  while ((e = readdir(d))) printf("%s\\n", e->d_name);
  return 0;
}
`;

/** Calls the filter denies that need no capability at all: each prints its name and errno (0: it worked). */
const UNPRIVILEGED_CALLS = `#define _GNU_SOURCE
#include <stdio.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/ptrace.h>
int main(void) {
  unsigned char params[120] = {0};
  errno = 0; long r = syscall(SYS_add_key, "user", "vouch-probe", "v", 1, -2); printf("add_key %d\\n", r < 0 ? errno : 0);
  errno = 0; r = syscall(SYS_io_uring_setup, 1, params); printf("io_uring_setup %d\\n", r < 0 ? errno : 0);
  errno = 0; r = ptrace(PTRACE_TRACEME, 0, 0, 0); printf("ptrace %d\\n", r < 0 ? errno : 0);
  return 0;
}
`;

// Needs bubblewrap, as above; runs in CI.
describe.runIf(usable)('the sandbox holds whatever user the worker is (this machine runs the tests as root)', () => {
  let base: string;
  let job: string;
  let shocker: string | undefined;
  let sandbox: Sandbox;
  beforeAll(() => {
    sandbox = detectSandbox();
    base = mkdtempSync(join(tmpdir(), 'vouch-sandbox-hold-'));
    job = join(base, 'job');
    mkdirSync(job);
    writeFileSync(join(base, 'shocker.c'), SHOCKER);
    const built = spawnSync('gcc', ['-O', '-o', join(job, 'shocker'), join(base, 'shocker.c')], { encoding: 'utf8' });
    spawnSync('gcc', ['-O', '-o', join(job, 'calls'), '-x', 'c', '-'], { input: UNPRIVILEGED_CALLS });
    if (built.status === 0) shocker = join(job, 'shocker');
    else process.stderr.write(`!!! gcc could not build the open_by_handle_at probe (${built.error?.message ?? built.stderr}): that test is skipped\n`);
  });
  afterAll(() => {
    rmSync(base, { recursive: true, force: true });
  });

  it('every layer held here: the record says so, and names the user, the filter and the limits', async () => {
    expect(sandbox.gaps).toEqual([]);
    expect(sandbox.record).toMatchObject({
      kind: 'bubblewrap',
      confinement: { cap_eff: '0000000000000000', seccomp: expect.stringMatching(/^vouch-deny-1\//), gaps: [] },
    });
    const held = sandbox.record.kind === 'bubblewrap' ? sandbox.record.confinement! : undefined;
    expect(held?.uid).not.toBe(0);
    expect(held?.limits).toEqual(DEFAULT_LIMITS);
  });

  it('a check sees no capabilities, a seccomp filter, no new privileges, and is not host root', async () => {
    const status = (await inside(sandbox, job, 'cat /proc/self/status')).stdout;
    for (const field of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb']) expect(status, field).toMatch(new RegExp(`^${field}:\\s+0{16}$`, 'm'));
    expect(status).toMatch(/^Seccomp:\s+2$/m);
    expect(status).toMatch(/^NoNewPrivs:\s+1$/m);
    if (process.getuid?.() === 0) {
      // Root's own files in the read-only system directories are not readable by the checks' user.
      expect((await inside(sandbox, job, 'cat /etc/shadow')).status).not.toBe(0);
    }
  });

  // Needs gcc to build the probe; .ci/run installs it (g++), so it runs in CI.
  it.runIf(existsSync('/usr/bin/gcc'))(
    "open_by_handle_at (shocker) cannot open the host file system's root from inside; outside it can (the setup is real)",
    async () => {
      expect(shocker).toBeDefined();
      const outsideRun = spawnSync(shocker!, [], { cwd: job, encoding: 'utf8' });
      if (process.getuid?.() === 0) {
        // The attack, where a capability is left: the worker's own user lists the host root.
        expect(outsideRun.status, outsideRun.stdout).toBe(0);
        expect(outsideRun.stdout).toMatch(/^(usr|etc)$/m);
      }
      const run = await inside(sandbox, job, './shocker');
      expect(run.status, run.stdout).toBe(7);
      expect(run.stdout).toContain('refused: Operation not permitted');
      expect(run.stdout).not.toMatch(/^usr$/m);
    },
  );

  it("the host's / and its processes are not there: only system directories, a fresh /proc with the job's processes alone", async () => {
    const listing = (await inside(sandbox, job, 'ls -A /')).stdout.split('\n').filter(Boolean);
    expect(listing).not.toContain('root');
    expect(listing).not.toContain('home');
    expect(listing).not.toContain('var');
    expect(listing).not.toContain('work');
    const processes = (await inside(sandbox, job, 'ls /proc | grep -E "^[0-9]+$"')).stdout.split('\n').filter(Boolean);
    expect(processes.length).toBeLessThan(6);
    expect((await inside(sandbox, job, `test -e /proc/${process.pid}/environ`)).status).not.toBe(0);
  });

  it('no namespace or mount games: new user namespaces and mounts are refused', async () => {
    expect((await inside(sandbox, job, 'unshare -U true')).status).not.toBe(0);
    expect((await inside(sandbox, job, 'unshare -r true')).status).not.toBe(0);
    expect((await inside(sandbox, job, 'mount -t tmpfs none /tmp')).status).not.toBe(0);
  });

  // Needs gcc to build the probe, as above; runs in CI.
  it.runIf(existsSync('/usr/bin/gcc'))('seccomp denies what needs no capability (keyrings, io_uring, ptrace), which works outside', async () => {
    expect(existsSync(join(job, 'calls'))).toBe(true);
    const outsideRun = spawnSync(join(job, 'calls'), [], { encoding: 'utf8' }).stdout;
    expect(outsideRun).toMatch(/^add_key 0$/m);
    expect(outsideRun).toMatch(/^ptrace 0$/m);
    const run = (await inside(sandbox, job, './calls')).stdout;
    // 1: EPERM, the filter's answer.
    expect(run).toMatch(/^add_key 1$/m);
    expect(run).toMatch(/^io_uring_setup 1$/m);
    expect(run).toMatch(/^ptrace 1$/m);
  });

  it('limits: a fork bomb stops at the process limit, a file stops at the size limit, memory past the limit is refused', async () => {
    const small = detectSandbox({ limits: { memory_bytes: 256 * 1024 ** 2, processes: 32, file_bytes: 1024 ** 2, open_files: 64, tmp_bytes: 4 * 1024 ** 2 } });
    expect(small.gaps).toEqual([]);
    const bomb = await inside(small, job, 'i=0; while [ $i -lt 100 ]; do sleep 3 & i=$((i+1)); done; echo started');
    expect(bomb.stderr).toMatch(/fork|Resource temporarily unavailable/i);
    const big = await inside(small, job, 'head -c 2000000 /dev/zero > big; echo rc=$?; wc -c < big');
    expect(big.stdout).toMatch(/rc=153\s+1048576/);
    const memory = await inside(
      small,
      job,
      "node -e \"const a = []; try { for (let i = 0; i < 20; i++) a.push(Buffer.alloc(32 * 1024 * 1024, 1)); console.log('allocated') } catch (e) { console.log('refused') }\"",
    );
    expect(memory.stdout.trim()).toBe('refused');
    const tmp = await inside(small, job, 'head -c 5000000 /dev/zero > /tmp/fill; echo rc=$?');
    expect(tmp.stdout).not.toContain('rc=0');
  });
});
