import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { installEdit, uninstallEdit } from './edit.js';
import type { EditIntent, Json } from './intent.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function place() {
  const root = mkdtempSync(join(tmpdir(), 'vouch-yaml-'));
  dirs.push(root);
  return { home: join(root, 'home'), path: join(root, 'config.yaml') };
}

const ENTRY = { command: '/opt/node/bin/node', args: ['/opt/vouch/dist/cli.js', 'mcp', '-C', '/ws'], timeout: 3600 };

const intent = (path: string, value: Json = ENTRY, name = 'vouch'): EditIntent => ({
  path,
  format: 'yaml',
  summary: 'add the vouch MCP server',
  changes: [{ kind: 'yaml-set', at: ['mcp_servers', name], value }],
  manual: ['add mcp_servers.vouch by hand'],
});

/** What an edit added, checking that every byte of `before` is still there, in order, around it. */
function insertion(before: string, after: string): string {
  let prefix = 0;
  while (prefix < before.length && before[prefix] === after[prefix]) prefix++;
  let suffix = 0;
  while (suffix < before.length - prefix && before[before.length - 1 - suffix] === after[after.length - 1 - suffix]) suffix++;
  expect(prefix + suffix, `the edit changed bytes of the original:\n${after}`).toBe(before.length);
  return after.slice(prefix, after.length - suffix);
}

const yaml11 = (text: string) => parse(text, { version: '1.1' });

/** A config in the style Hermes ships and people edit: comments everywhere, lists level with their key, flow values, blank lines. */
const HERMES = `# Hermes Agent configuration
model:
  default: "anthropic/claude-opus"   # pinned
  provider:   auto

toolsets:
- hermes-cli
- web

mcp_servers:
  github:
    command: npx
    args: ["-y", '@modelcontextprotocol/server-github']
    env:
      GITHUB_TOKEN: "ghp_x"   # from the vault


  # the clock
  time: {command: uvx, args: [mcp-server-time]}  # keep me
# =====================
terminal:
  backend: local
`;

describe('installEdit: YAML (yaml-set)', () => {
  it('adds the entry as block lines after the last server, keeps every other byte, and uninstall gives back the original bytes', () => {
    const { home, path } = place();
    writeFileSync(path, HERMES);
    expect(installEdit(intent(path), { home })).toMatchObject({ kind: 'written', how: 'applied' });
    const text = readFileSync(path, 'utf8');
    expect(insertion(HERMES, text)).toBe(
      '  vouch:\n    command: /opt/node/bin/node\n    args:\n    - /opt/vouch/dist/cli.js\n    - mcp\n    - -C\n    - /ws\n    timeout: 3600\n',
    );
    expect(text).toContain('  time: {command: uvx, args: [mcp-server-time]}  # keep me\n  vouch:\n');
    const config = yaml11(text);
    expect(Object.keys(config.mcp_servers)).toEqual(['github', 'time', 'vouch']);
    expect(config.mcp_servers.vouch).toEqual(ENTRY);
    expect(installEdit(intent(path), { home })).toMatchObject({ kind: 'unchanged' });
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect(uninstallEdit(intent(path), { home })).toMatchObject({ kind: 'written', how: 'restored' });
    expect(readFileSync(path, 'utf8')).toBe(HERMES);
  });

  it('after the user edited elsewhere, removes exactly its own lines', () => {
    const { home, path } = place();
    writeFileSync(path, HERMES);
    installEdit(intent(path), { home });
    writeFileSync(path, readFileSync(path, 'utf8').replace('backend: local', 'backend: docker'));
    expect(uninstallEdit(intent(path), { home })).toMatchObject({ kind: 'written', how: 'removed' });
    expect(readFileSync(path, 'utf8')).toBe(HERMES.replace('backend: local', 'backend: docker'));
    expect(uninstallEdit(intent(path), { home })).toMatchObject({ kind: 'unchanged' });
  });

  it('adds mcp_servers itself after the last top-level key, and takes all of it back out when the user edited elsewhere', () => {
    const { home, path } = place();
    const original = '# mine\nmodel: opus   # the big one\n\n# trailing notes\n';
    writeFileSync(path, original);
    installEdit(intent(path), { home });
    const text = readFileSync(path, 'utf8');
    expect(insertion(original, text)).toBe(
      'mcp_servers:\n  vouch:\n    command: /opt/node/bin/node\n    args:\n      - /opt/vouch/dist/cli.js\n      - mcp\n      - -C\n      - /ws\n    timeout: 3600\n',
    );
    expect(text.startsWith('# mine\nmodel: opus   # the big one\nmcp_servers:\n')).toBe(true);
    writeFileSync(path, text.replace('model: opus', 'model: sonnet'));
    uninstallEdit(intent(path), { home });
    expect(readFileSync(path, 'utf8')).toBe(original.replace('model: opus', 'model: sonnet'));
  });

  it('fills a `mcp_servers:` left empty (entries commented out) and gives it back empty', () => {
    const { home, path } = place();
    const original = 'mcp_servers:\n#  time:\n#    command: uvx\nagent:\n  max_turns: 60\n';
    writeFileSync(path, original);
    installEdit(intent(path), { home });
    const text = readFileSync(path, 'utf8');
    expect(text.startsWith('mcp_servers:\n  vouch:\n    command: /opt/node/bin/node\n')).toBe(true);
    expect(yaml11(text)).toEqual({ mcp_servers: { vouch: ENTRY }, agent: { max_turns: 60 } });
    writeFileSync(path, text.replace('max_turns: 60', 'max_turns: 61'));
    uninstallEdit(intent(path), { home });
    expect(readFileSync(path, 'utf8')).toBe(original.replace('max_turns: 60', 'max_turns: 61'));
  });

  it.each([
    ['a file that does not exist', null],
    ['an empty file', ''],
    ['a file of comments only', '# nothing here yet\n'],
    ['a file without a final newline', 'model: opus'],
    ['a file with a byte order mark', '\uFEFFmodel: opus\n'],
    ['a file with a directive and document markers', '%YAML 1.1\n---\nmodel: opus\n...\n'],
  ])('writes into %s and restores it', (_name, original) => {
    const { home, path } = place();
    if (original !== null) writeFileSync(path, original);
    expect(installEdit(intent(path), { home })).toMatchObject({ kind: 'written' });
    const text = readFileSync(path, 'utf8');
    expect(yaml11(text).mcp_servers).toEqual({ vouch: ENTRY });
    if (original !== null) insertion(original, text);
    uninstallEdit(intent(path), { home });
    if (original === null) expect(existsSync(path)).toBe(false);
    else expect(readFileSync(path, 'utf8')).toBe(original);
  });

  it('follows the file: four-space indentation, and CRLF line endings', () => {
    const { home, path } = place();
    const original = 'mcp_servers:\r\n    docs:\r\n        command: docs\r\n        args:\r\n            - --port\r\n';
    writeFileSync(path, original);
    installEdit(intent(path), { home });
    const added = insertion(original, readFileSync(path, 'utf8'));
    expect(added.startsWith('    vouch:\r\n        command: /opt/node/bin/node\r\n        args:\r\n')).toBe(true);
    expect(added.replaceAll('\r\n', '')).not.toContain('\n');
    expect(yaml11(readFileSync(path, 'utf8')).mcp_servers.vouch).toEqual(ENTRY);
  });

  it('places the entry after a block scalar that keeps its trailing blank lines, without changing it', () => {
    const { home, path } = place();
    const original = 'mcp_servers:\n  notes:\n    command: x\n    banner: |+\n      hello\n\nother: 1\n';
    writeFileSync(path, original);
    expect(installEdit(intent(path), { home })).toMatchObject({ kind: 'written' });
    const config = yaml11(readFileSync(path, 'utf8'));
    expect(config.mcp_servers.notes.banner).toBe('hello\n\n');
    expect(config.mcp_servers.vouch).toEqual(ENTRY);
  });

  it('quotes strings that YAML 1.1 readers (PyYAML, so Hermes) would take for booleans or numbers', () => {
    const { home, path } = place();
    const value = { command: 'on', args: ['yes', 'no', '0755', '1:20', '~', 'null', '3600'] };
    installEdit(intent(path, value), { home });
    expect(yaml11(readFileSync(path, 'utf8')).mcp_servers.vouch).toEqual(value);
  });

  it('keeps a second server of its own (another --name) and removes each on its own', () => {
    const { home, path } = place();
    writeFileSync(path, HERMES);
    installEdit(intent(path, ENTRY, 'vouch-a'), { home });
    installEdit(intent(path, { ...ENTRY, args: ['/other'] }, 'vouch-b'), { home });
    expect(Object.keys(yaml11(readFileSync(path, 'utf8')).mcp_servers)).toEqual(['github', 'time', 'vouch-a', 'vouch-b']);
    expect(uninstallEdit(intent(path, ENTRY, 'vouch-a'), { home })).toMatchObject({ kind: 'written', how: 'removed' });
    expect(Object.keys(yaml11(readFileSync(path, 'utf8')).mcp_servers)).toEqual(['github', 'time', 'vouch-b']);
    expect(uninstallEdit(intent(path, { ...ENTRY, args: ['/other'] }, 'vouch-b'), { home })).toMatchObject({ kind: 'written' });
    expect(readFileSync(path, 'utf8')).toBe(HERMES);
  });

  it.each([
    ['invalid YAML', 'mcp_servers: [unclosed\n', 'invalid_file'],
    ['a duplicated key', 'mcp_servers:\n  a: {command: x}\nmcp_servers:\n  b: {command: y}\n', 'invalid_file'],
    ['several documents', 'model: a\n---\nmodel: b\n', 'unexpected_shape'],
    ['a list at the top level', '- a\n- b\n', 'unexpected_shape'],
    ['mcp_servers that is a list', 'mcp_servers:\n  - time\n', 'unexpected_shape'],
    ['mcp_servers written null', 'mcp_servers: null\n', 'unexpected_shape'],
    ['an empty flow mapping, which would have to be rewritten', 'mcp_servers: {}\n', 'unexpected_shape'],
    ['a flow mapping of servers', 'mcp_servers: {time: {command: uvx}}\n', 'unexpected_shape'],
    ['a top level in flow style', '{model: opus}\n', 'unexpected_shape'],
    ['an anchor on mcp_servers, which its aliases would share', 'mcp_servers: &servers\n  time: {command: uvx}\nbackup: *servers\n', 'unexpected_shape'],
    ['mcp_servers that is an alias of another mapping', 'base: &b\n  time: {command: uvx}\nmcp_servers: *b\n', 'unexpected_shape'],
    ['a merge key in mcp_servers', 'base: &b\n  time: {command: uvx}\nmcp_servers:\n  <<: *b\n  docs: {command: d}\n', 'unexpected_shape'],
    ['another vouch server with other settings', 'mcp_servers:\n  vouch:\n    command: /old/node\n', 'conflict'],
    [
      'a billion-laughs alias bomb',
      `a: &a ["x","x","x","x","x","x","x","x","x","x"]\n${Array.from(
        { length: 8 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
            .fill(`*${String.fromCharCode(97 + i)}`)
            .join(',')}]`,
      ).join('\n')}\n`,
      'invalid_file',
    ],
  ])('refuses %s, with the reason and the manual steps, writing nothing', (_name, content, code) => {
    const { home, path } = place();
    writeFileSync(path, content);
    const outcome = installEdit(intent(path), { home });
    expect(outcome).toMatchObject({ kind: 'refused', path, refusal: { code, manual: ['add mcp_servers.vouch by hand'] } });
    expect(readFileSync(path, 'utf8')).toBe(content);
    expect(existsSync(join(home, 'installs'))).toBe(false);
  });

  it('refuses to remove an entry the user changed since, and leaves the file alone', () => {
    const { home, path } = place();
    writeFileSync(path, HERMES);
    installEdit(intent(path), { home });
    const changed = readFileSync(path, 'utf8').replace('timeout: 3600', 'timeout: 60');
    writeFileSync(path, changed);
    expect(uninstallEdit(intent(path), { home })).toMatchObject({ kind: 'refused', refusal: { code: 'conflict' } });
    expect(readFileSync(path, 'utf8')).toBe(changed);
  });
});
