import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonLinesOf, pinnedBinary, type JsonLinesRun } from './pinned-cli.js';

/** The Codex release these tests drive, pinned like Claude Code's. */
export const CODEX_VERSION = '0.171.0';

/**
 * The real Codex CLI, installed on demand into the test cache (it ships its
 * native binary in a per-platform npm package, about 200 MB), never as a
 * dependency of this project. Install scripts are skipped.
 */
export function codexBinary(): string {
  const arch = process.arch === 'arm64' ? 'aarch64' : 'x86_64';
  const triple = process.platform === 'linux' ? `${arch}-unknown-linux-musl` : `${arch}-apple-darwin`;
  const pkg = `codex-${process.platform}-${process.arch === 'arm64' ? 'arm64' : 'x64'}`;
  return pinnedBinary(`codex-${CODEX_VERSION}`, `@openai/codex@${CODEX_VERSION}`, join('node_modules', '@openai', pkg, 'vendor', triple, 'bin', 'codex'));
}

/** A `codex exec --json` run: its JSON events, one per line of stdout. */
export type CodexRun = JsonLinesRun;

/**
 * Runs `codex exec --json` in a workspace against a mock Responses API
 * declared as a custom model provider in a throwaway CODEX_HOME. The
 * project is trusted and hook trust bypassed for this invocation only (a
 * person approves hooks once in Codex itself); the sandbox is off because
 * the test directory is already throwaway.
 */
export function runCodex(
  binary: string,
  options: { cwd: string; codexHome: string; baseUrl: string; prompt: string; env: Record<string, string | undefined>; model?: string },
): Promise<CodexRun> {
  mkdirSync(options.codexHome, { recursive: true });
  writeFileSync(
    join(options.codexHome, 'config.toml'),
    // The model decides the tools Codex offers: an unknown one gets exec_command only; one of its catalog (gpt-5.5) its freeform apply_patch too.
    [
      `model = "${options.model ?? 'mock-model'}"`,
      'model_provider = "mock"',
      '',
      '[model_providers.mock]',
      'name = "mock"',
      `base_url = "${options.baseUrl}"`,
      'wire_api = "responses"',
      'env_key = "MOCK_API_KEY"',
      '',
    ].join('\n'),
  );
  const child = spawn(
    binary,
    ['exec', '--json', '--skip-git-repo-check', '--trust', '--dangerously-bypass-hook-trust', '--dangerously-bypass-approvals-and-sandbox', options.prompt],
    {
      cwd: options.cwd,
      env: { PATH: process.env.PATH, ...options.env, CODEX_HOME: options.codexHome, MOCK_API_KEY: 'dummy' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return jsonLinesOf(child);
}
