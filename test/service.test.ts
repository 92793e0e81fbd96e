import { createHash, createPrivateKey, randomBytes, sign as edSign } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { canonicalize } from '../src/core/jcs.js';
import { packTarGz } from '../src/archive/pack.js';
import { bodyAt } from './helpers/ledger-db.js';
import { McpSession, textOf } from './helpers/mcp.js';
import { describePg, sql, tempDatabase, type TempDatabase } from './helpers/pg.js';
import { Rig } from './helpers/rig.js';
import { jobsPath, Service } from './helpers/service.js';

const CHECKS = `version: 1
checks:
  - {id: ok, run: ["sh", "-c", "test -f src/a.txt && touch ran-ok"], sources: ["src/**"]}
  - {id: bad, run: ["sh", "-c", "exit 3"], sources: ["src/**"]}
`;

describePg('the verifier service: vouch serve, vouch worker, vouch verify --remote', () => {
  let db: TempDatabase;
  let schema = 0;
  const proxies: Server[] = [];
  beforeAll(async () => {
    db = await tempDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });
  afterEach(async () => {
    for (const proxy of proxies.splice(0)) await new Promise((resolve) => proxy.close(resolve));
  });

  interface Setup {
    service: Service;
    token: string;
    /** The client's vouch.yaml: CHECKS plus verifier_key, allowed on the server byte for byte. */
    spec: string;
  }

  async function setup(serveArgs: string[] = ['--workers', '1'], checks = CHECKS): Promise<Setup> {
    const service = await Service.prepare(`${db.url}?schema=svc_${++schema}`);
    const spec = `${checks}verifier_key: ${service.publicKeyHex}\n`;
    await service.allow(spec);
    const token = await service.token('alice');
    await service.start(serveArgs);
    return { service, token, spec };
  }

  async function client(spec: string): Promise<Rig> {
    const rig = new Rig().write({ 'src/a.txt': 'hello\n', 'src/b.txt': 'world\n' });
    await rig.spec(spec);
    return rig;
  }

  function remote(rig: Rig, address: string, token: string | undefined, args: string[] = []) {
    return rig.run(['verify', ...args, '--remote', address, '--insecure-loopback', '--json'], { env: { ...(token !== undefined && { VOUCH_TOKEN: token }) } });
  }

  /** A local HTTP server in front of the service that lets a test rewrite its answers. */
  async function proxy(target: string, rewrite: (path: string, json: any) => any): Promise<string> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        void (async () => {
          const body = Buffer.concat(chunks);
          const upstream = await fetch(`${target}${request.url}`, {
            method: request.method,
            headers: { authorization: request.headers.authorization ?? '', ...(body.length > 0 && { 'content-type': 'application/gzip' }) },
            ...(body.length > 0 && { body }),
          });
          const json = rewrite(request.url ?? '', await upstream.json());
          response.writeHead(upstream.status, { 'content-type': 'application/json' });
          response.end(JSON.stringify(json));
        })();
      });
    });
    proxies.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('runs the checks on a clean copy, signs them with the server key; the client records them and status shows them with the verifier key id', async () => {
    const { service, token, spec } = await setup();
    const rig = await client(spec);
    const result = await remote(rig, service.address, token);
    expect(
      result.json().checks.map((c: any) => `${c.id}:${c.status}:${c.reason}`),
      result.stderr,
    ).toEqual(['ok:PASS:ok', 'bad:FAIL:exit_code']);
    expect(result.code).toBe(1);
    // The key id the client reports is the SHA-256 of the server's raw public key, the one the client pinned.
    const keyid = createHash('sha256').update(Buffer.from(service.publicKeyHex, 'hex')).digest('hex');
    expect(result.json().verifier).toBe(keyid);
    expect(result.stderr).toMatch(/packed \d+ files/);
    expect(result.stderr).toMatch(/submitted job [0-9a-z]{26}/);
    // Nothing ran here: the check's marker file exists only in the server's job directory.
    expect(existsSync(rig.path('ran-ok'))).toBe(false);
    const status = (await rig.run(['status', '--json'])).json();
    expect(status.checks.map((c: any) => `${c.id}:${c.status}`)).toEqual(['ok:PASS', 'bad:FAIL']);
    expect(status.checks[0].verifier).toBe(keyid);
    expect((await rig.run(['status', 'ok'])).stdout).toContain(`remote, verifier ${keyid.slice(0, 16)}`);
    // The local ledger audits clean too.
    expect((await rig.run(['audit', '--json'])).json()).toMatchObject({ ok: true, receipts: 2 });
    // The verifier keeps no log (the check could point the job's .vouch/logs outside it); the copy says where the output is not.
    expect((await rig.run(['show', 'bad', '--json'])).json().receipt.log).toBeUndefined();
    const log = await rig.run(['show', 'bad', '--log']);
    expect(log.code).toBe(6);
    expect(log.stderr).toContain('it was copied from a verifier service');
    // Edit a covered file: the remote PASS goes STALE like a local one.
    rig.write({ 'src/a.txt': 'edited\n' });
    expect((await rig.run(['status', 'ok', '--json'])).json().checks[0]).toMatchObject({
      status: 'STALE',
      reason: 'fingerprint_changed',
      changed: { modified: ['src/a.txt'] },
    });
    // The server's chain holds both receipts, signed by its key, and audits clean with it alone.
    const audit = await new Rig().run(['audit', '--ledger', service.ledger, '--key', service.publicKeyHex, '--json']);
    expect(audit.json()).toMatchObject({ ok: true, receipts: 2, unsigned: 0 });
    const shown = (await rig.run(['show', status.checks[0].receipt, '--json'])).json();
    expect(shown.receipt).toMatchObject({ actor: 'service', remote: { keyid: status.checks[0].verifier } });
    expect(shown.receipt.service.sandbox.kind).toBe(existsSync('/usr/bin/bwrap') ? 'bubblewrap' : 'none');
  });

  it('the report marks remote receipts with the verifier key id, in the current status and in the history', async () => {
    const { service, token, spec } = await setup();
    const rig = await client(spec);
    await rig.run(['verify', 'bad']);
    expect((await remote(rig, service.address, token, ['ok'])).json().checks[0]).toMatchObject({ status: 'PASS' });
    const keyid = createHash('sha256').update(Buffer.from(service.publicKeyHex, 'hex')).digest('hex').slice(0, 16);
    const report = await rig.run(['report', '--out', '-']);
    expect(report.code, report.stderr).toBe(0);
    const row = (id: string) => {
      const start = report.stdout.indexOf(`<tr id="check-${id}">`);
      return report.stdout.slice(start, report.stdout.indexOf('</details>', start));
    };
    // Status ("now") and the last receipt, then the history table's "by" column.
    expect(row('ok')).toContain(`<div class="note">remote, verifier ${keyid}</div>`);
    expect(row('ok')).toContain(`by service (remote, verifier ${keyid})`);
    expect(row('ok')).toMatch(new RegExp(`<td>service \\(remote, verifier ${keyid}\\)</td>`));
    // A local receipt is not marked.
    expect(row('bad')).not.toContain('remote, verifier');
    expect(row('bad')).toContain('by cli');
    // The MCP status marks it too, in its data and its text.
    const mcp = await McpSession.connect(rig);
    await mcp.client.listTools();
    const status = await mcp.call('vouch_status', { check_ids: ['ok'] });
    expect((status.structuredContent as any).checks[0]).toMatchObject({ status: 'PASS', verifier: expect.stringMatching(new RegExp(`^${keyid}`)) });
    expect(textOf(status)).toContain(`ok (remote, verifier ${keyid})`);
  });

  it('no token, no job: a missing token stops the client (exit 2); an unknown or revoked one is refused with 401', async () => {
    const { service, token, spec } = await setup(['--workers', '0']);
    const rig = await client(spec);
    const missing = await remote(rig, service.address, undefined);
    expect(missing.code).toBe(2);
    expect(missing.json().error.message).toContain('VOUCH_TOKEN');
    const wrong = await remote(rig, service.address, 'vouch_not-a-real-token');
    expect(wrong.json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'remote_refused' });
    expect(wrong.json().checks[0].detail).toContain('unauthorized (HTTP 401)');
    expect((await service.rig.run(['serve', 'token', 'revoke', 'alice', '--ledger', service.ledger])).code).toBe(0);
    const revoked = await remote(rig, service.address, token);
    expect(revoked.json().checks[0].detail).toContain('unknown or revoked');
    expect((await service.fetch('/v1/jobs', { method: 'POST', body: Buffer.from('x') })).status).toBe(401);
    expect(await sql(db.url, `SELECT 1 FROM svc_${schema}.jobs`)).toHaveLength(0);
    const listed = (await service.rig.run(['serve', 'token', 'list', '--ledger', service.ledger, '--json'])).json();
    expect(listed).toEqual([expect.objectContaining({ name: 'alice', revoked_at: expect.any(String) })]);
    const stored = await sql<{ token_sha256: string }>(db.url, `SELECT token_sha256 FROM svc_${schema}.service_tokens`);
    expect(stored[0]!.token_sha256).not.toContain(token.slice(6, 20));
  });

  it('a client sees only its own jobs and receipts: another token gets 404 for them', async () => {
    const { service, token, spec } = await setup();
    const rig = await client(spec);
    const result = (await remote(rig, service.address, token, ['ok'])).json();
    const bob = await service.token('bob');
    expect((await service.fetch(`/v1/jobs/${result.checks[0].job}`, { token })).status).toBe(200);
    expect((await service.fetch(`/v1/jobs/${result.checks[0].job}`, { token: bob })).status).toBe(404);
    expect((await service.fetch(`/v1/receipts/${result.checks[0].remote_receipt}`, { token })).status).toBe(200);
    expect((await service.fetch(`/v1/receipts/${result.checks[0].remote_receipt}`, { token: bob })).json.error.code).toBe('not_found');
    expect((await service.fetch('/v1/healthz')).json).toMatchObject({ ok: true, database: 'ok' });
  });

  it('refuses a tree whose spec the server never allowed (403), and says what to do', async () => {
    const { service, token, spec } = await setup(['--workers', '0']);
    const rig = await client(spec.replace('exit 3', 'exit 4'));
    const result = await remote(rig, service.address, token);
    expect(result.json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'remote_refused' });
    expect(result.json().checks[0].detail).toMatch(/spec_not_allowed \(HTTP 403\).*vouch serve allow/);
  });

  it('limits: an upload over --max-upload-mb is 413, a job longer than --max-job-seconds is 422, each naming the limit and what was found', async () => {
    const { service, token, spec } = await setup(['--workers', '0', '--max-upload-mb', '1', '--max-job-seconds', '200']);
    const rig = await client(spec);
    rig.write({ 'src/big.bin': randomBytes(1_500_000).toString('base64') });
    const big = await remote(rig, service.address, token);
    expect(big.json().checks[0].detail).toMatch(/upload_too_large \(HTTP 413\).*limit 1048576, found \d+/);
    const slow = await client(spec);
    const long = await remote(slow, service.address, token);
    expect(long.json().checks[0].detail).toMatch(/job_time_limit \(HTTP 422\).*limit 200, found 240/);
    const specSha = createHash('sha256').update(spec).digest('hex');
    const archive = await packTarGz([{ path: 'vouch.yaml', bytes: Buffer.from(spec), executable: false }]);
    const one = await service.fetch(jobsPath(specSha, ['ok']), { method: 'POST', token, body: archive });
    expect(one.status).toBe(202);
  });

  it.each([
    ['text/plain', 'x'],
    ['application/json', '{"tree": "not a tar"}'],
    ['application/json', '{not json'],
    ['application/octet-stream', 'x'],
    ['application/x-www-form-urlencoded', 'a=b'],
  ])('an upload sent as %s (%s) is 415 unsupported_media_type, never parsed or queued', async (type, body) => {
    const { service, token, spec } = await setup(['--workers', '0']);
    const specSha = createHash('sha256').update(spec).digest('hex');
    const sent = await service.fetch(jobsPath(specSha, ['ok']), { method: 'POST', token, body: Buffer.from(body), contentType: type });
    expect(sent.status).toBe(415);
    expect(sent.json.error).toMatchObject({ code: 'unsupported_media_type', found: type });
    expect(sent.json.error.hint).toContain('application/gzip');
    expect(await sql(db.url, `SELECT 1 FROM svc_${schema}.jobs`)).toHaveLength(0);
  });

  it('an upload with no Content-Type at all is 415 too', async () => {
    const { service, token, spec } = await setup(['--workers', '0']);
    const specSha = createHash('sha256').update(spec).digest('hex');
    const archive = await packTarGz([{ path: 'vouch.yaml', bytes: Buffer.from(spec), executable: false }]);
    const response = await fetch(`${service.address}${jobsPath(specSha, ['ok'])}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: new Uint8Array(archive),
    });
    expect(response.status).toBe(415);
    expect(((await response.json()) as any).error).toMatchObject({ code: 'unsupported_media_type', found: '(none)' });
  });

  it('healthz needs no token with a query string either; every other route still does', async () => {
    const { service } = await setup(['--workers', '0']);
    for (const path of ['/v1/healthz', '/v1/healthz?x=1', '/v1/healthz?']) {
      const health = await service.fetch(path);
      expect(health.status, path).toBe(200);
      expect(health.json, path).toMatchObject({ ok: true, database: 'ok' });
    }
    // A query naming healthz does not open another route.
    expect((await service.fetch('/v1/jobs/01m8p4w5s3h7dty1vaxab2xmkf?/v1/healthz')).status).toBe(401);
    expect((await service.fetch('/v1/healthz/../jobs/01m8p4w5s3h7dty1vaxab2xmkf')).status).toBe(401);
  });

  it('limits: a client with --max-jobs-per-client jobs open gets 429 with the limit', async () => {
    const { service, token, spec } = await setup(['--workers', '0', '--max-jobs-per-client', '2']);
    const rig = await client(spec);
    const archive = await packTarGz([{ path: 'vouch.yaml', bytes: Buffer.from(spec), executable: false }]);
    const specSha = createHash('sha256').update(spec).digest('hex');
    const submit = () => service.fetch(jobsPath(specSha, ['ok']), { method: 'POST', token, body: archive });
    expect((await submit()).status).toBe(202);
    expect((await submit()).status).toBe(202);
    const third = await submit();
    expect(third.status).toBe(429);
    expect(third.json.error).toMatchObject({ code: 'too_many_jobs', limit: 2, found: 2 });
    const result = await remote(rig, service.address, token);
    expect(result.json().checks[0].detail).toContain('too_many_jobs (HTTP 429)');
  });

  it('http:// is refused unless loopback and --insecure-loopback; nothing is sent', async () => {
    const { service, token, spec } = await setup(['--workers', '0']);
    const rig = await client(spec);
    const plain = await rig.run(['verify', '--remote', service.address, '--json'], { env: { VOUCH_TOKEN: token } });
    expect(plain.code).toBe(2);
    expect(plain.json().error.message).toContain('refused unless asked for');
    const far = await rig.run(['verify', '--remote', 'http://verifier.invalid:8787', '--insecure-loopback', '--json'], { env: { VOUCH_TOKEN: token } });
    expect(far.code).toBe(2);
    expect(far.json().error.message).toContain('not on this machine');
    expect(await sql(db.url, `SELECT 1 FROM svc_${schema}.jobs`)).toHaveLength(0);
  });

  it('a redirect is refused, never followed: UNKNOWN, nothing recorded', async () => {
    const { service, token, spec } = await setup(['--workers', '0']);
    const rig = await client(spec);
    const redirector = createServer((request, response) => {
      response.writeHead(307, { location: `${service.address}${request.url}` });
      response.end();
    });
    proxies.push(redirector);
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    const result = await remote(rig, `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`, token);
    expect(result.json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'remote_unavailable' });
    expect(result.json().checks[0].detail).toContain('redirect (307');
    expect(await sql(db.url, `SELECT 1 FROM svc_${schema}.jobs`)).toHaveLength(0);
    expect(existsSync(rig.path('.vouch/ledger.db'))).toBe(false);
  });

  it('server down: tried again within --wait, then UNKNOWN/remote_unavailable, nothing run locally in its place, nothing recorded', async () => {
    const { service, token, spec } = await setup(['--workers', '0']);
    const rig = await client(spec);
    service.process!.kill('SIGKILL');
    await new Promise((resolve) => service.process!.once('exit', resolve));
    const result = await remote(rig, service.address, token, ['--wait', '2']);
    expect(result.code).toBe(1);
    expect(result.json().checks.map((c: any) => `${c.status}:${c.reason}`)).toEqual(['UNKNOWN:remote_unavailable', 'UNKNOWN:remote_unavailable']);
    expect(result.stderr).toMatch(/verifier unavailable \(POST \/v1\/jobs: ECONNREFUSED\); trying again in/);
    expect(result.json().checks[0].detail).toMatch(/ECONNREFUSED \(still, after \d+ tries within --wait\)/);
    expect(existsSync(rig.path('ran-ok'))).toBe(false);
    expect(existsSync(rig.path('.vouch/ledger.db'))).toBe(false);
  });

  it('a receipt checked with the wrong pinned key is never accepted', async () => {
    const { service, token } = await setup(['--workers', '1'], CHECKS);
    // A client pinning some other key on the command line (the spec itself pins none).
    await service.allow(CHECKS);
    const rig = await client(CHECKS);
    const other = await rig.run(['keys', 'generate', '--name', 'someone-else']);
    expect(other.code).toBe(0);
    const result = await remote(rig, service.address, token, ['--pubkey', 'someone-else']);
    expect(result.json().checks.map((c: any) => `${c.status}:${c.reason}`)).toEqual(['UNKNOWN:remote_unverified', 'UNKNOWN:remote_unverified']);
    expect(result.json().checks[0].detail).toContain('not the pinned verifier key');
    expect(existsSync(rig.path('.vouch/ledger.db'))).toBe(false);
    // --pubkey that contradicts verifier_key in the spec is a usage error.
    const pinned = await client(`${CHECKS}verifier_key: ${service.publicKeyHex}\n`);
    const contradiction = await remote(pinned, service.address, token, ['--pubkey', 'a'.repeat(64)]);
    expect(contradiction.code).toBe(2);
  });

  it.each([
    [
      'a flipped signature',
      (json: any) => ({
        ...json,
        receipt: { ...json.receipt, signature: json.receipt.signature.replace(/"sig":"(.)/, (_: string, c: string) => `"sig":"${c === 'A' ? 'B' : 'A'}`) },
      }),
      'does not verify',
    ],
    ['a missing signature', (json: any) => ({ ...json, receipt: { ...json.receipt, signature: null } }), 'unsigned'],
    [
      'an edited body',
      (json: any) => ({
        ...json,
        receipt: {
          ...json.receipt,
          body: json.receipt.body
            .replace(/"exit_code":\d+/, '"exit_code":0')
            .replace(/"verdict":"\w+"/, '"verdict":"PASS"')
            .replace('"actor":"service"', '"actor":"cli"'),
        },
      }),
      'does not verify',
    ],
    [
      'a manifest that does not hash to the signed digest',
      (json: any) => ({ ...json, manifest: { ...json.manifest, files: json.manifest.files.slice(1) } }),
      'does not hash to the manifest_digest',
    ],
  ])('a tampered answer is never PASS: %s', async (_name, rewrite, why) => {
    const { service, token, spec } = await setup();
    const rig = await client(spec);
    const url = await proxy(service.address, (path, json) => (path.startsWith('/v1/receipts/') ? rewrite(json) : json));
    const result = await remote(rig, url, token);
    for (const check of result.json().checks) {
      expect(check).toMatchObject({ status: 'UNKNOWN', reason: 'remote_unverified' });
      expect(check.detail).toContain(why);
    }
    expect(existsSync(rig.path('.vouch/ledger.db'))).toBe(false);
  });

  it.each([
    ['another spec hash', (body: any) => ({ ...body, spec_sha256: 'f'.repeat(64) }), 'is for spec ffffffffffff'],
    ['files that are not these', (body: any) => ({ ...body, manifest_digest: 'e'.repeat(64) }), 'does not bind'],
    ['another job', (body: any) => ({ ...body, service: { ...body.service, job: '01m8p4w5s3h7dty1vaxab2xmkf' } }), 'answers job 01m8p4w5s3h7dty1vaxab2xmkf'],
  ])('a receipt signed by the right key but for %s is never accepted', async (_name, change, why) => {
    const { service, token, spec } = await setup();
    const rig = await client(spec);
    const key = createPrivateKey(readFileSync(join(service.rig.home, 'keys', 'server.key'), 'utf8'));
    const url = await proxy(service.address, (path, json) => {
      if (!path.startsWith('/v1/receipts/')) return json;
      const text = canonicalize(change(JSON.parse(json.receipt.body)));
      const record = JSON.parse(json.receipt.signature);
      const signature = canonicalize({ ...record, sig: edSign(null, Buffer.from(text), key).toString('base64') });
      return { ...json, receipt: { ...json.receipt, body: text, signature } };
    });
    const result = await remote(rig, url, token, ['ok']);
    expect(result.json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'remote_unverified' });
    expect(result.json().checks[0].detail).toContain(why);
  });

  it('a local file changed after packing does not bind: the receipt is refused, not recorded', async () => {
    const { service, token, spec } = await setup();
    const rig = await client(spec);
    const url = await proxy(service.address, (path, json) => {
      // The moment the job is submitted, the "agent" edits a covered file.
      if (path.startsWith('/v1/jobs?')) rig.write({ 'src/b.txt': 'changed behind the verifier\n' });
      return json;
    });
    const result = await remote(rig, url, token, ['ok']);
    expect(result.json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'remote_unverified' });
    expect(result.json().checks[0].detail).toContain('src/b.txt differs from the verified tree');
  });

  it('a forged local copy of a remote receipt (FAIL rewritten as PASS, re-hashed and appended) is UNKNOWN in status', async () => {
    const { service, token, spec } = await setup();
    const rig = await client(spec);
    await remote(rig, service.address, token, ['bad']);
    const Database = (await import('better-sqlite3')).default;
    const ledger = new Database(rig.path('.vouch/ledger.db'));
    const row = ledger.prepare('SELECT * FROM chain ORDER BY seq DESC LIMIT 1').get() as { seq: number; id: string; hash: string; manifest: string };
    const forged = {
      ...JSON.parse(bodyAt(ledger, row.seq)),
      id: '01m8p4w5s3h7dty1vaxab2xmkg',
      verdict: 'PASS',
      reason: 'ok',
      exit_code: 0,
      prev_hash: row.hash,
    };
    const text = canonicalize(forged);
    const { sha256 } = await import('../src/core/digest.js');
    ledger
      .prepare('INSERT INTO chain (id, kind, check_id, manifest, created_at, hash, body, signature) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)')
      .run(forged.id, 'receipt', 'bad', row.manifest, Date.now(), sha256(text), text);
    ledger.close();
    const status = (await rig.run(['status', 'bad', '--json'])).json().checks[0];
    expect(status).toMatchObject({ status: 'UNKNOWN', reason: 'signature_invalid' });
    expect(status.detail).toContain('disagrees');
  });

  it('hostile archives are refused by the worker, nothing is written outside the job directory, the job ends failed with the reason', async () => {
    const { service, token, spec } = await setup();
    const specSha = createHash('sha256').update(spec).digest('hex');
    const tar = await import('tar-stream');
    const { createGzip } = await import('node:zlib');
    const build = async (entries: { name: string; type?: string; linkname?: string; body?: string }[]) => {
      const pack = tar.pack();
      const chunks: Buffer[] = [];
      const gzip = createGzip();
      gzip.on('data', (c: Buffer) => chunks.push(c));
      const done = new Promise((resolve) => gzip.on('end', resolve));
      (pack as any).pipe(gzip);
      pack.entry({ name: 'vouch.yaml' }, spec);
      for (const entry of entries)
        pack.entry({ name: entry.name, type: (entry.type ?? 'file') as 'file', ...(entry.linkname && { linkname: entry.linkname }) }, entry.body ?? '');
      pack.finalize();
      await done;
      return Buffer.concat(chunks);
    };
    const marker = `vouch-escape-${process.pid}-${Date.now()}`;
    const cases: [string, Buffer, string][] = [
      ['dot-dot', await build([{ name: `../../../../tmp/${marker}`, body: 'x' }]), 'path_escape'],
      ['absolute', await build([{ name: `/tmp/${marker}`, body: 'x' }]), 'path_escape'],
      ['symlink out', await build([{ name: 'src/a.txt', type: 'symlink', linkname: '/etc/passwd' }]), 'link'],
      ['hard link', await build([{ name: 'src/a.txt', type: 'link', linkname: '/etc/passwd' }]), 'link'],
      ['device', await build([{ name: 'src/dev', type: 'character-device' }]), 'special_file'],
      ['not a tar', Buffer.from('definitely not gzip'), 'not_an_archive'],
    ];
    for (const [name, archive, reason] of cases) {
      const submitted = await service.fetch(jobsPath(specSha, ['ok']), { method: 'POST', token, body: archive });
      expect(submitted.status, name).toBe(202);
      const job = await service.settle(submitted.json.job.id, token);
      expect(job, name).toMatchObject({ state: 'failed', receipts: [], error: { code: 'archive_refused' } });
      expect(job.error.message, name).toContain(`(${reason})`);
    }
    expect(existsSync(`/tmp/${marker}`)).toBe(false);
  });

  it('a worker stopped with SIGTERM mid-check gives its job back to the queue; another worker completes it, with exactly one receipt', async () => {
    const slow = 'version: 1\nchecks:\n  - {id: slow, run: ["sh", "-c", "sleep 4"], sources: ["src/**"]}\n';
    const { service, token, spec } = await setup(['--workers', '0'], slow);
    const specSha = createHash('sha256').update(spec).digest('hex');
    const archive = await packTarGz([
      { path: 'vouch.yaml', bytes: Buffer.from(spec), executable: false },
      { path: 'src/a.txt', bytes: Buffer.from('hello\n'), executable: false },
    ]);
    const submitted = await service.fetch(jobsPath(specSha, ['slow']), { method: 'POST', token, body: archive });
    expect(submitted.status).toBe(202);
    const id = submitted.json.job.id as string;
    const first = service.worker(['--poll-ms', '50']);
    let log = '';
    first.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    for (let i = 0; ; i++) {
      if ((await service.fetch(`/v1/jobs/${id}`, { token })).json.job.state === 'running') break;
      if (i > 200) throw new Error(`the job never started:\n${log}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const exited = new Promise<number | null>((resolve) => first.once('exit', (code) => resolve(code)));
    await new Promise((resolve) => setTimeout(resolve, 300)); // into the check's sleep
    first.kill('SIGTERM');
    // 143: stopped by SIGTERM, as every vouch command (README, exit codes).
    expect(await exited).toBe(143);
    expect(log).toContain(`job ${id}: stopped; back in the queue`);
    const [row] = await sql<{ state: string; lease_owner: string | null; attempts: number }>(
      db.url,
      `SELECT state, lease_owner, attempts FROM svc_${schema}.jobs WHERE id = $1`,
      [id],
    );
    expect(row).toEqual({ state: 'queued', lease_owner: null, attempts: 0 });
    expect(await sql(db.url, `SELECT 1 FROM svc_${schema}.job_receipts`)).toHaveLength(0);
    // Another worker takes it and finishes it.
    const second = service.worker(['--poll-ms', '50', '--max-jobs', '1']);
    const job = await service.settle(id, token);
    expect(job).toMatchObject({ state: 'done', attempts: 1 });
    // The check ran to its end this time (a PASS after its 4 s), so the first worker was stopped mid-check.
    expect(job.receipts).toEqual([expect.objectContaining({ check_id: 'slow', verdict: 'PASS' })]);
    expect(Date.parse(job.finished_at) - Date.parse(job.started_at)).toBeGreaterThanOrEqual(4000);
    await new Promise((resolve) => (second.exitCode === null ? second.once('exit', resolve) : resolve(null)));
  });

  it('a tree whose vouch.yaml is not the hash the client named is refused by the worker (spec_mismatch)', async () => {
    const { service, token, spec } = await setup();
    const specSha = createHash('sha256').update(spec).digest('hex');
    const archive = await packTarGz([{ path: 'vouch.yaml', bytes: Buffer.from(`${spec}# changed\n`), executable: false }]);
    const submitted = await service.fetch(jobsPath(specSha, ['ok']), { method: 'POST', token, body: archive });
    const job = await service.settle(submitted.json.job.id, token);
    expect(job).toMatchObject({ state: 'failed', error: { code: 'spec_mismatch' } });
  });

  it('gate.require_remote: a local PASS does not let the agent stop, nothing runs locally, a remote PASS from the pinned verifier does', async () => {
    const checks = 'version: 1\ngate: {require_remote: true}\nchecks:\n  - {id: ok, run: ["sh", "-c", "test -f src/a.txt"], sources: ["src/**"]}\n';
    const { service, token, spec } = await setup(['--workers', '1'], checks);
    const rig = await client(spec);
    expect((await rig.run(['verify'])).code).toBe(0);
    const hook = (event: string, payload: Record<string, unknown>) =>
      rig.run(['hook', 'claude-code', event], {
        stdin: JSON.stringify({ session_id: 's1', cwd: rig.root, transcript_path: '/dev/null', hook_event_name: event, ...payload }),
      });
    await hook('PostToolUse', {
      tool_name: 'Write',
      tool_input: { file_path: rig.path('src/a.txt'), content: 'hello\n' },
      tool_response: { type: 'update' },
      tool_use_id: 't1',
      duration_ms: 1,
    });
    const blocked = await hook('Stop', { stop_hook_active: false });
    expect(blocked.code).toBe(0);
    expect(JSON.parse(blocked.stdout)).toMatchObject({ decision: 'block' });
    expect(blocked.stdout).toContain('remote_required');
    expect((await rig.run(['log', '--json'])).json()).toHaveLength(1);
    expect((await remote(rig, service.address, token)).json().checks[0]).toMatchObject({ status: 'PASS' });
    const allowed = await hook('Stop', { stop_hook_active: false });
    expect(allowed.stdout).toBe('');
    expect(allowed.code).toBe(0);
  });

  it('gate.require_remote without verifier_key is a spec error', async () => {
    const rig = new Rig().write({
      'src/a.txt': 'a',
      'vouch.yaml': 'version: 1\ngate: {require_remote: true}\nchecks:\n  - {id: ok, run: ["true"], sources: ["src/**"]}\n',
    });
    const result = await rig.run(['checks']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('require_remote needs the verifier key');
  });

  it('bubblewrap: a check gets no network, cannot read the server key even with VOUCH_HOME under /opt, cannot write /etc, writes a private /tmp and its job directory', async () => {
    if (!existsSync('/usr/bin/bwrap')) {
      if (process.env.CI) throw new Error('bubblewrap is required in CI (.ci/run installs it)');
      process.stderr.write('!!! bubblewrap not installed: the sandbox test is skipped\n');
      return;
    }
    const marker = `vouch-sandbox-escape-${process.pid}-${Date.now()}`;
    const probe = `version: 1
checks:
  - {id: net, run: ["node", "-e", "require('net').connect(5432, '127.0.0.1').on('connect', () => process.exit(0)).on('error', () => process.exit(7))"], sources: ["src/**"]}
  - {id: key, run: ["sh", "-c", "grep -q PRIVATE \\"$0\\" && exit 0 || exit 7", "KEYPATH"], sources: ["src/**"]}
  - {id: etc, run: ["sh", "-c", "echo x > /etc/MARKER && exit 0 || exit 7"], sources: ["src/**"]}
  - {id: tmp, run: ["sh", "-c", "echo x > /tmp/MARKER && test -s /tmp/MARKER"], sources: ["src/**"]}
  - {id: inside, run: ["sh", "-c", "echo ok > made-here && test -s made-here"], sources: ["src/**"]}
`;
    // An operator's VOUCH_HOME under a directory the sandbox binds read-only: the key must still be hidden.
    const opt = join('/opt', marker);
    try {
      const service = await Service.prepare(`${db.url}?schema=svc_${++schema}`, join(opt, 'home'));
      const keyPath = join(service.home, 'keys', 'server.key');
      expect(readFileSync(keyPath, 'utf8')).toContain('PRIVATE');
      const spec = `${probe.replace('KEYPATH', keyPath).replaceAll('MARKER', marker)}verifier_key: ${service.publicKeyHex}\n`;
      await service.allow(spec);
      const token = await service.token('alice');
      await service.start(['--workers', '1']);
      expect(service.log).toContain('sandbox  bubblewrap');
      const rig = await client(spec);
      const result = await remote(rig, service.address, token);
      // net, key and etc exit 7 when the sandbox stopped them: FAIL is the sandbox working.
      expect(
        result.json().checks.map((c: any) => `${c.id}:${c.status}`),
        result.stderr,
      ).toEqual(['net:FAIL', 'key:FAIL', 'etc:FAIL', 'tmp:PASS', 'inside:PASS']);
      const writable = [
        { place: 'job directory', kind: 'tmpfs', bytes: 2048 * 1024 * 1024 },
        { place: '/tmp', kind: 'tmpfs', bytes: 512 * 1024 * 1024 },
        { place: '/dev/shm', kind: 'tmpfs', bytes: 512 * 1024 * 1024 },
      ];
      expect(result.json().checks[0].sandbox).toMatchObject({ kind: 'bubblewrap', network: false, writable, confinement: { gaps: [] } });
      expect(existsSync(`/etc/${marker}`)).toBe(false);
      // The sandbox's /tmp is its own tmpfs: nothing written there reaches the host's.
      expect(existsSync(`/tmp/${marker}`)).toBe(false);
    } finally {
      rmSync(opt, { recursive: true, force: true });
      rmSync(`/etc/${marker}`, { force: true });
      rmSync(`/tmp/${marker}`, { force: true });
    }
  });
});
