// The verifier server's memory under concurrent uploads: U uploads of M MB
// each (a gzip'd tar of random bytes, so it does not shrink), sent at once
// to `vouch serve --workers 0`, from U clients (one upload each) and then
// from one client sending all U at once. Reports the server's resident set
// before and its peak (VmHWM) after each round, read from /proc.
//
//   node bench/upload-rss.mjs [--uploads 8] [--mb 40]
//
// Needs PostgreSQL on 127.0.0.1:5432 (trust auth; VOUCH_TEST_PG_URL to
// override) and a built dist/. Everything it creates is removed.
import { spawn, execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';

const { values } = parseArgs({ options: { uploads: { type: 'string', default: '8' }, mb: { type: 'string', default: '40' } } });
const UPLOADS = Number(values.uploads);
const MB = Number(values.mb);
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
let server;
try {
  const spec = 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n';
  writeFileSync(join(home, 'spec.yaml'), spec);
  vouch('db', 'migrate', '--ledger', ledger);
  vouch('keys', 'generate', '--name', 'server');
  vouch('serve', 'allow', 'spec.yaml');
  const tokens = Array.from({ length: UPLOADS }, (_, i) => vouch('serve', 'token', 'add', `c${i}`, '--ledger', ledger));
  server = spawn(
    process.execPath,
    [CLI, 'serve', '--ledger', ledger, '--key', 'server', '--listen', '127.0.0.1:0', '--workers', '0', '--max-upload-mb', String(MB + 10)],
    { env, cwd: home },
  );
  let log = '';
  server.stderr.on('data', (c) => (log += c));
  const address = await new Promise((resolve, reject) => {
    server.stdout.once('data', (c) => resolve(String(c).trim()));
    server.once('exit', () => reject(new Error(log)));
  });
  const tree = join(home, 'tree');
  mkdirSync(join(tree, 'src'), { recursive: true });
  writeFileSync(join(tree, 'vouch.yaml'), spec);
  writeFileSync(join(tree, 'src', 'blob.bin'), randomBytes(MB * 1024 * 1024));
  const archive = execFileSync('tar', ['czf', '-', '-C', tree, 'vouch.yaml', 'src/blob.bin'], { maxBuffer: (MB + 10) * 1024 * 1024 });
  const specSha = createHash('sha256').update(spec).digest('hex');
  const status = () =>
    Object.fromEntries(
      readFileSync(`/proc/${server.pid}/status`, 'utf8')
        .split('\n')
        .filter((l) => /^Vm(RSS|HWM):/.test(l))
        .map((l) => [l.split(':')[0], Math.round(Number(l.split(/\s+/)[1]) / 1024)]),
    );
  const resetPeak = () => writeFileSync(`/proc/${server.pid}/clear_refs`, '5');
  const upload = async (token) => {
    const response = await fetch(`${address}/v1/jobs?spec_sha256=${specSha}&check=t&nonce=${randomBytes(32).toString('hex')}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/gzip' },
      body: archive,
    }).catch((error) => ({ status: `network error: ${error.cause?.code ?? error.message}` }));
    return response.status;
  };
  const round = async (label, sendAll) => {
    await new Promise((r) => setTimeout(r, 500));
    resetPeak();
    const before = status().VmRSS;
    const t0 = performance.now();
    const statuses = await sendAll();
    const seconds = (performance.now() - t0) / 1000;
    const peak = status().VmHWM;
    const counts = {};
    for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
    return { round: label, rss_before_mb: before, peak_rss_mb: peak, growth_mb: peak - before, statuses: counts, seconds: Number(seconds.toFixed(1)) };
  };
  const rounds = [
    await round(`${UPLOADS} clients, one ${MB} MB upload each, at once`, () => Promise.all(tokens.map((token) => upload(token)))),
    await round(`one client, ${UPLOADS} ${MB} MB uploads at once`, () => Promise.all(tokens.map(() => upload(tokens[0])))),
  ];
  const result = { archive_mb: Number((archive.length / 1024 / 1024).toFixed(1)), uploads: UPLOADS, rounds, node: process.version };
  console.log(JSON.stringify(result, null, 2));
} finally {
  server?.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  if (server && server.exitCode === null) server.kill('SIGKILL');
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  rmSync(home, { recursive: true, force: true });
}
