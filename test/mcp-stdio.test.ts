import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { McpSession } from './helpers/mcp.js';
import type { ChildProcess } from 'node:child_process';
import { CLI, collect, Rig } from './helpers/rig.js';

/** Waits for a process to exit, keeping its output, without touching its stdin. */
function exited(child: ChildProcess): Promise<{ code: number | null; stderr: string }> {
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

const SPEC = `version: 1
checks:
  - {id: long, run: ["sh", "-c", "sleep 3"], sources: ["src/**"]}
  - {id: quick, run: ["./leak.sh"], sources: ["src/**"]}
  - {id: forever, run: ["sleep", "60"], sources: ["src/**"]}
`;

async function workspace(): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.ts': 'a\n' }).script('leak.sh', 'echo LEAK-STDOUT; echo LEAK-STDERR >&2');
  await rig.spec(SPEC);
  return rig;
}

/** A raw `vouch mcp` process that has been asked to verify `forever` and has reported that it runs. */
async function runningForever(rig: Rig): Promise<{ child: ChildProcess; done: ReturnType<typeof exited> }> {
  const child = rig.spawn(['mcp']);
  const done = exited(child);
  let seen = '';
  const progressed = new Promise<void>((resolve) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('notifications/progress')) resolve();
    });
  });
  const send = (message: object) => child.stdin!.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'vouch_verify', arguments: { check_ids: ['forever'] }, _meta: { progressToken: 1 } } });
  await progressed;
  return { child, done };
}

/** Resolves when the first progress notification of a call arrives: the check is running. */
function firstProgress(): { onprogress: () => void; started: Promise<void> } {
  let resolve!: () => void;
  const started = new Promise<void>((r) => (resolve = r));
  return { onprogress: () => resolve(), started };
}

describe('vouch mcp serves calls concurrently', () => {
  it('answers a status call while a 3-second verification is still running', async () => {
    const mcp = await McpSession.connect(await workspace());
    const order: string[] = [];
    const progress = firstProgress();
    const verify = mcp.call('vouch_verify', { check_ids: ['long'] }, { onprogress: progress.onprogress }).then((result) => {
      order.push('verify');
      return result;
    });
    await progress.started;
    const status = await mcp.call('vouch_status', { check_ids: ['long'] });
    order.push('status');
    // While the check runs there is no receipt for it yet: status says so rather than waiting.
    expect((status.structuredContent as any).checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'no_receipt' });
    const verified = await verify;
    expect(order).toEqual(['status', 'verify']);
    expect((verified.structuredContent as any).checks[0]).toMatchObject({ status: 'PASS', reason: 'ok' });
  });

  it('runs two verifications one after the other, as the CLI does, while reads go on', async () => {
    const rig = await workspace();
    const mcp = await McpSession.connect(rig);
    const progress = firstProgress();
    const queued: string[] = [];
    const first = mcp.call('vouch_verify', { check_ids: ['long'] }, { onprogress: progress.onprogress });
    await progress.started;
    const second = mcp.call('vouch_verify', { check_ids: ['quick'] }, { onprogress: (p) => queued.push(p.message ?? '') });
    const [a, b] = await Promise.all([first, second]);
    expect(queued[0]).toBe('waiting for another verification in this workspace to finish');
    const receipt = async (result: any) =>
      (await mcp.call('vouch_receipt', { receipt_id: result.structuredContent.checks[0].receipt })).structuredContent as any;
    const long = (await receipt(a)).receipt;
    const quick = (await receipt(b)).receipt;
    expect(Date.parse(quick.started_at)).toBeGreaterThanOrEqual(Date.parse(long.finished_at));
  });
  it('a verification cancelled while it waits for its turn runs nothing', async () => {
    const rig = await workspace();
    const mcp = await McpSession.connect(rig);
    const progress = firstProgress();
    const first = mcp.call('vouch_verify', { check_ids: ['long'] }, { onprogress: progress.onprogress });
    await progress.started;
    const abort = new AbortController();
    const waiting = firstProgress();
    const second = mcp.call('vouch_verify', { check_ids: ['quick'] }, { onprogress: waiting.onprogress, signal: abort.signal });
    await waiting.started;
    abort.abort();
    await expect(second).rejects.toThrow();
    await first;
    // A later call is answered only after the queued one has had its turn: one receipt of quick, this one's.
    const later = (await mcp.call('vouch_verify', { check_ids: ['quick'] })).structuredContent as any;
    const log = (await rig.run(['log', '--json'])).json();
    expect(log.map((r: any) => [r.check_id, r.id])).toEqual([
      ['quick', later.checks[0].receipt],
      ['long', expect.any(String)],
    ]);
  });
});

describe('vouch mcp over raw stdio', () => {
  it('writes nothing but JSON-RPC messages on stdout, whatever the checks print', async () => {
    const rig = await workspace();
    const child = rig.spawn(['mcp']);
    const lines: string[] = [];
    let buffer = '';
    const waiters = new Map<number, () => void>();
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let at: number;
      while ((at = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        lines.push(line);
        try {
          const id = (JSON.parse(line) as { id?: number }).id;
          if (id !== undefined) waiters.get(id)?.();
        } catch {
          // Recorded as is; the assertions below reject it.
        }
      }
    });
    const done = exited(child);
    const send = (message: object) => child.stdin!.write(`${JSON.stringify(message)}\n`);
    const request = (id: number, method: string, params: object) =>
      new Promise<void>((resolve) => {
        waiters.set(id, resolve);
        send({ jsonrpc: '2.0', id, method, params });
      });

    await request(1, 'initialize', { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '0' } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    child.stdin!.write('this line is not JSON\n');
    await request(2, 'tools/list', {});
    await request(3, 'tools/call', { name: 'vouch_verify', arguments: { check_ids: ['quick'] }, _meta: { progressToken: 'p1' } });
    await request(4, 'tools/call', { name: 'vouch_status', arguments: {} });
    await request(5, 'tools/call', { name: 'vouch_checks', arguments: { argv: ['sh'] } });
    await request(6, 'no/such/method', {});
    child.stdin!.end();
    const result = await done;

    expect(result.code).toBe(0);
    expect(lines.length).toBeGreaterThanOrEqual(6);
    for (const line of lines) {
      const message = JSON.parse(line) as { jsonrpc: string };
      expect(message.jsonrpc, line).toBe('2.0');
    }
    const byId = new Map(
      lines
        .map((l) => JSON.parse(l) as { id?: number; result?: any; error?: any })
        .filter((m) => m.id !== undefined)
        .map((m) => [m.id, m]),
    );
    expect(byId.get(3)!.result.structuredContent.checks[0]).toMatchObject({ id: 'quick', status: 'PASS' });
    expect(byId.get(5)!.result.isError).toBe(true);
    expect(byId.get(6)!.error.code).toBe(-32601);
    // The check's own output went into its receipt, never onto the protocol stream.
    const raw = lines.join('\n');
    expect(raw).not.toContain('LEAK-STDERR');
    expect(raw).not.toContain('LEAK-STDOUT');
    const receipt = (await rig.run(['show', byId.get(3)!.result.structuredContent.checks[0].receipt, '--json'])).json().receipt;
    expect(receipt.stdout.excerpt).toBe('LEAK-STDOUT\n');
    expect(result.stderr).toContain('vouch mcp: serving');
  });

  it('refuses to start outside a workspace: exit 2, the reason on stderr, nothing on stdout', async () => {
    const rig = new Rig();
    const result = await rig.run(['mcp']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('no vouch.yaml in');
  });
});

describe('vouch mcp stops cleanly', () => {
  it('when the client goes away mid-check: the check is stopped, its receipt says interrupted, and the server exits 0', async () => {
    const rig = await workspace();
    const { child, done } = await runningForever(rig);
    child.stdin!.end();
    const result = await done;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('vouch mcp: stopped');
    const log = (await rig.run(['log', '--json'])).json();
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ check_id: 'forever', verdict: 'UNKNOWN', reason: 'interrupted', actor: 'mcp' });
  });

  it('on SIGTERM mid-check: the check is stopped and recorded as interrupted, and vouch exits 143', async () => {
    const rig = await workspace();
    const { child, done } = await runningForever(rig);
    child.kill('SIGTERM');
    expect((await done).code).toBe(143);
    const log = (await rig.run(['log', '--json'])).json();
    expect(log.map((r: any) => [r.check_id, r.reason, r.actor])).toEqual([['forever', 'interrupted', 'mcp']]);
  });

  it('when the client cancels a verification: the check is stopped and recorded as interrupted, and the server goes on', async () => {
    const rig = await workspace();
    const mcp = await McpSession.connect(rig);
    const abort = new AbortController();
    const progress = firstProgress();
    const verify = mcp.call('vouch_verify', { check_ids: ['forever'] }, { onprogress: progress.onprogress, signal: abort.signal });
    await progress.started;
    abort.abort();
    await expect(verify).rejects.toThrow();
    // The receipt is written once the process group is gone; status sees it.
    let status: any;
    do {
      status = (await mcp.call('vouch_status', { check_ids: ['forever'] })).structuredContent;
    } while (status.checks[0].reason === 'no_receipt');
    expect(status.checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'interrupted' });
    expect(((await mcp.call('vouch_verify', { check_ids: ['quick'] })).structuredContent as any).checks[0].status).toBe('PASS');
  });
});

const HOT_BUNDLE = join(dirname(CLI), 'hot.js');

describe('vouch mcp is loaded only by `vouch mcp`', () => {
  const recorder = fileURLToPath(new URL('./helpers/record-modules.mjs', import.meta.url));

  /** Every module the command loaded, and the sources bundled into them (from their source maps). */
  async function loaded(rig: Rig, args: string[]): Promise<{ modules: string[]; sources: string[] }> {
    const log = rig.path('../modules.log');
    rmSync(log, { force: true });
    const child = spawn(process.execPath, ['--import', recorder, CLI, ...args], {
      cwd: rig.root,
      env: { ...rig.env(), VOUCH_TEST_MODULE_LOG: log, VOUCH_TRACE: '1' },
    });
    const { stderr } = await collect(child, { stdin: '' });
    const modules = existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter((u) => u.startsWith('file:') && u.includes('/dist/'))
      : [];
    // The hot bundle is compiled by the launcher, not loaded as a module: the trace says when it answered.
    if (/\bbundle=hot\b/.test(stderr)) modules.push(pathToFileURL(HOT_BUNDLE).href);
    const sources = modules.flatMap((url) => (JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, 'utf8')) as { sources: string[] }).sources);
    return { modules, sources };
  }

  it('status, checks and install load no part of the MCP SDK; only `vouch mcp` does', async () => {
    const rig = await workspace();
    for (const command of [['status'], ['checks'], ['install', 'mcp', '--client', 'codex']]) {
      const other = await loaded(rig, command);
      expect(other.modules.length, command.join(' ')).toBeGreaterThan(1);
      expect(
        other.modules.filter((m) => m.endsWith('/mcp-server.js')),
        command.join(' '),
      ).toEqual([]);
      expect(
        other.sources.filter((s) => s.includes('@modelcontextprotocol') || s.includes('zod/v4/classic')),
        command.join(' '),
      ).toEqual([]);
    }
    // The same probe does see the SDK when `vouch mcp` runs, so its silence above means something.
    const mcp = await loaded(rig, ['mcp']);
    expect(mcp.sources.some((s) => s.includes('node_modules/@modelcontextprotocol/sdk/'))).toBe(true);
  });
});
