import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'smol-toml';
import { codexFilesystem } from '../install/box/codex-box.js';
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
  sandbox: {
    enabled: true,
    failIfUnavailable: true,
    allowUnsandboxedCommands: false,
    filesystem: { denyWrite: readOnlySet(root, env, ['test/**']).paths.map((p) => p.path) },
  },
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

  it("managed settings win over every person's file; a managed drop-in can turn the box off", () => {
    const at = place({ dropIn: { sandbox: { enabled: false } } });
    writeFileSync(join(at.root, '.claude', 'settings.json'), JSON.stringify(HELD(at.root, at.env)));
    expect(boxState('claude-code', at.root, at.env, ['test/**'], at.managed).gaps).toEqual([{ kind: 'sandbox_off' }]);
  });

  it('read-only lists join across scopes and resolve as the sandbox does: relative to the workspace in the project settings, ~/ under HOME, trailing /** a directory', () => {
    const at = place({
      user: { sandbox: { filesystem: { denyWrite: ['~/vouch', '.codex/**'] } } },
      project: {
        sandbox: {
          filesystem: { denyWrite: ['.vouch', 'vouch.yaml', '.claude', '.hermes/**', '.mcp.json', '.cursor/mcp.json', '.git/config', '.git/hooks', 'test/**'] },
        },
      },
      local: { sandbox: { filesystem: { denyWrite: ['.codex/**'] } } },
      managed: { sandbox: { enabled: true, failIfUnavailable: true, allowUnsandboxedCommands: false } },
    });
    expect(boxState('claude-code', at.root, at.env, ['test/**'], at.managed)).toEqual({ client: 'claude-code', on: true, gaps: [] });
  });

  it("attack: the same relative entries in the user's settings name paths under Claude Code's config dir (as 2.1.332 resolves them), so each path of the workspace is writable", () => {
    const relative = ['.vouch', 'vouch.yaml', '.claude', '.codex', '.hermes', '.mcp.json', '.cursor/mcp.json', '.git/config', '.git/hooks', '~/vouch'];
    const at = place({ user: { sandbox: { enabled: true, failIfUnavailable: true, allowUnsandboxedCommands: false, filesystem: { denyWrite: relative } } } });
    const { on, gaps } = boxState('claude-code', at.root, at.env, [], at.managed);
    expect(on).toBe(false);
    expect(gaps).toContainEqual({ kind: 'writable', path: join(at.root, '.vouch') });
    expect(gaps).toContainEqual({ kind: 'writable', path: join(at.root, 'vouch.yaml') });
    expect(gaps).not.toContainEqual({ kind: 'writable', path: at.env.VOUCH_HOME });
    // Set in CLAUDE_CONFIG_DIR's settings, the entry names a path beneath that folder.
    const moved = join(at.home, 'config');
    mkdirSync(moved);
    writeFileSync(join(moved, 'settings.json'), JSON.stringify({ sandbox: { filesystem: { denyWrite: ['.vouch'] } } }));
    writeFileSync(join(at.root, '.claude', 'settings.json'), JSON.stringify(HELD(at.root, at.env)));
    expect(boxState('claude-code', at.root, { ...at.env, CLAUDE_CONFIG_DIR: moved }, ['test/**'], at.managed).on).toBe(true);
  });

  it("attack: a committed entry that resolves elsewhere is a box that is off: another clone's absolute path, or a relative one that climbs out of the workspace", () => {
    const at = place({ managed: { sandbox: { enabled: true, failIfUnavailable: true, allowUnsandboxedCommands: false } } });
    const paths = readOnlySet(at.root, at.env, []).paths.map((p) => p.path);
    const elsewhere = paths.map((p) => (p.endsWith(`${join('ws', '.vouch')}`) ? '/home/alice/project/.vouch' : p));
    writeFileSync(join(at.root, '.claude', 'settings.json'), JSON.stringify({ sandbox: { filesystem: { denyWrite: elsewhere } } }));
    expect(boxState('claude-code', at.root, at.env, [], at.managed).gaps).toEqual([{ kind: 'writable', path: join(at.root, '.vouch') }]);
    const climbing = paths.map((p) => (p.endsWith(`${join('ws', '.vouch')}`) ? '../ws-other/.vouch' : p));
    writeFileSync(join(at.root, '.claude', 'settings.json'), JSON.stringify({ sandbox: { filesystem: { denyWrite: climbing } } }));
    expect(boxState('claude-code', at.root, at.env, [], at.managed).gaps).toEqual([{ kind: 'writable', path: join(at.root, '.vouch') }]);
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
    expect(boxState('hermes', at.root, at.env, [], at.managed)).toEqual({ client: 'hermes', on: false, gaps: [{ kind: 'not_known' }] });
  });
});

/** A workspace, CODEX_HOME (the user's config.toml), VOUCH_HOME and a machine folder (/etc/codex), each config written as given. */
function codexPlace(files: {
  user?: Record<string, unknown>;
  project?: Record<string, unknown>;
  system?: Record<string, unknown>;
  managed?: Record<string, unknown>;
  trusted?: boolean;
}) {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-codex-box-')));
  made.push(base);
  const root = join(base, 'ws');
  const codexHome = join(base, 'codex');
  const etc = join(base, 'etc');
  for (const dir of [join(root, '.codex'), codexHome, etc]) mkdirSync(dir, { recursive: true });
  const user = { ...files.user, ...(files.trusted !== false && { projects: { [root]: { trust_level: 'trusted' } } }) };
  const put = (path: string, value: Record<string, unknown> | undefined) => value !== undefined && writeFileSync(path, stringify(value));
  put(join(codexHome, 'config.toml'), user);
  put(join(root, '.codex', 'config.toml'), files.project);
  put(join(etc, 'config.toml'), files.system);
  put(join(etc, 'managed_config.toml'), files.managed);
  const env = { HOME: join(base, 'home'), CODEX_HOME: codexHome, VOUCH_HOME: join(base, 'vouch'), TMPDIR: join(base, 'tmp') };
  return { root, etc, env };
}

/** What `vouch install codex` writes into the project's .codex/config.toml. */
const BOXED = (root: string | null, env: NodeJS.ProcessEnv, protect: readonly string[] = ['test/**']) => ({
  default_permissions: 'vouch',
  approval_policy: 'never',
  permissions: { vouch: { filesystem: codexFilesystem(readOnlySet(root, env, protect).paths) } },
});

describe('boxState (Codex config layers as Codex merges them)', () => {
  const state = (at: ReturnType<typeof codexPlace>, protect: readonly string[] = ['test/**']) => boxState('codex', at.root, at.env, protect, null, at.etc);

  it('holds with the profile install writes in a trusted project: what vouches read-only inside the writable workspace, no asking out', () => {
    const at = codexPlace({});
    writeFileSync(join(at.root, '.codex', 'config.toml'), stringify(BOXED(at.root, at.env)));
    expect(state(at)).toEqual({ client: 'codex', on: true, gaps: [] });
  });

  it("the user-scope profile holds every workspace, trusted or not: paths relative to the project roots, VOUCH_HOME absolute; an untrusted project's own config then does not matter", () => {
    const at = codexPlace({ trusted: false });
    writeFileSync(join(at.env.CODEX_HOME, 'config.toml'), stringify(BOXED(null, at.env, [])));
    writeFileSync(join(at.root, '.codex', 'config.toml'), stringify({ default_permissions: ':danger-full-access' }));
    expect(state(at, [])).toEqual({ client: 'codex', on: true, gaps: [] });
  });

  it('attack: the same profile in an untrusted project is ignored by Codex, so it is no box', () => {
    const at = codexPlace({ trusted: false });
    writeFileSync(join(at.root, '.codex', 'config.toml'), stringify(BOXED(at.root, at.env)));
    expect(state(at).gaps).toEqual([
      { kind: 'untrusted_project', path: join(at.root, '.codex', 'config.toml') },
      { kind: 'asks_out', policy: null },
      { kind: 'no_profile', profile: null },
    ]);
  });

  it('attack: sandbox_mode anywhere Codex reads it switches the profile off; managed config wins over the project (approval_policy)', () => {
    const at = codexPlace({ user: { sandbox_mode: 'danger-full-access' }, managed: { approval_policy: 'on-request' } });
    writeFileSync(join(at.root, '.codex', 'config.toml'), stringify(BOXED(at.root, at.env)));
    expect(state(at).gaps).toEqual([
      { kind: 'legacy_sandbox', path: join(at.env.CODEX_HOME, 'config.toml') },
      { kind: 'asks_out', policy: 'on-request' },
    ]);
  });

  it("Codex's own :workspace profile leaves the ledger and the spec writable; full access is no sandbox at all", () => {
    const workspace = codexPlace({ project: { default_permissions: ':workspace', approval_policy: 'never' } });
    const writable = state(workspace)
      .gaps.filter((gap) => gap.kind === 'writable')
      .map((gap) => (gap as { path: string }).path);
    expect(writable).toContain(join(workspace.root, '.vouch'));
    expect(writable).toContain(join(workspace.root, 'vouch.yaml'));
    expect(writable).not.toContain(join(workspace.root, '.codex'));
    const full = codexPlace({ project: { default_permissions: ':danger-full-access', approval_policy: 'never' } });
    expect(state(full).gaps).toEqual([{ kind: 'sandbox_off' }]);
  });

  it('attack: a glob that grants write beneath the workspace opens what vouches there, and a profile named but defined nowhere is none', () => {
    const at = codexPlace({});
    const boxed = BOXED(at.root, at.env);
    const filesystem = { ...boxed.permissions.vouch.filesystem, ':project_roots': { '.': 'write', '**/*': 'write' } };
    writeFileSync(join(at.root, '.codex', 'config.toml'), stringify({ ...boxed, permissions: { vouch: { filesystem } } }));
    expect(state(at).gaps).toContainEqual({ kind: 'writable', path: join(at.root, '.vouch'), rule: 'permissions.vouch.filesystem' });
    const missing = codexPlace({ project: { default_permissions: 'strict', approval_policy: 'never' } });
    expect(state(missing).gaps).toEqual([{ kind: 'no_profile', profile: 'strict' }]);
  });
});
