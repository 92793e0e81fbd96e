import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gateWiring } from './wiring.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function repo(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-wiring-')));
  made.push(dir);
  execFileSync('git', ['init', '-q'], { cwd: dir });
  return dir;
}

describe('gateWiring: the files that wire the gate', () => {
  it('lists the project files, the user files and VOUCH_HOME, from the client registry', () => {
    const root = repo();
    const env = { HOME: '/home/u', VOUCH_HOME: '/vh' };
    expect(gateWiring(root, env).map((entry) => [entry.path, entry.scope, entry.dir])).toEqual([
      [join(root, '.claude/settings.json'), 'project', false],
      [join(root, '.claude/settings.local.json'), 'project', false],
      [join(root, '.codex/hooks.json'), 'project', false],
      [join(root, '.hermes'), 'project', true],
      ['/home/u/.claude/settings.json', 'user', false],
      ['/home/u/.codex/hooks.json', 'user', false],
      ['/home/u/.codex/config.toml', 'user', false],
      ['/home/u/.hermes/plugins/vouch', 'user', true],
      ['/home/u/.hermes/plugins/vouch/__init__.py', 'user', false],
      ['/home/u/.hermes/plugins/vouch/plugin.yaml', 'user', false],
      ['/home/u/.hermes/config.yaml', 'user', false],
      [join(root, '.mcp.json'), 'project', false],
      [join(root, '.cursor/mcp.json'), 'project', false],
      ['/vh', 'user', true],
      [join(root, '.git/hooks/pre-push'), 'project', false],
      [join(root, '.git/hooks/pre-commit'), 'project', false],
    ]);
  });

  it('follows CLAUDE_CONFIG_DIR, CODEX_HOME, HERMES_HOME, XDG_CONFIG_HOME and core.hooksPath', () => {
    const root = repo();
    execFileSync('git', ['config', 'core.hooksPath', '/shared/hooks'], { cwd: root });
    const paths = gateWiring(root, { HOME: '/home/u', CLAUDE_CONFIG_DIR: '/cc', CODEX_HOME: '/cx', HERMES_HOME: '/hh', XDG_CONFIG_HOME: '/xdg' }).map(
      (entry) => entry.path,
    );
    expect(paths).toEqual(
      expect.arrayContaining([
        '/cc/settings.json',
        '/cx/hooks.json',
        '/cx/config.toml',
        '/hh/plugins/vouch',
        '/hh/config.yaml',
        '/xdg/vouch',
        '/shared/hooks/pre-push',
        '/shared/hooks/pre-commit',
      ]),
    );
  });

  it('outside a workspace: the user-scope entries only', () => {
    expect(gateWiring(null, { HOME: '/home/u', VOUCH_HOME: '/vh' }).map((entry) => entry.path)).toEqual([
      '/home/u/.claude/settings.json',
      '/home/u/.codex/hooks.json',
      '/home/u/.codex/config.toml',
      '/home/u/.hermes/plugins/vouch',
      '/home/u/.hermes/plugins/vouch/__init__.py',
      '/home/u/.hermes/plugins/vouch/plugin.yaml',
      '/home/u/.hermes/config.yaml',
      '/vh',
    ]);
  });
});
