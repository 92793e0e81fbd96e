import { readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describePg, tempDatabase, type TempDatabase } from './helpers/pg.js';
import { Service } from './helpers/service.js';

/**
 * Issue 24, the API's front door: connections capped per address and in
 * all, idle and slow ones closed, and every answer that is not a success in
 * the documented shape, also those fastify and Node's parser give before a
 * route runs. Against a real `vouch serve` (API only).
 */
const ERROR_SHAPE = { error: { code: expect.any(String), message: expect.any(String) } };

/** Sends exactly these bytes and reads the answer until the server closes: status and JSON body. */
function raw(address: string, bytes: string): Promise<{ status: number; json: any }> {
  const url = new URL(address);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const body = text.slice(text.indexOf('\r\n\r\n') + 4);
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = body;
      }
      resolve({ status, json });
    });
  });
}

/** An idle connection from `from` (another loopback address): resolves once it is open or refused; `closed` says when the server closed it. */
function idle(address: string, from: string): { socket: Socket; settled: Promise<void>; closed: Promise<string> } {
  const url = new URL(address);
  const socket = connect({ host: url.hostname, port: Number(url.port), localAddress: from });
  let answered = '';
  socket.on('data', (chunk: Buffer) => (answered += chunk.toString()));
  socket.on('error', () => undefined);
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(answered)));
  // Open, then a moment for the server to close it if it is over a cap (the close is seen here as it happens).
  const settled = Promise.race([new Promise<void>((resolve) => socket.on('connect', () => resolve())), closed.then(() => undefined)]);
  return { socket, settled, closed };
}

describePg('the API front door (issue 24): connection caps, timeouts, error shapes', () => {
  let db: TempDatabase;
  let schema = 0;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    db = await tempDatabase();
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.destroy();
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** `vouch serve --workers 0` with at most 256 descriptors (prlimit), as an operator's default limit may be. */
  async function serve(extra: string[] = []) {
    const service = await Service.prepare(`${db.url}?schema=front_${++schema}`);
    await service.start(['--workers', '0', ...extra], {}, undefined, ['/usr/bin/prlimit', '--nofile=256:256', '--']);
    return service;
  }
  const healthz = (service: Service) =>
    fetch(`${service.address}/v1/healthz`, { signal: AbortSignal.timeout(10_000) })
      .then(async (response) => ({ status: response.status, json: await response.json() }))
      .catch((error: Error) => ({ status: 0, json: error.message }));

  it('attack: 300 idle connections from one address (no token needed) against a server allowed 256 descriptors: all but 32 are closed at once, and a healthz from elsewhere is answered', async () => {
    const service = await serve();
    expect(service.log).toMatch(
      /conns {4}192 at once \(the descriptor limit leaves room for no more than 512\), 32 per address; headers within 10 s, idle 30 s, keep-alive 5 s/,
    );
    const held = Array.from({ length: 300 }, () => idle(service.address, '127.0.0.2'));
    sockets.push(...held.map((h) => h.socket));
    await Promise.all(held.map((h) => h.settled));
    // Refused ones are closed by the server (with a 503 in the documented shape, when it can be read).
    const refused = await Promise.all(
      held.map((h) => Promise.race([h.closed, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 3000))])),
    );
    const closed = refused.filter((answer) => answer !== undefined);
    expect(closed.length).toBeGreaterThanOrEqual(300 - 32);
    const answers = closed.filter((answer) => answer.startsWith('HTTP/1.1 503'));
    for (const answer of answers)
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({
        error: { code: 'unavailable', message: 'too many connections from 127.0.0.2', limit: 32 },
      });
    expect(await healthz(service)).toMatchObject({ status: 200, json: { ok: true } });
    expect(readdirSync(`/proc/${service.process!.pid}/fd`).length).toBeLessThan(256);
  });

  it('attack: connections from many addresses stop at the total cap, below the descriptor limit; the server answers again once they go', async () => {
    const service = await serve();
    const held = [];
    for (let a = 10; a < 20; a++) for (let i = 0; i < 25; i++) held.push(idle(service.address, `127.0.0.${a}`));
    sockets.push(...held.map((h) => h.socket));
    await Promise.all(held.map((h) => h.settled));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const open = held.filter((h) => !h.socket.destroyed && h.socket.readyState === 'open').length;
    expect(open).toBeLessThanOrEqual(192);
    expect(readdirSync(`/proc/${service.process!.pid}/fd`).length).toBeLessThan(256);
    for (const h of held) h.socket.destroy();
    await Promise.all(held.map((h) => h.closed));
    // The server counts a connection until it is closed; give it a moment to see the closes.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await healthz(service)).toMatchObject({ status: 200, json: { ok: true } });
  });

  it('attack: a connection that never sends a byte, and one that sends half a request head, are answered 408 request_timeout and closed', async () => {
    const service = await serve();
    const silent = idle(service.address, '127.0.0.3');
    sockets.push(silent.socket);
    const slow = idle(service.address, '127.0.0.4');
    sockets.push(slow.socket);
    await slow.settled;
    slow.socket.write('GET /v1/healthz HTTP/1.1\r\nHost: x\r\n');
    const slowAnswer = await slow.closed;
    expect(slowAnswer).toMatch(/^HTTP\/1\.1 408/);
    expect(JSON.parse(slowAnswer.slice(slowAnswer.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: { code: 'request_timeout', limit: 10 } });
    const silentAnswer = await silent.closed;
    expect(silentAnswer).toMatch(/^HTTP\/1\.1 408/);
    expect(JSON.parse(silentAnswer.slice(silentAnswer.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: { code: 'request_timeout' } });
  });

  it.each([
    ['a bad escape in the path', 400, 'bad_request', 'GET /v1/jobs/% HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a bad escape in a receipt id', 400, 'bad_request', 'GET /v1/receipts/%zz HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['an id of 200 characters', 404, 'not_found', `GET /v1/jobs/${'a'.repeat(200)} HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['headers of 20 KiB', 431, 'headers_too_large', `GET /v1/healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20 * 1024)}\r\n\r\n`],
    ['a request line that is not HTTP', 400, 'bad_request', 'HELLO THERE\r\n\r\n'],
  ])('error shape: %s is answered %i {"error": {"code": "%s", ...}}', async (_what, status, code, bytes) => {
    const service = await serve();
    const answer = await raw(service.address, bytes);
    expect(answer.status).toBe(status);
    expect(answer.json).toMatchObject(ERROR_SHAPE);
    expect(answer.json.error.code).toBe(code);
  });
});
