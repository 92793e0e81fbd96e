import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { Rig } from './rig.js';

/** POST /v1/jobs for these checks, with a fresh nonce as every client sends one. */
export function jobsPath(specSha: string, checks: readonly string[], nonce: string = randomBytes(32).toString('hex')): string {
  return `/v1/jobs?spec_sha256=${specSha}${checks.map((check) => `&check=${check}`).join('')}&nonce=${nonce}`;
}

/**
 * A real `vouch serve` on 127.0.0.1 (port 0: any free port) over a migrated
 * PostgreSQL schema, with its own VOUCH_HOME holding its signing key
 * ("server") and its trust list. Started as a child of a Rig, so it is
 * killed when the test ends.
 */
export class Service {
  private constructor(
    readonly rig: Rig,
    readonly ledger: string,
    readonly publicKeyHex: string,
    /** The server's VOUCH_HOME: the rig's own, unless the test placed it elsewhere. */
    readonly home: string,
  ) {}

  address = '';
  process: ChildProcess | undefined;
  log = '';

  /** A server home with key and migrated schema; not yet listening. `home` puts its VOUCH_HOME elsewhere than the rig's. */
  static async prepare(ledger: string, home?: string): Promise<Service> {
    const rig = new Rig();
    const env = { VOUCH_HOME: home ?? rig.home };
    const migrated = await rig.run(['db', 'migrate', '--ledger', ledger], { env });
    expect(migrated.code, migrated.stderr).toBe(0);
    const generated = await rig.run(['keys', 'generate', '--name', 'server'], { env });
    expect(generated.code, generated.stderr).toBe(0);
    const pub = (await rig.run(['keys', 'export-public', 'server', '--format', 'hex'], { env })).stdout.trim();
    return new Service(rig, ledger, pub, env.VOUCH_HOME);
  }

  private get env() {
    return { env: { VOUCH_HOME: this.home } };
  }

  /** Allows a spec (its exact bytes) on the server. */
  async allow(yaml: string): Promise<void> {
    this.rig.write({ 'allowed.yaml': yaml });
    const allowed = await this.rig.run(['serve', 'allow', 'allowed.yaml'], this.env);
    expect(allowed.code, allowed.stderr).toBe(0);
  }

  /**
   * Allows a spec the way an operator does from a checkout: `files` (with
   * vouch.yaml) are written to a directory of the server rig, and `serve
   * allow` pins their tool configs and inputs from it.
   */
  async allowTree(files: Record<string, string>): Promise<void> {
    this.rig.write(Object.fromEntries(Object.entries(files).map(([path, text]) => [`checkout/${path}`, text])));
    const allowed = await this.rig.run(['serve', 'allow', 'checkout/vouch.yaml'], this.env);
    expect(allowed.code, allowed.stderr).toBe(0);
  }

  async token(name: string): Promise<string> {
    const added = await this.rig.run(['serve', 'token', 'add', name, '--ledger', this.ledger], this.env);
    expect(added.code, added.stderr).toBe(0);
    return added.stdout.trim();
  }

  /** Starts `vouch serve` and waits for the address it prints; `env` adds to its environment, `fds` are descriptors it inherits (Rig's). */
  async start(
    extra: readonly string[] = [],
    env: Record<string, string> = {},
    fds?: Readonly<Record<number, number>>,
    prefix?: readonly string[],
  ): Promise<this> {
    const child = this.rig.spawn(['serve', '--ledger', this.ledger, '--key', 'server', '--listen', '127.0.0.1:0', ...extra], {
      env: { ...this.env.env, ...env },
      ...(fds && { fds }),
      ...(prefix && { prefix }),
    });
    this.process = child;
    child.stderr?.on('data', (chunk: Buffer) => (this.log += chunk.toString()));
    this.address = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`vouch serve did not start:\n${this.log}`)), 20_000);
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const line = out.split('\n')[0];
        if (out.includes('\n') && line) {
          clearTimeout(timer);
          resolve(line.trim());
        }
      });
      child.on('exit', () => reject(new Error(`vouch serve exited:\n${this.log}`)));
    });
    return this;
  }

  /** Starts a `vouch worker` against the same database and home. */
  worker(extra: readonly string[] = []): ChildProcess {
    return this.rig.spawn(['worker', '--ledger', this.ledger, '--key', 'server', ...extra], this.env);
  }

  /** A raw API call, as any HTTP client would make it. */
  async fetch(path: string, init: { token?: string; method?: string; body?: Buffer; contentType?: string } = {}): Promise<{ status: number; json: any }> {
    const response = await fetch(`${this.address}${path}`, {
      method: init.method ?? 'GET',
      redirect: 'manual',
      headers: {
        ...(init.token && { authorization: `Bearer ${init.token}` }),
        ...(init.body && { 'content-type': init.contentType ?? 'application/gzip' }),
      },
      ...(init.body && { body: init.body }),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: response.status, json };
  }

  /** Waits until a job leaves queued/running. */
  async settle(job: string, token: string, timeoutMs = 30_000): Promise<any> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const { json } = await this.fetch(`/v1/jobs/${job}`, { token });
      if (json.job.state === 'done' || json.job.state === 'failed') return json.job;
      if (Date.now() > end) throw new Error(`job ${job} still ${json.job.state}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
