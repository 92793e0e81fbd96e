import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach } from 'vitest';

export const CLI = resolve(import.meta.dirname, '../../dist/cli.js');

export interface RunResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout parsed as JSON (throws with the output if it is not). */
  json<T = any>(): T;
}

export interface RunOptions {
  readonly env?: Record<string, string | undefined>;
  readonly cwd?: string;
  readonly stdin?: string;
  readonly timeoutMs?: number;
  /** Descriptors the child inherits beyond 0-2, by number in the child: as a shell's `exec 20<file` gives them (no close-on-exec). */
  readonly fds?: Readonly<Record<number, number>>;
  /** A command that runs vouch (as `prlimit --nofile=256 --`): its argv before node's. */
  readonly prefix?: readonly string[];
}

/**
 * A temporary workspace with its own VOUCH_HOME, driven through the real CLI
 * in a real process. Files are written inline; everything is removed after
 * the test.
 */
export class Rig {
  readonly root: string;
  readonly home: string;
  private readonly children: ChildProcess[] = [];

  constructor() {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-test-')));
    this.root = join(base, 'ws');
    this.home = join(base, 'home');
    mkdirSync(this.root);
    mkdirSync(this.home);
    rigs.push(this);
  }

  path(relative: string): string {
    return join(this.root, relative);
  }

  write(files: Record<string, string>): this {
    for (const [relative, content] of Object.entries(files)) {
      const path = this.path(relative);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, content);
    }
    return this;
  }

  read(relative: string): string {
    return readFileSync(this.path(relative), 'utf8');
  }

  script(relative: string, body: string): this {
    this.write({ [relative]: `#!/bin/sh\n${body}\n` });
    chmodSync(this.path(relative), 0o755);
    return this;
  }

  symlink(target: string, relative: string): this {
    mkdirSync(dirname(this.path(relative)), { recursive: true });
    symlinkSync(target, this.path(relative));
    return this;
  }

  env(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
    return { PATH: process.env.PATH, HOME: this.home, VOUCH_HOME: this.home, NO_COLOR: '1', ...extra };
  }

  /** Starts `vouch ARGS` without waiting. */
  spawn(args: readonly string[], options: RunOptions = {}): ChildProcess {
    const [file, ...before] = [...(options.prefix ?? []), process.execPath];
    const child = spawn(file, [...before, CLI, ...args], {
      cwd: options.cwd ?? this.root,
      env: this.env(options.env),
      stdio: withFds(options.fds),
    });
    this.children.push(child);
    return child;
  }

  /** Runs `vouch ARGS` to completion. */
  run(args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
    const child = this.spawn(args, options);
    return collect(child, options);
  }

  /** Writes vouch.yaml and allows it. */
  async spec(yaml: string): Promise<this> {
    this.write({ 'vouch.yaml': yaml });
    const allowed = await this.run(['allow']);
    if (allowed.code !== 0) throw new Error(`allow failed: ${allowed.stderr}`);
    return this;
  }

  dispose(): void {
    for (const child of this.children) if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dirname(this.root), { recursive: true, force: true });
  }
}

function withFds(fds: Readonly<Record<number, number>> | undefined): ('pipe' | 'ignore' | number)[] {
  const stdio: ('pipe' | 'ignore' | number)[] = ['pipe', 'pipe', 'pipe'];
  for (const [at, fd] of Object.entries(fds ?? {})) {
    while (stdio.length <= Number(at)) stdio.push('ignore');
    stdio[Number(at)] = fd;
  }
  return stdio;
}

export function collect(child: ChildProcess, options: RunOptions = {}): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  if (options.stdin !== undefined) child.stdin?.end(options.stdin);
  else child.stdin?.end();
  const limit = options.timeoutMs ?? 50_000;
  const started = Date.now();
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, limit);
  return new Promise((resolvePromise) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // Said in stderr, so that every assertion quoting it tells a stalled run from a failed one.
      if (killed) stderr += `\n[rig] killed with SIGKILL after ${limit} ms (started ${Date.now() - started} ms ago)\n`;
      else if (code === null) stderr += `\n[rig] ended by ${signal ?? 'a signal'} after ${Date.now() - started} ms\n`;
      resolvePromise({
        code,
        signal,
        stdout,
        stderr,
        json() {
          try {
            return JSON.parse(stdout);
          } catch {
            throw new Error(`stdout is not JSON (exit ${code}):\n${stdout}\nstderr:\n${stderr}`);
          }
        },
      });
    });
  });
}

const rigs: Rig[] = [];
afterEach(() => {
  for (const rig of rigs.splice(0)) rig.dispose();
});
