import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { jsonLinesOf, pinnedBinary, type JsonLinesRun } from './pinned-cli.js';

/** The Claude Code release these tests drive. Pinned: hook payloads and replies are checked against it. */
export const CLAUDE_CODE_VERSION = '2.1.332';

/**
 * The real Claude Code CLI, installed on demand from the npm registry into
 * a cache folder (about 190 MB: the package ships its native binary in a
 * per-platform package), never as a dependency of this project. Install
 * scripts are skipped; the binary is run from its platform package directly.
 * Set VOUCH_TEST_CACHE to move the cache.
 */
export function claudeBinary(): string {
  const executable = process.platform === 'win32' ? 'claude.exe' : 'claude';
  return pinnedBinary(
    `claude-code-${CLAUDE_CODE_VERSION}`,
    `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`,
    join('node_modules', '@anthropic-ai', `claude-code-${platformPackage()}`, executable),
  );
}

function platformPackage(): string {
  const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
  if (process.platform === 'linux') {
    const musl = existsSync('/etc/alpine-release');
    return `linux-${arch}${musl ? '-musl' : ''}`;
  }
  return `${process.platform}-${arch}`;
}

/** A `claude -p` run: its stream-json events, one per line of stdout. */
export type ClaudeRun = JsonLinesRun;

/**
 * Runs `claude -p` headless in a workspace against a mock API: its own
 * config directory, no non-essential traffic, no updater. As root,
 * bypassPermissions is refused, so tools are allowed by name.
 */
export function runClaude(
  binary: string,
  options: { cwd: string; configDir: string; baseUrl: string; prompt: string; env: Record<string, string | undefined>; tools: string[]; extraArgs?: string[] },
): Promise<ClaudeRun> {
  const child = spawn(
    binary,
    [
      ...(options.extraArgs ?? []),
      '-p',
      options.prompt,
      '--output-format',
      'stream-json',
      '--verbose',
      '--include-hook-events',
      '--allowedTools',
      ...options.tools,
    ],
    {
      cwd: options.cwd,
      env: {
        PATH: process.env.PATH,
        HOME: options.env.HOME,
        ...options.env,
        CLAUDE_CONFIG_DIR: options.configDir,
        ANTHROPIC_BASE_URL: options.baseUrl,
        ANTHROPIC_API_KEY: 'dummy',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return jsonLinesOf(child);
}

/** Runs a `claude` subcommand (no model involved), e.g. `plugin validate`. */
export function claudeCommand(binary: string, args: string[], configDir: string): { code: number; stdout: string } {
  try {
    const stdout = execFileSync(binary, args, {
      env: { PATH: process.env.PATH, HOME: configDir, CLAUDE_CONFIG_DIR: configDir, DISABLE_AUTOUPDATER: '1' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { status: number | null; stdout?: string };
    return { code: failed.status ?? -1, stdout: failed.stdout ?? '' };
  }
}

/** The hook_response events of one hook event, in order. */
export function hookResponses(run: ClaudeRun, event: string): Record<string, any>[] {
  return run.events.filter((e) => e.type === 'system' && e.subtype === 'hook_response' && e.hook_event === event);
}
