import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { createGzip, gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describePg, sql, tempDatabase, type TempDatabase } from './helpers/pg.js';
import { CLI, Rig } from './helpers/rig.js';
import { delegatedCgroup } from './helpers/cgroup.js';
import { jobsPath, Service } from './helpers/service.js';

/**
 * Issue 14: the verifier service tried as an attacker with a client token
 * would. Each attack is started against `vouch serve` as the README starts
 * it, on the local PostgreSQL; on this machine the worker runs as root, so
 * the sandbox is tested where it is hardest to hold.
 */
const CHECKS = `version: 1
checks:
  - {id: ok, run: ["sh", "-c", "test -f src/a.txt"], sources: ["src/**"]}
`;

interface Entry {
  readonly name: string;
  readonly body?: string | Buffer;
  readonly mode?: number;
}

/** A gzip'd tar with exactly these entries, as any client could send. */
async function tarGz(entries: readonly Entry[]): Promise<Buffer> {
  const tar = await import('tar-stream');
  const pack = tar.pack();
  const gzip = createGzip();
  const chunks: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise((resolve) => gzip.on('end', resolve));
  (pack as unknown as Readable).pipe(gzip);
  for (const entry of entries) pack.entry({ name: entry.name, mode: entry.mode ?? 0o644 }, entry.body ?? '');
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** One raw HTTP request where the test decides what of the body is sent: headers only, part of it, or all of it. */
function rawPost(
  address: string,
  path: string,
  headers: Record<string, string>,
  send: (write: (chunk: Buffer) => boolean, end: () => void, destroy: () => void) => void,
): Promise<{ status: number; json: any } | { error: string }> {
  return new Promise((resolve) => {
    const url = new URL(path, address);
    const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: 'POST', headers }, (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString() || 'null') }));
    });
    req.on('error', (error) => resolve({ error: error.message }));
    req.on('close', () => resolve({ error: 'closed' }));
    req.flushHeaders();
    send(
      (chunk) => req.write(chunk),
      () => req.end(),
      () => req.destroy(),
    );
  });
}

describePg('the verifier service boundary (issue 14): each attack refused or contained, the worker running as root', () => {
  let db: TempDatabase;
  let schema = 0;
  const servers: Server[] = [];
  const cleanup: string[] = [];
  beforeAll(async () => {
    db = await tempDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
    for (const path of cleanup.splice(0)) rmSync(path, { recursive: true, force: true });
  });

  async function setup(serveArgs: string[] = ['--workers', '1'], checks = CHECKS, env: Record<string, string> = {}) {
    const service = await Service.prepare(`${db.url}?schema=boundary_${++schema}`);
    const spec = `${checks}verifier_key: ${service.publicKeyHex}\n`;
    await service.allow(spec);
    const token = await service.token('mallory');
    await service.start(serveArgs, env);
    const specSha = createHash('sha256').update(spec).digest('hex');
    return { service, token, spec, specSha, schema: `boundary_${schema}` };
  }

  async function client(spec: string): Promise<Rig> {
    const rig = new Rig().write({ 'src/a.txt': 'hello\n' });
    await rig.spec(spec);
    return rig;
  }

  const remote = (rig: Rig, address: string, token: string, args: string[] = []) =>
    rig.run(['verify', ...args, '--remote', address, '--insecure-loopback', '--json'], { env: { VOUCH_TOKEN: token } });

  /** A local HTTP server in front of the service: `handle` answers a request itself, or returns undefined to forward it. */
  async function proxy(
    target: string,
    handle: (method: string, path: string, body: Buffer) => Promise<{ status: number; json: unknown } | 'reset' | undefined>,
  ): Promise<string> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        void (async () => {
          const body = Buffer.concat(chunks);
          const own = await handle(req.method ?? 'GET', req.url ?? '', body);
          if (own === 'reset') {
            req.socket.destroy();
            return;
          }
          const answer =
            own ??
            (await (async () => {
              const upstream = await fetch(`${target}${req.url}`, {
                method: req.method ?? 'GET',
                headers: { authorization: req.headers.authorization ?? '', ...(body.length > 0 && { 'content-type': 'application/gzip' }) },
                ...(body.length > 0 && { body }),
              });
              return { status: upstream.status, json: await upstream.json() };
            })());
          res.writeHead(answer.status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(answer.json));
        })();
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('attack 1, code outside the sandbox: an upload whose .git/config sets core.fsmonitor to copy the key is refused before anything reads it; the key is not copied', async () => {
    const { service, token, spec, specSha } = await setup();
    const stolen = join(tmpdir(), `vouch-stolen-key-${process.pid}-${Date.now()}`);
    cleanup.push(stolen);
    const keyPath = join(service.home, 'keys', 'server.key');
    const archive = await tarGz([
      { name: 'vouch.yaml', body: spec },
      { name: 'src/a.txt', body: 'hello\n' },
      { name: '.git/HEAD', body: 'ref: refs/heads/main\n' },
      { name: '.git/config', body: `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "cp ${keyPath} ${stolen}; false"\n` },
      { name: '.git/objects/.keep' },
      { name: '.git/refs/heads/.keep' },
    ]);
    const submitted = await service.fetch(jobsPath(specSha, ['ok']), { method: 'POST', token, body: archive });
    expect(submitted.status).toBe(202);
    const job = await service.settle(submitted.json.job.id, token);
    expect(job).toMatchObject({ state: 'failed', receipts: [], error: { code: 'archive_refused' } });
    expect(job.error.message).toContain('(reserved_name)');
    expect(job.error.message).toContain('.git');
    expect(existsSync(stolen)).toBe(false);
  });

  it("attack 1: the worker never runs git (a git first on its PATH that logs every call is never called); the receipt records the client's git facts as the client's claim", async () => {
    const bin = mkdtempSync(join(tmpdir(), 'vouch-fake-git-'));
    cleanup.push(bin);
    const calls = join(bin, 'calls.log');
    writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$PWD: $*" >> ${calls}\nexit 1\n`);
    chmodSync(join(bin, 'git'), 0o755);
    const { service, token, spec } = await setup(['--workers', '1'], CHECKS, { PATH: `${bin}:${process.env.PATH}` });
    const rig = await client(spec);
    const git = (...args: string[]) =>
      spawnSync('git', args, {
        cwd: rig.root,
        encoding: 'utf8',
        env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
      });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'one');
    const head = git('rev-parse', 'HEAD').stdout.trim();
    const result = await remote(rig, service.address, token);
    expect(result.json().checks[0], result.stderr).toMatchObject({ status: 'PASS' });
    expect(existsSync(calls) ? readFileSync(calls, 'utf8') : '').toBe('');
    const shown = (await rig.run(['show', result.json().checks[0].receipt, '--json'])).json().receipt;
    expect(shown.git).toEqual({ head, dirty: false });
    expect(shown.service).toMatchObject({ git_source: 'client', nonce: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it("attack 2, a root worker's checks keep every capability: from inside a check, no capability, no seccomp-free kernel calls, no open_by_handle_at, no key, no host /; the receipt says what held", async () => {
    if (process.getuid?.() !== 0) process.stderr.write('!!! not running as root: this test shows the sandbox for a non-root worker only\n');
    const base = mkdtempSync(join(tmpdir(), 'vouch-shocker-'));
    cleanup.push(base);
    writeFileSync(
      join(base, 'shocker.c'),
      `#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <dirent.h>
int main(void) {
  struct { struct file_handle fh; unsigned int ino[2]; } root;
  root.fh.handle_bytes = 8; root.fh.handle_type = 1; root.ino[0] = 2; root.ino[1] = 0;
  int fd = open_by_handle_at(open(".", O_RDONLY | O_DIRECTORY), &root.fh, O_RDONLY | O_DIRECTORY);
  if (fd < 0) return 0;
  DIR *d = fdopendir(fd); struct dirent *e;
  while ((e = readdir(d))) printf("%s\\n", e->d_name);
  return 1;
}
`,
    );
    const built = spawnSync('gcc', ['-O', '-o', join(base, 'shocker'), join(base, 'shocker.c')], { encoding: 'utf8' });
    expect(built.status, `gcc: ${built.stderr}`).toBe(0);
    // Each check exits 0 when the sandbox held, non-zero when the attack worked.
    const probes = `version: 1
checks:
  - {id: caps, run: ["sh", "-c", "grep -qE '^CapEff:[[:space:]]+0+$' /proc/self/status && grep -qE '^CapBnd:[[:space:]]+0+$' /proc/self/status"], sources: ["src/**"]}
  - {id: seccomp, run: ["sh", "-c", "grep -qE '^Seccomp:[[:space:]]+2$' /proc/self/status"], sources: ["src/**"]}
  - {id: shocker, run: ["./bin/shocker"], sources: ["src/**", "bin/shocker"]}
  - {id: key, run: ["sh", "-c", "! cat KEYPATH 2>/dev/null | grep -q PRIVATE"], sources: ["src/**"]}
  - {id: hostroot, run: ["sh", "-c", "! ls -A / | grep -qxE 'root|home|var|work|srv'"], sources: ["src/**"]}
  - {id: worker, run: ["sh", "-c", "! ls /proc/*/cmdline | xargs cat 2>/dev/null | tr '\\\\0' ' ' | grep -q 'cli[.]js serve'"], sources: ["src/**"]}
`;
    const service = await Service.prepare(`${db.url}?schema=boundary_${++schema}`);
    const spec = `${probes.replace('KEYPATH', join(service.home, 'keys', 'server.key'))}verifier_key: ${service.publicKeyHex}\n`;
    await service.allow(spec);
    const token = await service.token('mallory');
    await service.start(['--workers', '1']);
    expect(service.log).toMatch(/sandbox {2}bubblewrap: .*checks as uid \d+, no capabilities, seccomp vouch-deny-1\/\w+, limits/);
    const rig = await client(spec);
    rig.write({ 'bin/shocker': '' });
    writeFileSync(rig.path('bin/shocker'), readFileSync(join(base, 'shocker')));
    chmodSync(rig.path('bin/shocker'), 0o755);
    // The probe is one of its check's sources: a job tree holds only the files a check declares (job-view.ts).
    const result = await remote(rig, service.address, token);
    expect(
      result.json().checks.map((c: any) => `${c.id}:${c.status}`),
      result.stderr,
    ).toEqual(['caps:PASS', 'seccomp:PASS', 'shocker:PASS', 'key:PASS', 'hostroot:PASS', 'worker:PASS']);
    const sandbox = result.json().checks[0].sandbox;
    expect(sandbox).toMatchObject({
      kind: 'bubblewrap',
      network: false,
      confinement: { cap_eff: '0000000000000000', gaps: [], seccomp: expect.stringMatching(/^vouch-deny-1\//) },
    });
    if (process.getuid?.() === 0) expect(sandbox.confinement.uid).toBe(65534);
    // The same probe outside any sandbox, as the worker's own user: the attack is real here.
    if (process.getuid?.() === 0) expect(spawnSync(join(base, 'shocker'), [], { cwd: base }).status).toBe(1);
  });

  // Needs root and util-linux's unshare (a user the worker drops to); .ci/run runs as root on a machine that has both, so it runs in CI.
  it.runIf(process.getuid?.() === 0 && existsSync('/usr/bin/unshare'))(
    'attack 2: a worker that cannot confine (bubblewrap unusable) refuses to start; with --allow-unconfined it runs and every receipt says so',
    async () => {
      const { service, token, specSha, spec } = await setup(['--workers', '0']);
      // A mount namespace of the worker's own in which bubblewrap cannot be run.
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
              'mount --bind /dev/null /usr/bin/bwrap && exec "$@"',
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
      expect(refused.stderr).toContain('cannot confine the checks it would run');
      expect(refused.stderr).toContain('code: sandbox_unavailable');
      expect(refused.stderr).toContain('--allow-unconfined');
      const archive = await tarGz([
        { name: 'vouch.yaml', body: spec },
        { name: 'src/a.txt', body: 'hello\n' },
      ]);
      const submitted = await service.fetch(jobsPath(specSha, ['ok']), { method: 'POST', token, body: archive });
      // The refusing worker claimed nothing.
      expect((await service.fetch(`/v1/jobs/${submitted.json.job.id}`, { token })).json.job.state).toBe('queued');
      const unconfined = await worker(['--allow-unconfined', '--max-jobs', '1']);
      expect(unconfined.code, unconfined.stderr).toBe(0);
      expect(unconfined.stderr).toContain('sandbox: NONE (--allow-unconfined)');
      const job = await service.settle(submitted.json.job.id, token);
      expect(job).toMatchObject({ state: 'done', sandbox: { kind: 'none', why: expect.stringContaining('bubblewrap') } });
    },
  );

  // Needs root and util-linux's setpriv; .ci/run runs as root on a machine that has both, so it runs in CI.
  it.runIf(process.getuid?.() === 0 && existsSync('/usr/bin/setpriv'))(
    'attack 2: a worker that is not root (here nobody, given a delegated cgroup) holds the same layers but one: it cannot mount a tmpfs per job, so it starts only with --allow-unconfined and every receipt names job_disk',
    async () => {
      const { service, token, spec } = await setup(['--workers', '0']);
      // The worker's home (its key) must be its own: hand it to nobody, and let nobody reach it.
      chmodSync(join(service.home, '..'), 0o755);
      spawnSync('chown', ['-R', '65534:65534', service.home]);
      const delegated = delegatedCgroup(65534, 65534, `vouch-test-delegated-${process.pid}-${Date.now()}`);
      if (!delegated) process.stderr.write('!!! no cgroup can be delegated here: the worker is expected to lack one too\n');
      const worker = (extra: string[]) => {
        const argv = [
          '/usr/bin/setpriv',
          '--reuid=65534',
          '--regid=65534',
          '--clear-groups',
          '--',
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
        ];
        const child = spawn('/bin/sh', ['-c', `${delegated ? `${delegated.enter} && ` : ''}exec "$@"`, 'sh', ...argv], {
          env: { PATH: process.env.PATH, HOME: '/nonexistent', VOUCH_HOME: service.home, NO_COLOR: '1' },
          cwd: '/',
        });
        let log = '';
        child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
        return { exited: new Promise<number | null>((resolve) => child.on('exit', resolve)), log: () => log };
      };
      try {
        const refused = worker(['--max-jobs', '1']);
        expect(await refused.exited).toBe(2);
        expect(refused.log()).toContain('the worker is not root, so it cannot mount a tmpfs per job');
        const started = worker(['--max-jobs', '1', '--allow-unconfined']);
        const rig = await client(spec);
        const result = await remote(rig, service.address, token, ['--wait', '120']);
        expect(await started.exited, started.log()).toBe(0);
        expect(started.log()).toMatch(/sandbox: bubblewrap: .*checks as uid 65534, no capabilities, seccomp vouch-deny-1\/\w+, limits/);
        const gaps = delegated ? ['job_disk'] : ['cgroup', 'job_disk'];
        expect(result.json().checks[0], result.stderr).toMatchObject({
          status: 'PASS',
          sandbox: {
            kind: 'bubblewrap',
            writable: [{ place: 'job directory', kind: 'disk', bytes: null }, { place: '/tmp' }, { place: '/dev/shm' }],
            confinement: { uid: 65534, cap_eff: '0000000000000000', gaps },
          },
        });
        if (delegated) expect(result.json().checks[0].sandbox.confinement.cgroup).toMatchObject({ memory_bytes: 4096 * 1024 * 1024, processes: 1024 });
      } finally {
        delegated?.remove();
      }
    },
  );

  it("attack 3, a decompression bomb: 2 MB of gzip (a valid tree, then 2 GiB of zeros) is read to the archive's end marker only, and the job runs its check", async () => {
    const { service, token, spec, specSha } = await setup();
    const tree = await tarGz([
      { name: 'vouch.yaml', body: spec },
      { name: 'src/a.txt', body: 'hello\n' },
    ]);
    const zeros = gzipSync(Buffer.alloc(16 * 1024 * 1024));
    const bomb = Buffer.concat([tree, ...Array.from({ length: 128 }, () => zeros)]);
    expect(bomb.length).toBeLessThan(3 * 1024 * 1024);
    const submitted = await service.fetch(jobsPath(specSha, ['ok']), { method: 'POST', token, body: bomb });
    expect(submitted.status).toBe(202);
    const job = await service.settle(submitted.json.job.id, token, 60_000);
    expect(job).toMatchObject({ state: 'done', receipts: [expect.objectContaining({ check_id: 'ok', verdict: 'PASS' })] });
  });

  it('attack 3: a bomb inside one entry (a file of 2 GiB of zeros) is refused at the tree limit (too_large), the job failed with the reason', async () => {
    const { service, token, spec, specSha } = await setup(['--workers', '0']);
    const worker = service.worker(['--max-tree-mb', '64', '--max-jobs', '1']);
    const header = Buffer.from((await import('node:zlib')).gunzipSync(await tarGz([{ name: 'src/zeros' }])).subarray(0, 512));
    header.write('20000000000\0', 124, 'latin1');
    header.fill(' ', 148, 156);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
    const tree = (await import('node:zlib')).gunzipSync(await tarGz([{ name: 'vouch.yaml', body: spec }]));
    const zeros = gzipSync(Buffer.alloc(16 * 1024 * 1024));
    const bomb = Buffer.concat([gzipSync(Buffer.concat([tree.subarray(0, 1024), header])), ...Array.from({ length: 128 }, () => zeros)]);
    const submitted = await service.fetch(jobsPath(specSha, ['ok']), { method: 'POST', token, body: bomb });
    const job = await service.settle(submitted.json.job.id, token, 60_000);
    expect(job).toMatchObject({ state: 'failed', receipts: [], error: { code: 'archive_refused' } });
    expect(job.error.message).toContain('(too_large)');
    await new Promise((resolve) => (worker.exitCode === null ? worker.once('exit', resolve) : resolve(null)));
  });

  it('attack 4, uploads read whole before the limits: a declared size over the limit, and a client at its limit, are refused before a byte of the body is sent', async () => {
    const { service, token, spec, specSha, schema: name } = await setup(['--workers', '0', '--max-upload-mb', '1', '--max-jobs-per-client', '1']);
    const headers = (length: number) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/gzip', 'content-length': String(length) });
    // Headers only: the body never comes, so an answer proves the server did not wait to read it.
    const huge = await rawPost(service.address, jobsPath(specSha, ['ok']), headers(40 * 1024 * 1024), () => undefined);
    expect(huge).toMatchObject({ status: 413, json: { error: { code: 'upload_too_large', limit: 1024 * 1024, found: 40 * 1024 * 1024 } } });
    const archive = await tarGz([
      { name: 'vouch.yaml', body: spec },
      { name: 'src/a.txt', body: 'hello\n' },
    ]);
    expect((await service.fetch(jobsPath(specSha, ['ok']), { method: 'POST', token, body: archive })).status).toBe(202);
    const empty = await service.fetch(jobsPath(specSha, ['ok']), { method: 'POST', token, body: Buffer.alloc(0) });
    expect(empty).toMatchObject({ status: 400, json: { error: { code: 'bad_request' } } });
    const busy = await rawPost(service.address, jobsPath(specSha, ['ok']), headers(512 * 1024), () => undefined);
    expect(busy).toMatchObject({ status: 429, json: { error: { code: 'too_many_jobs', limit: 1, found: 1 } } });
    expect(await sql(db.url, `SELECT 1 FROM ${name}.jobs`)).toHaveLength(1);
  });

  it('attack 4: a body that is larger than declared, or sent without a length, is stopped at the limit; one cut off is dropped; nothing of either is kept; a good one is stored in parts of 1 MiB', async () => {
    const { service, token, spec, specSha, schema: name } = await setup(['--workers', '0', '--max-upload-mb', '2']);
    const chunked = { authorization: `Bearer ${token}`, 'content-type': 'application/gzip', 'transfer-encoding': 'chunked' };
    const over = await rawPost(service.address, jobsPath(specSha, ['ok']), chunked, (write, end) => {
      for (let i = 0; i < 6; i++) write(randomBytes(512 * 1024));
      end();
    });
    // The server answers 413 and closes; the client may see the answer or the closed connection, never a job.
    if ('status' in over) expect(over).toMatchObject({ status: 413, json: { error: { code: 'upload_too_large' } } });
    const cut = await rawPost(service.address, jobsPath(specSha, ['ok']), chunked, (write, _end, destroy) => {
      write(randomBytes(1024 * 1024 + 10));
      setTimeout(destroy, 300);
    });
    expect(cut).toHaveProperty('error');
    for (let i = 0; i < 50 && (await sql(db.url, `SELECT 1 FROM ${name}.jobs`)).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await sql(db.url, `SELECT 1 FROM ${name}.jobs`)).toHaveLength(0);
    expect(await sql(db.url, `SELECT 1 FROM ${name}.job_archive_parts`)).toHaveLength(0);
    const big = await tarGz([
      { name: 'vouch.yaml', body: spec },
      { name: 'src/a.txt', body: 'hello\n' },
      { name: 'src/noise.bin', body: randomBytes(1536 * 1024) },
    ]);
    const good = await service.fetch(jobsPath(specSha, ['ok']), { method: 'POST', token, body: big });
    expect(good.status).toBe(202);
    const parts = await sql<{ n: number; largest: number; total: number }>(
      db.url,
      `SELECT count(*)::int AS n, max(length(bytes))::int AS largest, sum(length(bytes))::int AS total FROM ${name}.job_archive_parts`,
    );
    expect(parts[0]!.n).toBeGreaterThanOrEqual(2);
    expect(parts[0]!.largest).toBeLessThan(1024 * 1024 + 256 * 1024);
    expect(parts[0]!.total).toBe(big.length);
    const worker = service.worker(['--max-jobs', '1']);
    expect(await service.settle(good.json.job.id, token)).toMatchObject({ state: 'done', receipts: [expect.objectContaining({ verdict: 'PASS' })] });
    await new Promise((resolve) => (worker.exitCode === null ? worker.once('exit', resolve) : resolve(null)));
    expect(await sql(db.url, `SELECT 1 FROM ${name}.job_archive_parts`)).toHaveLength(0);
  });

  it("attack 5, replay: a server without the key that answers a new job with an earlier genuine signed PASS is refused (the receipt lacks this job's nonce)", async () => {
    const { service, token, spec } = await setup();
    const rig = await client(spec);
    // First, an honest run through the "server", which keeps every answer.
    const kept = new Map<string, unknown>();
    let replaying = false;
    let firstJob = '';
    const url = await proxy(service.address, async (method, path) => {
      if (!replaying) return undefined;
      // Replaying: the new upload is never forwarded; the earlier job and its signed receipts are sent instead.
      if (method === 'POST') return { status: 202, json: { job: { id: firstJob, state: 'queued', url: `/v1/jobs/${firstJob}` } } };
      const known = kept.get(path.split('?')[0]!);
      return known ? { status: 200, json: known } : { status: 404, json: { error: { code: 'not_found', message: 'x' } } };
    });
    const honest = await remote(rig, url, token);
    expect(honest.json().checks[0]).toMatchObject({ status: 'PASS' });
    firstJob = honest.json().checks[0].job;
    const receiptId = honest.json().checks[0].remote_receipt;
    kept.set(`/v1/jobs/${firstJob}`, (await service.fetch(`/v1/jobs/${firstJob}`, { token })).json);
    kept.set(`/v1/receipts/${receiptId}`, (await service.fetch(`/v1/receipts/${receiptId}`, { token })).json);
    replaying = true;
    const replayed = await remote(rig, url, token);
    expect(replayed.code).toBe(1);
    expect(replayed.json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'remote_unverified', job: firstJob });
    expect(replayed.json().checks[0].detail).toContain('does not carry the nonce this client sent');
    // Nothing new recorded locally: the honest receipt only.
    expect((await rig.run(['log', '--json'])).json()).toHaveLength(1);
  });

  it('attack 7: 5xx answers and dropped connections are tried again within --wait; a lost answer to the submission does not make a second job', async () => {
    const { service, token, spec, schema: name } = await setup();
    const rig = await client(spec);
    const seen = { post: 0, poll: 0, receipt: 0 };
    const url = await proxy(service.address, async (method, path, body) => {
      if (method === 'POST' && seen.post++ === 0) {
        // The server gets the job, but its answer is lost on the way back.
        await fetch(`${service.address}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/gzip' }, body });
        return { status: 502, json: { error: { code: 'bad_gateway', message: 'upstream answer lost' } } };
      }
      if (path.startsWith('/v1/jobs/') && seen.poll++ < 2) return { status: 503, json: { error: { code: 'unavailable', message: 'busy' } } };
      if (path.startsWith('/v1/receipts/') && seen.receipt++ === 0) return 'reset';
      return undefined;
    });
    const result = await remote(rig, url, token, ['--wait', '60']);
    expect(result.json().checks[0], result.stderr).toMatchObject({ status: 'PASS' });
    expect(result.stderr).toMatch(/verifier unavailable \(POST \/v1\/jobs: the server failed \(502\).*\); trying again in/);
    expect(seen).toMatchObject({ post: 2, receipt: 2 });
    expect(await sql(db.url, `SELECT 1 FROM ${name}.jobs`)).toHaveLength(1);
  });

  it('attack 7: a revoked client name gets a new token (the old one stays dead); a live one is not replaced', async () => {
    const { service, token } = await setup(['--workers', '0']);
    const env = { env: { VOUCH_HOME: service.home } };
    const again = await service.rig.run(['serve', 'token', 'add', 'mallory', '--ledger', service.ledger], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already has a token');
    expect((await service.rig.run(['serve', 'token', 'revoke', 'mallory', '--ledger', service.ledger], env)).code).toBe(0);
    const renewed = await service.rig.run(['serve', 'token', 'add', 'mallory', '--ledger', service.ledger], env);
    expect(renewed.code, renewed.stderr).toBe(0);
    const fresh = renewed.stdout.trim();
    expect(fresh).not.toBe(token);
    expect((await service.fetch('/v1/jobs/01m8p4w5s3h7dty1vaxab2xmkf', { token })).status).toBe(401);
    expect((await service.fetch('/v1/jobs/01m8p4w5s3h7dty1vaxab2xmkf', { token: fresh })).json).toEqual({
      error: { code: 'not_found', message: expect.any(String) },
    });
    const listed = (await service.rig.run(['serve', 'token', 'list', '--ledger', service.ledger, '--json'], env)).json();
    expect(listed).toEqual([expect.objectContaining({ name: 'mallory', revoked_at: null })]);
  });

  it.each([
    ['GET', '/'],
    ['GET', '/v1'],
    ['GET', '/v2/jobs'],
    ['POST', '/v1/nothing'],
    ['DELETE', '/v1/jobs/01m8p4w5s3h7dty1vaxab2xmkf'],
    ['PUT', '/v1/receipts/01m8p4w5s3h7dty1vaxab2xmkf'],
  ])('attack 7: %s %s answers the documented error shape, with a token and without', async (method, path) => {
    const { service, token } = await setup(['--workers', '0']);
    const withToken = await service.fetch(path, { method, token });
    expect(withToken.status).toBe(404);
    expect(withToken.json).toEqual({ error: { code: 'not_found', message: expect.stringContaining(`no route ${method} ${path}`), hint: expect.any(String) } });
    const without = await service.fetch(path, { method });
    expect(without.status).toBe(401);
    expect(without.json).toEqual({ error: { code: 'unauthorized', message: expect.any(String), hint: expect.any(String) } });
  });
});
