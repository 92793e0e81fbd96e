import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { packTarGz, type PackFile } from '../src/archive/pack.js';
import { describePg, tempDatabase, type TempDatabase } from './helpers/pg.js';
import { Rig } from './helpers/rig.js';
import { jobsPath, Service } from './helpers/service.js';

// The verifier service runs nothing it did not pin (issue 22): src/add.js
// returns a - b, the test asserts add(1, 2) === 3, the check is `npm test`.
// Each upload below got a signed PASS carrying the honest upload's source
// and test hashes before a job materialised only the declared files and
// `vouch serve allow` pinned tool configs and inputs.

const ADD_BROKEN = 'module.exports = (a, b) => a - b;\n';
const ADD_GOOD = 'module.exports = (a, b) => a + b;\n';
const PROJECT = {
  'src/add.js': ADD_BROKEN,
  'test/add.test.js':
    "const add = require('../src/add.js');\nif (add(1, 2) !== 3) { console.error('add(1, 2) returned ' + add(1, 2)); process.exit(1); }\nconsole.log('ok');\n",
  'package.json': `${JSON.stringify({ name: 'add', version: '1.0.0', scripts: { test: 'node test/add.test.js' } }, null, 2)}\n`,
};
const CHEATING_PACKAGE = `${JSON.stringify({ name: 'add', version: '1.0.0', scripts: { test: 'exit 0' } }, null, 2)}\n`;

/** package.json declared as an input: the spec a project should write. */
const WITH_INPUTS = `version: 1
checks:
  - id: tests
    run: ["npm", "test"]
    inputs: ["package.json"]
    sources: ["src/**"]
    tests: ["test/**"]
`;
/** The spec of the issue: package.json not declared at all. */
const WITHOUT_INPUTS = `version: 1
checks:
  - id: tests
    run: ["npm", "test"]
    sources: ["src/**"]
    tests: ["test/**"]
`;

describePg('the verifier service never runs a file it did not pin', () => {
  let db: TempDatabase;
  let schema = 0;
  const servers: Server[] = [];
  beforeAll(async () => {
    db = await tempDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  });

  /** A server that allowed `checks` (with its verifier_key) from a checkout of the honest project. */
  async function setup(checks: string) {
    const service = await Service.prepare(`${db.url}?schema=hermetic_${++schema}`);
    const spec = `${checks}verifier_key: ${service.publicKeyHex}\n`;
    await service.allowTree({ ...PROJECT, 'vouch.yaml': spec });
    const token = await service.token('alice');
    await service.start(['--workers', '1']);
    return { service, token, spec };
  }

  async function client(spec: string, files: Record<string, string> = {}): Promise<Rig> {
    const rig = new Rig().write({ ...PROJECT, ...files });
    await rig.spec(spec);
    return rig;
  }

  const remote = (rig: Rig, address: string, token: string) =>
    rig.run(['verify', '--remote', address, '--insecure-loopback', '--json'], { env: { VOUCH_TOKEN: token } });

  /** The server's chain, audited with its key alone: every receipt there is signed by it. */
  async function signedOnServer(service: Service, receipts: number) {
    const audit = await new Rig().run(['audit', '--ledger', service.ledger, '--key', service.publicKeyHex, '--json']);
    expect(audit.json()).toMatchObject({ ok: true, receipts, unsigned: 0 });
  }

  /**
   * A loopback forwarder the agent could point `--remote` at: it passes
   * everything through to the real server, adding `add` to the upload on
   * its way (unpacked with tar, packed again).
   */
  async function forwarder(target: string, add: readonly PackFile[]): Promise<string> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        void (async () => {
          let body: Buffer = Buffer.concat(chunks);
          if (req.method === 'POST' && body.length > 0) body = await withFiles(body, add);
          const upstream = await fetch(`${target}${req.url}`, {
            method: req.method ?? 'GET',
            headers: { authorization: req.headers.authorization ?? '', ...(body.length > 0 && { 'content-type': 'application/gzip' }) },
            ...(body.length > 0 && { body }),
          });
          res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
          res.end(Buffer.from(await upstream.arrayBuffer()));
        })();
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async function withFiles(archive: Buffer, add: readonly PackFile[]): Promise<Buffer> {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-forwarder-'));
    try {
      execFileSync('tar', ['-xzf', '-', '-C', dir], { input: archive });
      const files: PackFile[] = [];
      const walk = (rel: string) => {
        for (const name of readdirSync(join(dir, rel))) {
          const path = rel ? `${rel}/${name}` : name;
          const stat = statSync(join(dir, path));
          if (stat.isDirectory()) walk(path);
          else files.push({ path, bytes: readFileSync(join(dir, path)), executable: (stat.mode & 0o100) !== 0 });
        }
      };
      walk('');
      return await packTarGz([...files, ...add]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it("the honest upload gets a signed FAIL, a fixed add.js a signed PASS; the receipt lists the input's hash and what the job tree held", async () => {
    const { service, token, spec } = await setup(WITH_INPUTS);
    const rig = await client(spec);
    const failed = await remote(rig, service.address, token);
    expect(failed.json().checks[0], failed.stderr).toMatchObject({ status: 'FAIL', reason: 'exit_code' });
    rig.write({ 'src/add.js': ADD_GOOD });
    const passed = await remote(rig, service.address, token);
    expect(passed.json().checks[0], passed.stderr).toMatchObject({ status: 'PASS' });
    const shown = (await rig.run(['show', 'tests', '--json'])).json();
    const packageHash = createHash('sha256').update(PROJECT['package.json']).digest('hex');
    expect(shown.manifest.files.filter((f: any) => f[3] === 'input')).toEqual([['package.json', packageHash, PROJECT['package.json'].length, 'input']]);
    // The job tree held the three declared files, nothing else of the upload (vouch.yaml included).
    if (shown.receipt.service.sandbox.kind === 'bubblewrap')
      expect(shown.receipt.service.sandbox.view).toMatchObject({ files: 3, writable: [], home: 'empty' });
    await signedOnServer(service, 2);
  });

  it.each([
    ['with package.json among its inputs', WITH_INPUTS],
    ['without it (npm reads it all the same)', WITHOUT_INPUTS],
  ])("attack: the upload with only package.json's test script changed gets a signed UNKNOWN, never a PASS, %s", async (_name, checks) => {
    const { service, token, spec } = await setup(checks);
    const rig = await client(spec, { 'package.json': CHEATING_PACKAGE });
    const result = await remote(rig, service.address, token);
    const check = result.json().checks[0];
    expect(check, result.stderr).toMatchObject({ status: 'UNKNOWN', reason: 'tool_config_changed' });
    expect(check.detail).toContain('package.json');
    await signedOnServer(service, 1);
  });

  it('attack: an upload holding an .npmrc with script-shell=/bin/true (sent straight to the API: the client never packs one) gets a signed UNKNOWN', async () => {
    const { service, token, spec } = await setup(WITH_INPUTS);
    const files = Object.entries({ ...PROJECT, 'vouch.yaml': spec, '.npmrc': 'script-shell=/bin/true\n' }).map(([path, text]) => ({
      path,
      bytes: Buffer.from(text),
      executable: false,
    }));
    const specSha = createHash('sha256').update(spec).digest('hex');
    const submitted = await service.fetch(jobsPath(specSha, ['tests'], randomBytes(32).toString('hex')), {
      token,
      method: 'POST',
      body: await packTarGz(files),
    });
    expect(submitted.status, JSON.stringify(submitted.json)).toBe(202);
    const job = await service.settle(submitted.json.job.id, token, 120_000);
    expect(job.state).toBe('done');
    const { json } = await service.fetch(`/v1/receipts/${job.receipts[0].id}`, { token });
    const body = JSON.parse(json.receipt.body);
    expect(body).toMatchObject({ verdict: 'UNKNOWN', reason: 'tool_config_changed', ran: false });
    expect(body.detail).toContain('.npmrc');
    expect(json.receipt.signature).toContain('"alg":"ed25519"');
  });

  it("attack: a loopback forwarder adds .npmrc to the client's upload on its way: a real-key UNKNOWN carrying the client's own nonce, never a PASS", async () => {
    const { service, token, spec } = await setup(WITH_INPUTS);
    const rig = await client(spec);
    const url = await forwarder(service.address, [{ path: '.npmrc', bytes: Buffer.from('script-shell=/bin/true\n'), executable: false }]);
    const result = await remote(rig, url, token);
    // Accepted by the client (signature, spec, job, nonce, files all bind), and it says UNKNOWN.
    expect(result.json().checks[0], result.stderr).toMatchObject({ status: 'UNKNOWN', reason: 'tool_config_changed' });
    expect((await rig.run(['status', '--json'])).json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'tool_config_changed' });
    await signedOnServer(service, 1);
  });

  it('attack: a forwarder adds an undeclared node_modules/.bin/node shim (no tool config, nothing pinned): the job tree never holds it, and the test FAILs', async () => {
    const { service, token, spec } = await setup(WITH_INPUTS);
    const rig = await client(spec);
    const url = await forwarder(service.address, [{ path: 'node_modules/.bin/node', bytes: Buffer.from('#!/bin/sh\nexit 0\n'), executable: true }]);
    const result = await remote(rig, url, token);
    expect(result.json().checks[0], result.stderr).toMatchObject({ status: 'FAIL', reason: 'exit_code' });
  });

  it('gate.require_remote: edit package.json, verify --remote, git checkout package.json: status is not PASS', async () => {
    const { service, token, spec } = await setup(WITHOUT_INPUTS.replace('version: 1\n', 'version: 1\ngate: {require_remote: true}\n'));
    const rig = await client(spec);
    const git = (...args: string[]) =>
      spawnSync('git', args, {
        cwd: rig.root,
        encoding: 'utf8',
        env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
      });
    git('init', '-q');
    git('add', '-A');
    expect(git('commit', '-qm', 'add').status).toBe(0);
    rig.write({ 'package.json': CHEATING_PACKAGE });
    const result = await remote(rig, service.address, token);
    expect(result.json().checks[0].status, result.stderr).not.toBe('PASS');
    expect(git('checkout', 'package.json').status).toBe(0);
    const status = (await rig.run(['status', '--json'])).json().checks[0];
    expect(['STALE', 'UNKNOWN', 'FAIL']).toContain(status.status);
  });
});
