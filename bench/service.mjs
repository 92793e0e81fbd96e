// The verifier service under load, on loopback: C clients submit J jobs in
// all (each one check, `true`) to `vouch serve` with W `vouch worker`
// processes, over the machine's PostgreSQL. Reports jobs per second and
// the p50/p95 latency from submission (the job row's created_at) to its
// signed receipt committed (finished_at), both taken by PostgreSQL's clock.
//
//   npm run bench:service -- [--jobs 200] [--clients 4] [--workers 3] [--closed] [--kill] [--runs 30]
//
// Open loop (default): every client submits all its jobs at once, so the
// latency includes the wait in the queue. --closed: each client waits for
// its job to finish before submitting the next (latency without a backlog).
// --kill: kill -9 one worker while it holds a job (leases of 5 s, so the
// job is retried by another worker within the run); every job must still
// end with exactly one receipt and the chain must audit clean.
//
// Then what confining costs, measured directly (bench/sandbox-cost.ts):
// `true` alone against `true` as a worker here runs a check (bubblewrap
// with every layer, in the job's cgroup), alternated, medians of --runs
// (30); and per job, making its directory (a tmpfs for a root worker) and
// its cgroup, and removing both.
//
// The result is printed and saved as bench/results/service-<time>.json.
//
// Needs PostgreSQL on 127.0.0.1:5432 (trust auth; VOUCH_TEST_PG_URL to
// override). Everything it creates (a database, temp dirs) is removed.
import { spawn, execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import pg from 'pg';

const { values } = parseArgs({
  options: {
    jobs: { type: 'string', default: '200' },
    clients: { type: 'string', default: '4' },
    workers: { type: 'string', default: '3' },
    closed: { type: 'boolean', default: false },
    kill: { type: 'boolean', default: false },
    runs: { type: 'string', default: '30' },
  },
});
const JOBS = Number(values.jobs);
const CLIENTS = Number(values.clients);
const WORKERS = Number(values.workers);
const LEASE_SECONDS = values.kill ? 5 : 30;
const CLI = new URL('../dist/cli.js', import.meta.url).pathname;
const ADMIN = process.env.VOUCH_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const name = `vouch_bench_${randomBytes(4).toString('hex')}`;
const admin = async (sql) => {
  const client = new pg.Client(ADMIN);
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
};
await admin(`CREATE DATABASE ${name}`);
const url = new URL(ADMIN);
url.pathname = `/${name}`;
const ledger = url.toString();
const home = mkdtempSync(join(tmpdir(), 'vouch-bench-'));
const env = { ...process.env, VOUCH_HOME: home, NO_COLOR: '1' };
const vouch = (...args) => execFileSync(process.execPath, [CLI, ...args], { env, cwd: home, encoding: 'utf8' }).trim();
const children = [];
try {
  const spec = 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n';
  writeFileSync(join(home, 'spec.yaml'), spec);
  vouch('db', 'migrate', '--ledger', ledger);
  vouch('keys', 'generate', '--name', 'server');
  vouch('serve', 'allow', 'spec.yaml');
  const tokens = Array.from({ length: CLIENTS }, (_, i) => vouch('serve', 'token', 'add', `c${i}`, '--ledger', ledger));
  const server = spawn(
    process.execPath,
    [CLI, 'serve', '--ledger', ledger, '--key', 'server', '--listen', '127.0.0.1:0', '--workers', '0', '--max-jobs-per-client', '1000'],
    { env, cwd: home },
  );
  children.push(server);
  let serverLog = '';
  server.stderr.on('data', (c) => (serverLog += c));
  const address = await new Promise((resolve, reject) => {
    server.stdout.once('data', (c) => resolve(String(c).trim()));
    server.once('exit', () => reject(new Error(serverLog)));
  });
  const workers = [];
  let workerLog = '';
  for (let i = 0; i < WORKERS; i++) {
    const worker = spawn(
      process.execPath,
      [CLI, 'worker', '--ledger', ledger, '--key', 'server', '--poll-ms', '50', '--lease-seconds', String(LEASE_SECONDS)],
      { env, cwd: home, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    worker.stderr.on('data', (c) => (workerLog += c));
    children.push(worker);
    workers.push(worker);
  }
  // How the workers confine the checks: the first worker's start-up line.
  for (let i = 0; i < 100 && !/sandbox: /.test(workerLog); i++) await new Promise((r) => setTimeout(r, 100));
  const sandbox = /sandbox: (.*)/.exec(workerLog)?.[1] ?? 'unknown';
  const specSha = createHash('sha256').update(spec).digest('hex');
  const tree = join(home, 'tree');
  execFileSync('mkdir', ['-p', join(tree, 'src')]);
  writeFileSync(join(tree, 'vouch.yaml'), spec);
  writeFileSync(join(tree, 'src', 'a.txt'), 'a\n');
  const archive = execFileSync('tar', ['czf', '-', '-C', tree, 'vouch.yaml', 'src/a.txt']);
  const submitMs = [];
  const started = performance.now();
  // --kill: the first time a job is running, kill -9 the worker that holds its lease (named host:pid:n).
  const killed = values.kill ? killWorkerHoldingAJob(ledger, workers) : Promise.resolve(undefined);
  await Promise.all(
    tokens.map(async (token, c) => {
      for (let j = c; j < JOBS; j += CLIENTS) {
        const t0 = performance.now();
        const response = await fetch(`${address}/v1/jobs?spec_sha256=${specSha}&check=t&nonce=${randomBytes(32).toString('hex')}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/gzip' },
          body: archive,
        });
        if (response.status !== 202) throw new Error(`submit: ${response.status} ${await response.text()}`);
        const { job } = await response.json();
        submitMs.push(performance.now() - t0);
        while (values.closed) {
          const polled = await fetch(`${address}/v1/jobs/${job.id}`, { headers: { authorization: `Bearer ${token}` } });
          const { job: view } = await polled.json();
          if (view.state === 'done' || view.state === 'failed') break;
          await new Promise((r) => setTimeout(r, 10));
        }
      }
    }),
  );
  const kill = await killed;
  const client = new pg.Client({ connectionString: ledger, options: '-c search_path=vouch' });
  await client.connect();
  for (;;) {
    const open = (await client.query(`SELECT count(*)::int AS n FROM jobs WHERE state IN ('queued', 'running')`)).rows[0].n;
    if (open === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const wall = (performance.now() - started) / 1000;
  const rows = (await client.query(`SELECT state, extract(epoch FROM finished_at - created_at) * 1000 AS ms FROM jobs`)).rows;
  const span = (await client.query(`SELECT extract(epoch FROM max(finished_at) - min(created_at)) AS s FROM jobs`)).rows[0].s;
  const receipts = (await client.query(`SELECT count(*)::int AS n FROM chain WHERE kind = 'receipt'`)).rows[0].n;
  const killedJob =
    kill &&
    (
      await client.query(`SELECT state, attempts, (SELECT count(*)::int FROM job_receipts r WHERE r.job_id = jobs.id) AS receipts FROM jobs WHERE id = $1`, [
        kill.job,
      ])
    ).rows[0];
  await client.end();
  const done = rows.filter((r) => r.state === 'done').length;
  const latencies = rows.map((r) => Number(r.ms)).sort((a, b) => a - b);
  const pct = (list, p) => list[Math.min(list.length - 1, Math.floor((p / 100) * list.length))];
  submitMs.sort((a, b) => a - b);
  const audit = JSON.parse(
    execFileSync(process.execPath, [CLI, 'audit', '--ledger', ledger, '--key', 'server', '--json'], { env, cwd: home, encoding: 'utf8' }),
  );
  const result = {
    jobs: JOBS,
    clients: CLIENTS,
    workers: WORKERS,
    mode: values.closed ? 'closed loop' : 'open loop',
    lease_seconds: LEASE_SECONDS,
    ...(values.kill && {
      killed_worker: kill
        ? { pid: kill.pid, job: kill.job, job_state: killedJob?.state, job_attempts: killedJob?.attempts, job_receipts: killedJob?.receipts }
        : 'no job was seen running: nothing killed',
    }),
    done,
    receipts,
    audit_ok: audit.ok,
    sandbox,
    jobs_per_second: Number((JOBS / Number(span)).toFixed(1)),
    wall_seconds: Number(wall.toFixed(2)),
    latency_ms: { p50: Math.round(pct(latencies, 50)), p95: Math.round(pct(latencies, 95)), max: Math.round(latencies[latencies.length - 1]) },
    submit_ms: { p50: Number(pct(submitMs, 50).toFixed(1)), p95: Number(pct(submitMs, 95).toFixed(1)) },
    // Measured once the workers are gone, so the two cores are the measurement's.
    sandbox_cost: undefined,
    node: process.version,
    cpus: (await import('node:os')).cpus().length,
    load_average: (await import('node:os')).loadavg().map((n) => Number(n.toFixed(1))),
  };
  for (const child of children) child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  result.sandbox_cost = await (await loadSandboxCost()).sandboxCost(Number(values.runs));
  console.log(JSON.stringify(result, null, 2));
  const results = new URL('./results/', import.meta.url).pathname;
  mkdirSync(results, { recursive: true });
  writeFileSync(
    join(results, `service-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
    `${JSON.stringify({ started: new Date(Date.now() - wall * 1000).toISOString(), ...result }, null, 2)}\n`,
  );
  if (done !== JOBS || receipts !== JOBS || !audit.ok || (values.kill && (!kill || killedJob?.receipts !== 1))) process.exitCode = 1;
} finally {
  for (const child of children) child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  rmSync(home, { recursive: true, force: true });
}

/** Bundles bench/sandbox-cost.ts (TypeScript, importing the sandbox from src/) next to node_modules and loads it. */
async function loadSandboxCost() {
  const outfile = new URL('../node_modules/.cache/vouch-bench/sandbox-cost.mjs', import.meta.url).pathname;
  await build({
    entryPoints: [new URL('./sandbox-cost.ts', import.meta.url).pathname],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  return import(pathToFileURL(outfile).href);
}

/** Waits until some job is running, then kill -9 the worker process holding its lease; returns which. */
async function killWorkerHoldingAJob(ledger, workers) {
  const client = new pg.Client({ connectionString: ledger, options: '-c search_path=vouch' });
  await client.connect();
  try {
    for (let tries = 0; tries < 2000; tries++) {
      const rows = (await client.query(`SELECT id, lease_owner FROM jobs WHERE state = 'running' AND lease_owner IS NOT NULL`)).rows;
      for (const row of rows) {
        const pid = Number(row.lease_owner.split(':').at(-2));
        const worker = workers.find((w) => w.pid === pid && w.exitCode === null);
        if (worker) {
          worker.kill('SIGKILL');
          return { pid, job: row.id };
        }
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    return undefined;
  } finally {
    await client.end();
  }
}
