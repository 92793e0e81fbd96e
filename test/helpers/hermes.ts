import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll } from 'vitest';
import type { MockChat } from './mock-chat.js';

/** The hermes-agent release these tests drive: the newest on PyPI when they were written, pinned like the other clients. */
export const HERMES_VERSION = '0.19.0';

/**
 * The real Hermes Agent CLI, installed on demand from PyPI into a
 * virtualenv in the test cache (VOUCH_TEST_CACHE, default
 * ~/.cache/vouch-test/hermes-agent-VERSION), never as a dependency of this
 * project. pip gets NODE_EXTRA_CA_CERTS's bundle where one is set. Fails
 * (never skips) when it cannot install.
 */
export function hermesBinary(): string {
  const cache = join(process.env.VOUCH_TEST_CACHE ?? join(homedir(), '.cache', 'vouch-test'), `hermes-agent-${HERMES_VERSION}`);
  const bin = join(cache, 'venv', 'bin', 'hermes');
  if (existsSync(bin)) return bin;
  rmSync(cache, { recursive: true, force: true });
  mkdirSync(cache, { recursive: true });
  execFileSync('python3', ['-m', 'venv', join(cache, 'venv')], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 120_000 });
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  const env = { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1', ...(ca && { PIP_CERT: ca, REQUESTS_CA_BUNDLE: ca }) };
  execFileSync(join(cache, 'venv', 'bin', 'pip'), ['install', '--no-input', `hermes-agent==${HERMES_VERSION}`], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 900_000,
  });
  if (!existsSync(bin)) throw new Error(`hermes-agent ${HERMES_VERSION} installed into ${cache}, but ${bin} is missing`);
  return bin;
}

/**
 * What a test file of the real Hermes needs, called at its top level: the
 * binary, installed once before its tests (hermesBinary), and the mock
 * models its tests start, each closed after its test.
 */
export function hermesSuite(): { binary(): string; track(mock: MockChat): MockChat } {
  let binary: string | undefined;
  const mocks: MockChat[] = [];
  beforeAll(() => {
    binary = hermesBinary();
  }, 900_000);
  afterEach(async () => {
    for (const mock of mocks.splice(0)) await mock.close();
  });
  return {
    binary: () => {
      if (binary === undefined) throw new Error('hermesSuite().binary() is called inside a test, after its beforeAll installed Hermes');
      return binary;
    },
    track: (mock) => {
      mocks.push(mock);
      return mock;
    },
  };
}

/** What a `hermes chat -q` run printed. */
export interface HermesRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs one headless query (`hermes chat -Q -q PROMPT --yolo`) in a
 * workspace, with HERMES_HOME the test's own (its config.yaml names the
 * mock as a `custom` provider; see hermesConfig). `--yolo` skips Hermes's
 * own approval prompts for dangerous commands, which nobody is there to
 * answer; vouch's guard is a plugin hook and still runs. Killed after 240 s.
 */
export function runHermes(
  binary: string,
  options: { cwd: string; hermesHome: string; prompt: string; env: Record<string, string | undefined> },
): Promise<HermesRun> {
  const child = spawn(binary, ['chat', '-Q', '-q', options.prompt, '--yolo'], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH, ...options.env, HERMES_HOME: options.hermesHome },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * A Hermes config.yaml that sends the model's requests to the mock: a
 * `custom` provider on loopback. Hermes's own verify-on-stop nudge (its
 * default, independent of plugins) is turned off so the scripted turns are
 * the only ones.
 */
export function hermesConfig(baseUrl: string): string {
  return ['model:', '  provider: custom', `  base_url: ${baseUrl}`, '  default: mock-model', '  api_key: dummy', 'agent:', '  verify_on_stop: false', ''].join(
    '\n',
  );
}

/**
 * Hermes's own headless slash-command runner (`python -m
 * tui_gateway.slash_worker`, what its TUI and desktop app send slash
 * commands to): one HermesCLI, JSON lines {id, command} in, {id, ok,
 * output} out. `hermes chat -q` sends its text to the model, so this is
 * how a test types `/vouch report` into the real Hermes. The venv's python
 * is the one beside the `hermes` binary. Killed after 120 s.
 */
export function runHermesSlash(
  binary: string,
  options: { cwd: string; hermesHome: string; commands: readonly string[]; env: Record<string, string | undefined> },
): Promise<{ outputs: string[]; stderr: string }> {
  const python = join(dirname(binary), 'python');
  const child = spawn(python, ['-m', 'tui_gateway.slash_worker', '--session-key', 'vouch-test'], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH, ...options.env, HERMES_HOME: options.hermesHome },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(options.commands.map((command, id) => `${JSON.stringify({ id, command })}\n`).join(''));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return new Promise((resolve) => {
    child.on('close', () => {
      clearTimeout(timer);
      const replies = stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { id: number; ok: boolean; output?: string; error?: string });
      resolve({
        outputs: options.commands.map((_, id) => {
          const reply = replies.find((r) => r.id === id);
          return reply?.ok ? (reply.output ?? '') : `(no reply: ${reply?.error ?? 'none'})`;
        }),
        stderr,
      });
    });
  });
}
