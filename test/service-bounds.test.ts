import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { packTarGz } from '../src/archive/pack.js';
import { mountsAtOrBelow } from '../src/service/remove-tree.js';
import { describePg, tempDatabase, type TempDatabase } from './helpers/pg.js';
import { CLI } from './helpers/rig.js';
import { jobsPath, Service } from './helpers/service.js';

/**
 * Issue 24: the verifier service bounded per job, nothing of the host
 * reaching a check, tried as an attacker with a client token would: each
 * case against `vouch serve` as the README starts it, the worker root (as
 * on this machine), on the local PostgreSQL.
 */
const root = process.getuid?.() === 0;
if (!root) process.stderr.write('!!! not running as root: the cases of a root worker (tmpfs per job) are skipped\n');

describePg('the verifier service bounded per job (issue 24): memory, the job tree, descriptors, links', () => {
  let db: TempDatabase;
  let schema = 0;
  const cleanup: string[] = [];
  beforeAll(async () => {
    db = await tempDatabase();
  });
  afterAll(async () => {
    for (const path of cleanup) rmSync(path, { recursive: true, force: true });
    await db?.drop();
  });

  /** A server allowing exactly `checks` (plus the verifier key), a token for mallory, started with `serveArgs`. */
  async function setup(checks: string | ((home: string) => string), serveArgs: string[] = ['--workers', '1'], fds?: Record<number, number>) {
    const service = await Service.prepare(`${db.url}?schema=bounds_${++schema}`);
    const spec = `${typeof checks === 'string' ? checks : checks(service.home)}verifier_key: ${service.publicKeyHex}\n`;
    await service.allow(spec);
    const token = await service.token('mallory');
    await service.start(serveArgs, {}, fds);
    const specSha = createHash('sha256').update(spec).digest('hex');
    /** Submits the tree (vouch.yaml and src/a.txt) for these checks, in this order, and waits for the job to end. */
    const submit = async (ids: string[], timeoutMs = 60_000) => {
      const archive = await packTarGz([
        { path: 'vouch.yaml', bytes: Buffer.from(spec), executable: false },
        { path: 'src/a.txt', bytes: Buffer.from('hello\n'), executable: false },
      ]);
      const submitted = await service.fetch(jobsPath(specSha, ids), { method: 'POST', token, body: archive });
      expect(submitted.status, JSON.stringify(submitted.json)).toBe(202);
      return service.settle(submitted.json.job.id, token, timeoutMs);
    };
    /** A receipt of the job as the client gets it: body (parsed and as stored) and manifest. */
    const receipt = async (id: string) => {
      const got = (await service.fetch(`/v1/receipts/${id}`, { token })).json;
      return { body: JSON.parse(got.receipt.body), text: `${got.receipt.body}\n${JSON.stringify(got.manifest)}`, manifest: got.manifest };
    };
    return { service, token, submit, receipt };
  }

  /** The job directories and their mounts a server's workers (process `pid`) have left in the temp dir. */
  const leftBy = (pid: number) => ({
    dirs: readdirSync(tmpdir()).filter((name) => name.startsWith(`vouch-job-${pid}-`)),
    mounts: mountsAtOrBelow(tmpdir()).filter((point) => point.includes(`/vouch-job-${pid}-`)),
  });

  // Root only: the bound is a cgroup the worker makes; .ci/run runs as root, so it runs in CI.
  it.runIf(root)(
    'attack: 1 GiB of MAP_SHARED memory with --job-memory-mb 256 (RLIMIT_DATA does not count it): the kernel kills it, and the job ends done with an UNKNOWN/job_bound receipt saying why',
    async () => {
      const { submit, receipt } = await setup(
        `version: 1
checks:
  - {id: shared, run: ["python3", "-c", "import mmap; m = mmap.mmap(-1, 1 << 30, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS); [m.write(b'x' * (1 << 20)) for _ in range(1024)]; print('mapped 1 GiB')"], sources: ["src/**"]}
`,
        ['--workers', '1', '--job-memory-mb', '256'],
      );
      const job = await submit(['shared']);
      expect(job).toMatchObject({ state: 'done', receipts: [{ check_id: 'shared', verdict: 'UNKNOWN', reason: 'job_bound' }] });
      const { body } = await receipt(job.receipts[0].id);
      expect(body.detail).toMatch(/^the job's memory bound \(256 MiB: anonymous, shared and tmpfs pages together\) was reached: the kernel killed 1 process/);
      expect(body.stdout.excerpt ?? '').not.toContain('mapped 1 GiB');
      expect(body.service.sandbox.confinement.cgroup).toMatchObject({ memory_bytes: 256 * 1024 * 1024 });
    },
  );

  // Root only (cgroups), as above; runs in CI.
  it.runIf(root)(
    'attack: a check builds a directory chain deeper than PATH_MAX: its receipt is kept (PASS), the job ends done on its first attempt, and its tree and tmpfs are gone',
    async () => {
      const { service, submit } = await setup(`version: 1
checks:
  - {id: deep, run: ["python3", "-c", "import os\\nfor _ in range(3000):\\n    os.mkdir('d'); os.chdir('d')\\nopen('bottom', 'w').write('x' * 100000)"], sources: ["src/**"]}
`);
      const job = await submit(['deep']);
      expect(job).toMatchObject({ state: 'done', attempts: 1, error: null, receipts: [{ check_id: 'deep', verdict: 'PASS' }] });
      expect(leftBy(service.process!.pid!)).toEqual({ dirs: [], mounts: [] });
    },
  );

  // Root only (cgroups), as above; runs in CI.
  it.runIf(root)(
    "attack: a check fills its job directory: the tmpfs stops it at --job-disk-mb, the receipt is UNKNOWN/job_bound, nothing reached the host's disk",
    async () => {
      const { service, token } = await setup(
        `version: 1
checks:
  - {id: fill, run: ["sh", "-c", "head -c 64000000 /dev/zero > big; ls -l big"], sources: ["src/**"]}
`,
        ['--workers', '0'],
      );
      const worker = service.worker(['--max-tree-mb', '8', '--job-disk-mb', '16', '--max-jobs', '1']);
      let log = '';
      worker.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
      const exited = new Promise((resolve) => worker.on('exit', resolve));
      const archive = await packTarGz([
        { path: 'vouch.yaml', bytes: Buffer.from(service.rig.read('allowed.yaml')), executable: false },
        { path: 'src/a.txt', bytes: Buffer.from('hello\n'), executable: false },
      ]);
      const specSha = createHash('sha256').update(service.rig.read('allowed.yaml')).digest('hex');
      const submitted = await service.fetch(jobsPath(specSha, ['fill']), { method: 'POST', token, body: archive });
      const job = await service.settle(submitted.json.job.id, token, 60_000);
      await exited;
      expect(log).toContain('job directory (tmpfs 16 MiB)');
      expect(job, log).toMatchObject({ state: 'done', receipts: [{ check_id: 'fill', verdict: 'UNKNOWN', reason: 'job_bound' }] });
      const body = JSON.parse((await service.fetch(`/v1/receipts/${job.receipts[0].id}`, { token })).json.receipt.body);
      expect(body.detail).toBe("the job directory's 16 MiB are full");
    },
  );

  it('attack: the server is started holding a root-only secret on descriptor 20: no check can read it, and the start-up log says it was closed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-fd-secret-'));
    cleanup.push(dir);
    const secret = join(dir, 'secret.txt');
    writeFileSync(secret, 'the-secret-on-fd-20\n', { mode: 0o600 });
    const fd = openSync(secret, 'r');
    try {
      const { service, submit, receipt } = await setup(
        `version: 1
checks:
  - {id: fd20, run: ["python3", "-c", "import os\\ntry:\\n    print(os.read(20, 100))\\nexcept OSError as e:\\n    print('refused', e.errno)\\nprint(sorted(int(n) for n in os.listdir('/proc/self/fd')))"], sources: ["src/**"]}
`,
        ['--workers', '1'],
        { 20: fd },
      );
      expect(service.log).toMatch(/fds {6}closed 20\b/);
      const job = await submit(['fd20']);
      const { body } = await receipt(job.receipts[0].id);
      expect(body.stdout.excerpt).not.toContain('the-secret-on-fd-20');
      // EBADF (9): there is no descriptor 20; the check has 0, 1, 2 and the one that lists them.
      expect(body.stdout.excerpt).toBe('refused 9\n[0, 1, 2, 3]\n');
    } finally {
      closeSync(fd);
    }
  });

  it('attack: links a check makes to /proc/self/cwd, /proc/self/fd/N and the key file are never resolved by the worker: no host path in any receipt or manifest, and a link to the key reads exactly as a link to nothing (no oracle)', async () => {
    const { service, submit, receipt } = await setup(
      (home) => `version: 1
checks:
  - {id: cwd, run: ["sh", "-c", "ln -s /proc/self/cwd src/cwd"], sources: ["src/**"]}
  - {id: fds, run: ["sh", "-c", "for i in $(seq 0 40); do ln -s /proc/self/fd/$i src/fd$i; done"], sources: ["src/**"]}
  - {id: key, run: ["sh", "-c", "ln -s ${join(home, 'keys', 'server.key')} src/key"], sources: ["src/**"]}
  - {id: nothing, run: ["sh", "-c", "ln -s /nonexistent/server.key src/key"], sources: ["src/**"]}
  - {id: keyart, run: ["sh", "-c", "mkdir -p out && ln -s ${join(home, 'keys', 'server.key')} out/a"], sources: ["src/**"], artifacts: ["out/a"]}
  - {id: noart, run: ["sh", "-c", "mkdir -p out && ln -s /nonexistent/server.key out/a"], sources: ["src/**"], artifacts: ["out/a"]}
  - {id: mkcwd, run: ["sh", "-c", "ln -s /proc/self/cwd sub"], sources: ["src/**"]}
  - {id: incwd, run: ["true"], cwd: sub, sources: ["src/**"]}
  - {id: mkexe, run: ["sh", "-c", "ln -s /bin/true tool"], sources: ["src/**"]}
  - {id: exe, run: ["./tool"], sources: ["src/**"]}
`,
    );
    const run = async (ids: string[]) => {
      const job = await submit(ids);
      expect(job.state).toBe('done');
      return Promise.all(job.receipts.map((r: { id: string }) => receipt(r.id)));
    };
    const [cwd] = await run(['cwd']);
    const [fds] = await run(['fds']);
    const [key] = await run(['key']);
    const [nothing] = await run(['nothing']);
    const [keyart] = await run(['keyart']);
    const [noart] = await run(['noart']);
    const [mkcwd, incwd] = await run(['mkcwd', 'incwd']);
    const [mkexe, exe] = await run(['mkexe', 'exe']);
    const all = [cwd!, fds!, key!, nothing!, keyart!, noart!, mkcwd!, incwd!, mkexe!, exe!];
    // What the worker would have learnt resolving a link (its cwd, its files, the key's place), or the job's place on the host; the check's own command (argv, proves) may name what it likes.
    const forbidden = [service.home, service.rig.root, 'vouch-job-', '/proc/self', 'server.key', 'socket:', 'pipe:', 'anon_inode:'];
    for (const one of all) {
      const { argv: _argv, proves: _proves, ...rest } = one.body;
      const text = `${JSON.stringify(rest)}\n${JSON.stringify(one.manifest)}`;
      for (const word of forbidden) expect(text, `${one.body.check_id} names ${word}`).not.toContain(word);
    }
    // A link the check made in its scope is listed as refused, saying nothing of where it points.
    expect(cwd!.manifest.refused).toEqual([['src/cwd', 'not_regular_file']]);
    expect(fds!.manifest.refused).toHaveLength(41);
    expect(fds!.manifest.refused.every(([, why]: [string, string]) => why === 'not_regular_file')).toBe(true);
    // No oracle: a link to the key and a link to nothing give the same answer, field for field.
    const judged = (one: { body: any; manifest: any }) => ({
      verdict: one.body.verdict,
      reason: one.body.reason,
      detail: one.body.detail,
      refused: one.manifest.refused.map(([, why]: [string, string]) => why),
    });
    expect(judged(key)).toEqual(judged(nothing));
    expect(judged(keyart)).toEqual(judged(noart));
    expect(keyart!.body).toMatchObject({ verdict: 'UNKNOWN', reason: 'artifact_missing' });
    // Each check runs in a tree of its own declared files: a link one check made is not in the next one's
    // tree at all, so the program and the cwd it made never reach another check, and nothing is resolved.
    expect(mkexe!.body.verdict).toBe('PASS');
    expect(exe!.body).toMatchObject({ verdict: 'FAIL', executable: null });
    expect(incwd!.body).toMatchObject({ verdict: 'UNKNOWN', reason: 'cwd_invalid' });
  });

  // Root and unshare (a mount namespace); both in CI, so it runs there.
  it.runIf(root && existsSync('/usr/bin/unshare'))(
    'where no cgroup can be made (cgroupfs hidden from the worker): it refuses to start and says why; with --allow-unconfined every receipt names the cgroup gap',
    async () => {
      const { service, token } = await setup('version: 1\nchecks:\n  - {id: ok, run: ["true"], sources: ["src/**"]}\n', ['--workers', '0']);
      // A mount namespace of the worker's own in which no cgroup file system is mounted.
      const worker = (extra: string[]) =>
        new Promise<{ code: number | null; stderr: string }>((resolve) => {
          const child = spawn(
            '/usr/bin/unshare',
            [
              '-m',
              '--propagation',
              'private',
              'sh',
              '-c',
              'mount -t tmpfs none /sys/fs/cgroup && exec "$@"',
              'sh',
              process.execPath,
              CLI,
              'worker',
              '--ledger',
              service.ledger,
              '--key',
              'server',
              '--poll-ms',
              '50',
              ...extra,
            ],
            { env: service.rig.env({ VOUCH_HOME: service.home }) },
          );
          let stderr = '';
          child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
          child.on('exit', (code) => resolve({ code, stderr }));
        });
      const refused = await worker([]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/no cgroup per job: .*cgroup v2.*; .*cgroup v1 memory/);
      expect(refused.stderr).toContain('not held: cgroup');
      const spec = service.rig.read('allowed.yaml');
      const archive = await packTarGz([
        { path: 'vouch.yaml', bytes: Buffer.from(spec), executable: false },
        { path: 'src/a.txt', bytes: Buffer.from('hello\n'), executable: false },
      ]);
      const submitted = await service.fetch(jobsPath(createHash('sha256').update(spec).digest('hex'), ['ok']), { method: 'POST', token, body: archive });
      const unconfined = await worker(['--allow-unconfined', '--max-jobs', '1']);
      expect(unconfined.code, unconfined.stderr).toBe(0);
      expect(unconfined.stderr).toMatch(/no job cgroup; NOT HELD \(--allow-unconfined\): cgroup/);
      const job = await service.settle(submitted.json.job.id, token);
      expect(job).toMatchObject({
        state: 'done',
        receipts: [{ verdict: 'PASS' }],
        sandbox: { kind: 'bubblewrap', confinement: { cgroup: null, gaps: ['cgroup'] } },
      });
    },
  );
});
