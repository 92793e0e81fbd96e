import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readOnlySet } from '../install/box/read-only.js';
import { boxState } from './box.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A workspace, a home (VOUCH_HOME inside it) and a managed-settings folder, each settings file written as given. */
function place(files: { user?: unknown; project?: unknown; local?: unknown; managed?: unknown; dropIn?: unknown }) {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-box-')));
  made.push(base);
  const root = join(base, 'ws');
  const home = join(base, 'home');
  const managed = join(base, 'etc');
  for (const dir of [join(root, '.claude'), join(home, '.claude'), join(managed, 'managed-settings.d')]) mkdirSync(dir, { recursive: true });
  const put = (path: string, value: unknown) => value !== undefined && writeFileSync(path, JSON.stringify(value));
  put(join(home, '.claude', 'settings.json'), files.user);
  put(join(root, '.claude', 'settings.json'), files.project);
  put(join(root, '.claude', 'settings.local.json'), files.local);
  put(join(managed, 'managed-settings.json'), files.managed);
  put(join(managed, 'managed-settings.d', '10-box.json'), files.dropIn);
  const env = { HOME: home, VOUCH_HOME: join(home, 'vouch') };
  return { root, home, managed, env };
}

const HELD = (root: string, env: NodeJS.ProcessEnv) => ({
  sandbox: { enabled: true, failIfUnavailable: true, allowUnsandboxedCommands: false, filesystem: { denyWrite: readOnlySet(root, env, ['test/**']).paths.map((p) => p.path) } },
});

describe('boxState (Claude Code settings as Claude Code merges them)', () => {
  it('holds when the project settings turn the sandbox on, fail-closed, with no way out and every path that vouches read-only', () => {
    const at = place({});
    writeFileSync(join(at.root, '.claude', 'settings.json'), JSON.stringify(HELD(at.root, at.env)));
    expect(boxState('claude-code', at.root, at.env, ['test/**'], at.managed)).toEqual({ client: 'claude-code', on: true, gaps: [] });
  });

  it('attack: local settings override the project: an escape hatch there opens the box', () => {
    const at = place({ local: { sandbox: { allowUnsandboxedCommands: true } } });
    writeFileSync(join(at.root, '.claude', 'settings.json'), JSON.stringify(HELD(at.root, at.env)));
    expect(boxState('claude-code', at.root, at.env, ['test/**'], at.managed).gaps).toEqual([{ kind: 'escape_hatch' }]);
  });

  it('managed settings win over every person\'s file; a managed drop-in can turn the box off', () => {
    const at = place({ dropIn: { sandbox: { enabled: false } } });
    writeFileSync(join(at.root, '.claude', 'settings.json'), JSON.stringify(HELD(at.root, at.env)));
    expect(boxState('claude-code', at.root, at.env, ['test/**'], at.managed).gaps).toEqual([{ kind: 'sandbox_off' }]);
  });

  it('read-only lists join across scopes and resolve as the sandbox does: relative to the workspace, ~/ under HOME, trailing /** a directory', () => {
    const at = place({
      user: { sandbox: { filesystem: { denyWrite: ['.vouch', 'vouch.yaml', '.claude', '.codex/**', '.hermes/**', '.mcp.json', '.cursor/mcp.json', '.git/config', '.git/hooks', '~/vouch', 'test/**'] } } },
      managed: { sandbox: { enabled: true, failIfUnavailable: true, allowUnsandboxedCommands: false } },
    });
    expect(boxState('claude-code', at.root, at.env, ['test/**'], at.managed)).toEqual({ client: 'claude-code', on: true, gaps: [] });
  });

  it('names each path that vouches and the box leaves writable, and a settings file that is not JSON counts as absent', () => {
    const at = place({ managed: { sandbox: { enabled: true, failIfUnavailable: true, allowUnsandboxedCommands: false, excludedCommands: ['docker'] } } });
    writeFileSync(join(at.root, '.claude', 'settings.json'), '{ "sandbox": { "filesystem": { "denyWrite": [".vouch"] } }, }');
    const { gaps } = boxState('claude-code', at.root, at.env, [], at.managed);
    expect(gaps).toContainEqual({ kind: 'excluded_commands', commands: ['docker'] });
    expect(gaps).toContainEqual({ kind: 'writable', path: join(at.root, '.vouch') });
    expect(gaps).toContainEqual({ kind: 'writable', path: at.env.VOUCH_HOME });
  });

  it('a client whose box vouch does not know is never a box that holds', () => {
    const at = place({});
    expect(boxState('codex', at.root, at.env, [], at.managed)).toEqual({ client: 'codex', on: false, gaps: [{ kind: 'not_known' }] });
  });
});
