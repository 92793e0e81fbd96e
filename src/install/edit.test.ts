import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterEach, describe, expect, it } from 'vitest';
import { installEdit, uninstallEdit } from './edit.js';
import type { EditIntent } from './intent.js';
import { claudeCode } from '../clients/claude-code.js';
import { hookIntent } from './targets/agent-hooks.js';
import { gitHookIntent } from './targets/git-hooks.js';
import { shellLine } from '../core/quote.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function place() {
  const root = mkdtempSync(join(tmpdir(), 'vouch-install-'));
  dirs.push(root);
  const home = join(root, 'home');
  return { root, home, file: (name: string) => join(root, name) };
}

const self = { node: '/opt/node/bin/node', entry: '/opt/vouch/dist/cli.js' };

/** An MCP-style edit, as the MCP installer states it: one key set in a JSON file. */
const mcpJson = (path: string): EditIntent => ({
  path,
  format: 'json',
  summary: 'add the vouch MCP server',
  changes: [{ kind: 'json-set', at: ['mcpServers', 'vouch'], value: { command: self.node, args: [self.entry, 'mcp'] } }],
  manual: ['add mcpServers.vouch by hand'],
});

/** The same for a TOML config (Codex's config.toml). */
const mcpToml = (path: string): EditIntent => ({
  path,
  format: 'toml',
  summary: 'add the vouch MCP server',
  changes: [{ kind: 'toml-table', at: ['mcp_servers', 'vouch'], value: { command: self.node, args: [self.entry, 'mcp'] } }],
  manual: ['add [mcp_servers.vouch] by hand'],
});

const USER_SETTINGS = `{
    "model": "opus",
    "hooks": {
        "Stop": [
            { "hooks": [ { "type": "command", "command": "say done" } ] }
        ]
    },
    "permissions": { "allow": ["Bash(npm test)"] }
}
`;

describe('installEdit / uninstallEdit: JSON', () => {
  it("adds the hooks next to the user's own, keeping every other byte, and uninstall gives back the original bytes", () => {
    const { home, file } = place();
    const path = file('settings.json');
    writeFileSync(path, USER_SETTINGS);
    const intent = hookIntent(path, 'claude-code', shellLine([self.node, self.entry]), claudeCode.hooks.install.events);
    expect(installEdit(intent, { home })).toMatchObject({ kind: 'written', how: 'applied' });
    const edited = JSON.parse(readFileSync(path, 'utf8'));
    expect(edited.model).toBe('opus');
    expect(edited.permissions).toEqual({ allow: ['Bash(npm test)'] });
    expect(edited.hooks.Stop).toHaveLength(2);
    expect(edited.hooks.Stop[0].hooks[0].command).toBe('say done');
    expect(edited.hooks.Stop[1].hooks[0].command).toBe('/opt/node/bin/node /opt/vouch/dist/cli.js hook claude-code Stop');
    expect(edited.hooks.PreToolUse[0].matcher).toBe('Write|Edit|MultiEdit|NotebookEdit|Bash');
    // The user's lines are untouched, in their own 4-space style.
    expect(
      readFileSync(path, 'utf8').startsWith(
        '{\n    "model": "opus",\n    "hooks": {\n        "Stop": [\n            { "hooks": [ { "type": "command", "command": "say done" } ] }',
      ),
    ).toBe(true);
    expect(uninstallEdit(intent, { home })).toMatchObject({ kind: 'written', how: 'restored' });
    expect(readFileSync(path, 'utf8')).toBe(USER_SETTINGS);
  });

  it('is idempotent: a second install changes nothing and takes no second backup', () => {
    const { home, file } = place();
    const path = file('settings.json');
    writeFileSync(path, USER_SETTINGS);
    const intent = hookIntent(path, 'claude-code', shellLine([self.node, self.entry]), claudeCode.hooks.install.events);
    installEdit(intent, { home });
    const once = readFileSync(path);
    expect(installEdit(intent, { home })).toMatchObject({ kind: 'unchanged' });
    expect(readFileSync(path).equals(once)).toBe(true);
    expect(readdir(join(home, 'installs', 'backups'))).toHaveLength(1);
    expect(uninstallEdit(intent, { home })).toMatchObject({ kind: 'written', how: 'restored' });
    expect(uninstallEdit(intent, { home })).toMatchObject({ kind: 'unchanged' });
    expect(readFileSync(path, 'utf8')).toBe(USER_SETTINGS);
  });

  it('creates a missing file (and its directory), and uninstall removes both again', () => {
    const { root, home } = place();
    const path = join(root, 'proj', '.claude', 'settings.json');
    mkdirSync(join(root, 'proj'));
    const intent = hookIntent(path, 'claude-code', shellLine([self.node, self.entry]), claudeCode.hooks.install.events);
    expect(installEdit(intent, { home })).toMatchObject({ kind: 'written', backup: null });
    expect(Object.keys(JSON.parse(readFileSync(path, 'utf8')).hooks)).toEqual([
      'Stop',
      'SubagentStart',
      'SubagentStop',
      'PreToolUse',
      'PostToolUse',
      'PostToolUseFailure',
    ]);
    uninstallEdit(intent, { home });
    expect(existsSync(path)).toBe(false);
    expect(existsSync(join(root, 'proj', '.claude'))).toBe(false);
    expect(existsSync(join(root, 'proj'))).toBe(true);
  });

  it('after the user edited the file since, removes exactly what vouch added and keeps their edit', () => {
    const { home, file } = place();
    const path = file('settings.json');
    writeFileSync(path, USER_SETTINGS);
    const intent = hookIntent(path, 'claude-code', shellLine([self.node, self.entry]), claudeCode.hooks.install.events);
    installEdit(intent, { home });
    const edited = JSON.parse(readFileSync(path, 'utf8'));
    edited.theme = 'dark';
    writeFileSync(path, `${JSON.stringify(edited, null, 4)}\n`);
    expect(uninstallEdit(intent, { home })).toMatchObject({ kind: 'written', how: 'removed' });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ ...JSON.parse(USER_SETTINGS), theme: 'dark' });
  });

  it.each([
    ['invalid JSON', '{ "hooks": { ', 'invalid_file'],
    ['JSON with comments', '// mine\n{}\n', 'invalid_file'],
    ['a top level that is not an object', '[1, 2]\n', 'unexpected_shape'],
    ['hooks that is a list', '{"hooks": []}\n', 'unexpected_shape'],
    ['an event that is not a list', '{"hooks": {"Stop": {"hooks": []}}}\n', 'unexpected_shape'],
    [
      'a vouch hook with another command already there',
      '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/old/node /old/cli.js hook claude-code Stop"}]}]}}\n',
      'conflict',
    ],
  ])('refuses %s, with the reason and manual steps, writing nothing', (_name, content, code) => {
    const { home, file } = place();
    const path = file('settings.json');
    writeFileSync(path, content);
    const outcome = installEdit(hookIntent(path, 'claude-code', shellLine([self.node, self.entry]), claudeCode.hooks.install.events), { home });
    expect(outcome).toMatchObject({ kind: 'refused', path, refusal: { code } });
    if (outcome.kind === 'refused') expect(outcome.refusal.manual.some((step) => step.includes('hooks.Stop'))).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe(content);
    expect(existsSync(join(home, 'installs'))).toBe(false);
  });

  it('sets a key (an MCP server entry) and refuses to overwrite a different one', () => {
    const { home, file } = place();
    const path = file('mcp.json');
    const original = '{\n  "mcpServers": {\n    "other": { "command": "x" }\n  }\n}\n';
    writeFileSync(path, original);
    expect(installEdit(mcpJson(path), { home })).toMatchObject({ kind: 'written' });
    expect(JSON.parse(readFileSync(path, 'utf8')).mcpServers).toEqual({ other: { command: 'x' }, vouch: { command: self.node, args: [self.entry, 'mcp'] } });
    expect(installEdit(mcpJson(path), { home })).toMatchObject({ kind: 'unchanged' });
    uninstallEdit(mcpJson(path), { home });
    expect(readFileSync(path, 'utf8')).toBe(original);
    writeFileSync(path, '{"mcpServers": {"vouch": {"command": "someone-else"}}}\n');
    expect(installEdit(mcpJson(path), { home })).toMatchObject({ kind: 'refused', refusal: { code: 'conflict' } });
  });

  it('after the user edited elsewhere, removes its key and the mcpServers object it created, byte for byte', () => {
    const { home, file } = place();
    const path = file('mcp.json');
    const original = '{\n  "theme": "dark"\n}\n';
    writeFileSync(path, original);
    installEdit(mcpJson(path), { home });
    writeFileSync(path, readFileSync(path, 'utf8').replace('dark', 'light'));
    expect(uninstallEdit(mcpJson(path), { home })).toMatchObject({ kind: 'written', how: 'removed' });
    expect(readFileSync(path, 'utf8')).toBe(original.replace('dark', 'light'));
  });

  it('refuses to restore a backup that no longer matches what was saved', () => {
    const { home, file } = place();
    const path = file('settings.json');
    writeFileSync(path, USER_SETTINGS);
    const intent = hookIntent(path, 'claude-code', shellLine([self.node, self.entry]), claudeCode.hooks.install.events);
    const outcome = installEdit(intent, { home });
    if (outcome.kind !== 'written' || !outcome.backup) throw new Error('expected a backup');
    writeFileSync(outcome.backup, 'tampered');
    expect(uninstallEdit(intent, { home })).toMatchObject({ kind: 'refused', refusal: { code: 'io_error' } });
  });
});

describe('installEdit / uninstallEdit: TOML', () => {
  const CONFIG = '# my codex config\nmodel = "gpt-5"\n\n[mcp_servers.docs]\ncommand = "docs-server" # keep me\n';

  it('appends the table, keeps comments and order, and uninstall restores the bytes', () => {
    const { home, file } = place();
    const path = file('config.toml');
    writeFileSync(path, CONFIG);
    expect(installEdit(mcpToml(path), { home })).toMatchObject({ kind: 'written' });
    const text = readFileSync(path, 'utf8');
    expect(text.startsWith(CONFIG)).toBe(true);
    expect(parseToml(text)).toEqual({
      model: 'gpt-5',
      mcp_servers: { docs: { command: 'docs-server' }, vouch: { command: self.node, args: [self.entry, 'mcp'] } },
    });
    expect(installEdit(mcpToml(path), { home })).toMatchObject({ kind: 'unchanged' });
    expect(uninstallEdit(mcpToml(path), { home })).toMatchObject({ kind: 'written', how: 'restored' });
    expect(readFileSync(path, 'utf8')).toBe(CONFIG);
  });

  it('removes only its table when the file changed since', () => {
    const { home, file } = place();
    const path = file('config.toml');
    writeFileSync(path, CONFIG);
    installEdit(mcpToml(path), { home });
    writeFileSync(path, readFileSync(path, 'utf8').replace('model = "gpt-5"', 'model = "gpt-6"'));
    expect(uninstallEdit(mcpToml(path), { home })).toMatchObject({ kind: 'written', how: 'removed' });
    expect(readFileSync(path, 'utf8')).toBe(CONFIG.replace('gpt-5', 'gpt-6'));
  });

  it('removes a table whose header created mcp_servers, and mcp_servers with it, when the file changed since', () => {
    const { home, file } = place();
    const path = file('config.toml');
    const original = '# mine\nmodel = "gpt-5"\n';
    writeFileSync(path, original);
    installEdit(mcpToml(path), { home });
    writeFileSync(path, readFileSync(path, 'utf8').replace('gpt-5', 'gpt-6'));
    expect(uninstallEdit(mcpToml(path), { home })).toMatchObject({ kind: 'written', how: 'removed' });
    expect(readFileSync(path, 'utf8')).toBe(original.replace('gpt-5', 'gpt-6'));
  });

  it.each([
    ['invalid TOML', 'model = \n', 'invalid_file'],
    ['an inline table of the same name, which an appended table would redefine', 'mcp_servers = { docs = { command = "x" } }\n', 'verify_mismatch'],
    ['mcp_servers that is not a table', 'mcp_servers = "off"\n', 'unexpected_shape'],
    ['a vouch server with other settings', '[mcp_servers.vouch]\ncommand = "other"\n', 'conflict'],
  ])('refuses %s', (_name, content, code) => {
    const { home, file } = place();
    const path = file('config.toml');
    writeFileSync(path, content);
    expect(installEdit(mcpToml(path), { home })).toMatchObject({ kind: 'refused', refusal: { code } });
    expect(readFileSync(path, 'utf8')).toBe(content);
  });
});

describe('installEdit / uninstallEdit: a whole file (git hook)', () => {
  it('writes an executable hook where there is none, and removes it on uninstall', () => {
    const { root, home } = place();
    const path = join(root, 'hooks', 'pre-push');
    const intent = gitHookIntent('pre-push', path, '/ws', self, {});
    expect(installEdit(intent, { home })).toMatchObject({ kind: 'written' });
    expect(statSync(path).mode & 0o777).toBe(0o755);
    expect(readFileSync(path, 'utf8')).toContain('/opt/node/bin/node /opt/vouch/dist/cli.js -C /ws hook git pre-push || exit 1');
    expect(installEdit(intent, { home })).toMatchObject({ kind: 'unchanged' });
    uninstallEdit(intent, { home });
    expect(existsSync(path)).toBe(false);
  });

  it("refuses to overwrite someone else's hook, and tells the line to add by hand", () => {
    const { root, home } = place();
    const path = join(root, 'pre-push');
    writeFileSync(path, '#!/bin/sh\nnpm test\n');
    chmodSync(path, 0o700);
    const outcome = installEdit(gitHookIntent('pre-push', path, '/ws', self, {}), { home });
    expect(outcome).toMatchObject({ kind: 'refused', refusal: { code: 'conflict' } });
    if (outcome.kind === 'refused') expect(outcome.refusal.manual[0]).toContain('hook git pre-push');
    expect(readFileSync(path, 'utf8')).toBe('#!/bin/sh\nnpm test\n');
    expect(statSync(path).mode & 0o777).toBe(0o700);
  });
});

function readdir(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}

describe('installEdit: JSON layouts', () => {
  it.each([
    ['one line', '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a"}]}]}, "x": 1}\n'],
    ['tabs and CRLF', '{\r\n\t"hooks": {\r\n\t\t"Stop": [\r\n\t\t\t{"hooks": []}\r\n\t\t]\r\n\t}\r\n}\r\n'],
    ['an empty list', '{"hooks": {"Stop": []}}\n'],
    ['an empty object', '{}'],
  ])('keeps a file written on %s valid, adds the hooks, and restores it byte for byte', (_name, original) => {
    const { home, file } = place();
    const path = file('settings.json');
    writeFileSync(path, original);
    const intent = hookIntent(path, 'claude-code', shellLine([self.node, self.entry]), claudeCode.hooks.install.events);
    expect(installEdit(intent, { home })).toMatchObject({ kind: 'written' });
    const stops = JSON.parse(readFileSync(path, 'utf8')).hooks.Stop as unknown[];
    expect(stops[stops.length - 1]).toEqual({
      hooks: [{ type: 'command', command: '/opt/node/bin/node /opt/vouch/dist/cli.js hook claude-code Stop', timeout: 3660 }],
    });
    uninstallEdit(intent, { home });
    expect(readFileSync(path, 'utf8')).toBe(original);
  });
});
