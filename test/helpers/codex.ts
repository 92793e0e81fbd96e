import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The Codex release these tests drive, pinned like Claude Code's. */
export const CODEX_VERSION = '0.171.0';

/**
 * The real Codex CLI, installed on demand into the test cache (it ships its
 * native binary in a per-platform npm package, about 200 MB), never as a
 * dependency of this project. Install scripts are skipped.
 */
export function codexBinary(): string {
  const cache = join(process.env.VOUCH_TEST_CACHE ?? join(homedir(), '.cache', 'vouch-test'), `codex-${CODEX_VERSION}`);
  const arch = process.arch === 'arm64' ? 'aarch64' : 'x86_64';
  const triple = process.platform === 'linux' ? `${arch}-unknown-linux-musl` : `${arch}-apple-darwin`;
  const binary = join(cache, 'node_modules', '@openai', `codex-${process.platform}-${process.arch === 'arm64' ? 'arm64' : 'x64'}`, 'vendor', triple, 'bin', 'codex');
  if (existsSync(binary)) return binary;
  mkdirSync(cache, { recursive: true });
  if (!existsSync(join(cache, 'package.json'))) writeFileSync(join(cache, 'package.json'), '{"private": true}\n');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', `@openai/codex@${CODEX_VERSION}`], {
    cwd: cache,
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 600_000,
  });
  if (!existsSync(binary)) throw new Error(`Codex ${CODEX_VERSION} installed into ${cache}, but ${binary} is missing`);
  return binary;
}

export interface CodexRun {
  readonly code: number | null;
  readonly events: Record<string, any>[];
  readonly stderr: string;
}

/**
 * Runs `codex exec --json` in a workspace against a mock Responses API
 * declared as a custom model provider in a throwaway CODEX_HOME. The
 * project is trusted and hook trust bypassed for this invocation only (a
 * person approves hooks once in Codex itself); the sandbox is off because
 * the test directory is already throwaway.
 */
export function runCodex(binary: string, options: { cwd: string; codexHome: string; baseUrl: string; prompt: string; env: Record<string, string | undefined> }): Promise<CodexRun> {
  mkdirSync(options.codexHome, { recursive: true });
  writeFileSync(
    join(options.codexHome, 'config.toml'),
    ['model = "mock-model"', 'model_provider = "mock"', '', '[model_providers.mock]', 'name = "mock"', `base_url = "${options.baseUrl}"`, 'wire_api = "responses"', 'env_key = "MOCK_API_KEY"', ''].join('\n'),
  );
  const child = spawn(
    binary,
    ['exec', '--json', '--skip-git-repo-check', '--trust', '--dangerously-bypass-hook-trust', '--dangerously-bypass-approvals-and-sandbox', options.prompt],
    { cwd: options.cwd, env: { PATH: process.env.PATH, ...options.env, CODEX_HOME: options.codexHome, MOCK_API_KEY: 'dummy' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      const events = stdout
        .split('\n')
        .filter((line) => line.trim().startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, any>);
      resolve({ code, events, stderr });
    });
  });
}
