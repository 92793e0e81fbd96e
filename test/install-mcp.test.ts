import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { McpSession } from './helpers/mcp.js';
import { CLI, Rig } from './helpers/rig.js';

/** A workspace whose path needs quoting in every format: spaces, both quotes, a backslash, non-ASCII. */
const AWKWARD = `my "work" space's \\ dir ü`;

function parseDocument(format: string, text: string): any {
  switch (format) {
    case 'json':
      return JSON.parse(text);
    case 'yaml':
      return parseYaml(text);
    case 'toml':
      // A real TOML parser (Python's standard tomllib), not our own renderer read back.
      return JSON.parse(
        execFileSync('python3', ['-c', 'import sys, json, tomllib; print(json.dumps(tomllib.loads(sys.stdin.read())))'], { input: text }).toString(),
      );
    default:
      throw new Error(format);
  }
}

const CLIENTS = [
  { client: 'claude-code', format: 'json', key: ['mcpServers', 'vouch'], file: (root: string) => join(root, '.mcp.json') },
  { client: 'cursor', format: 'json', key: ['mcpServers', 'vouch'], file: (root: string) => join(root, '.cursor', 'mcp.json') },
  { client: 'codex', format: 'toml', key: ['mcp_servers', 'vouch'], file: () => '/x/codex-home/config.toml' },
  { client: 'hermes', format: 'yaml', key: ['mcp_servers', 'vouch'], file: () => '/x/hermes-home/config.yaml' },
];

async function workspace(): Promise<{ rig: Rig; root: string }> {
  const rig = new Rig().write({
    [`${AWKWARD}/src/a.ts`]: 'a\n',
    [`${AWKWARD}/vouch.yaml`]: 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n',
  });
  const root = rig.path(AWKWARD);
  expect((await rig.run(['allow'], { cwd: root })).code).toBe(0);
  return { rig, root };
}

const homes = { CODEX_HOME: '/x/codex-home', HERMES_HOME: '/x/hermes-home' };

describe('vouch install mcp --client', () => {
  it.each(CLIENTS)(
    '$client: prints a valid $format document whose entry starts a working server without PATH, from any directory',
    async ({ client, format, key, file }) => {
      const { rig, root } = await workspace();
      const printed = await rig.run(['install', 'mcp', '--client', client], { cwd: root, env: homes });
      expect(printed.code).toBe(0);
      const document = parseDocument(format, printed.stdout);
      expect(Object.keys(document)).toEqual([key[0]]);
      expect(Object.keys(document[key[0]!])).toEqual([key[1]]);
      const entry = document[key[0]!][key[1]!];
      expect(entry.command).toBe(process.execPath);
      expect(entry.args).toEqual([realpathSync(CLI), 'mcp', '-C', root]);
      expect(printed.stderr).toContain(file(root));

      const json = (await rig.run(['install', 'mcp', '--client', client, '--json'], { cwd: root, env: homes })).json();
      expect(json).toMatchObject({ client, format, key, file: file(root), snippet: printed.stdout });
      expect(json.entry).toEqual(entry);

      // Start it the way the client would: only what the entry says, no PATH, another cwd.
      const mcp = await McpSession.connect(rig, {
        command: { command: entry.command, args: entry.args },
        cwd: '/',
        exactEnv: { HOME: rig.home, PATH: '/nonexistent', ...entry.env },
      });
      const status = (await mcp.call('vouch_status', {})).structuredContent as any;
      expect(status.workspace).toBe(root);
      expect(status.spec.trust).toBe('allowed');
      expect(status.checks[0]).toMatchObject({ id: 't', reason: 'no_receipt' });
    },
  );

  it('pins VOUCH_HOME in the entry when the trust store was moved, and leaves env empty when it was not', async () => {
    const { rig, root } = await workspace();
    const moved = (await rig.run(['install', 'mcp', '--client', 'codex', '--json'], { cwd: root })).json();
    expect(moved.entry.env).toEqual({ VOUCH_HOME: rig.home });
    expect(parseDocument('toml', moved.snippet).mcp_servers.vouch.env).toEqual({ VOUCH_HOME: rig.home });
    const usual = (await rig.run(['install', 'mcp', '--client', 'hermes', '--json'], { cwd: root, env: { VOUCH_HOME: undefined } })).json();
    expect(usual.entry.env).toBeUndefined();
  });

  it('sets a per-call timeout for clients whose default is shorter than a check may run', async () => {
    const { rig, root } = await workspace();
    const codex = (await rig.run(['install', 'mcp', '--client', 'codex', '--json'], { cwd: root })).json();
    expect(codex.entry.tool_timeout_sec).toBe(3600);
    const hermes = (await rig.run(['install', 'mcp', '--client', 'hermes', '--json'], { cwd: root })).json();
    expect(hermes.entry.timeout).toBe(3600);
  });

  it('claude-code also prints the `claude mcp add` line, quoted so a shell splits it back into the same argv', async () => {
    const { rig, root } = await workspace();
    const printed = (await rig.run(['install', 'mcp', '--client', 'claude-code', '--name', 'vouch-ws', '--json'], { cwd: root })).json();
    const line = printed.alternatives[0] as string;
    expect(line.startsWith('claude mcp add --scope project --env ')).toBe(true);
    const words = execFileSync('sh', ['-c', `set -- ${line}; printf '%s\\0' "$@"`])
      .toString()
      .split('\0')
      .slice(0, -1);
    expect(words).toEqual([
      'claude',
      'mcp',
      'add',
      '--scope',
      'project',
      '--env',
      `VOUCH_HOME=${rig.home}`,
      'vouch-ws',
      '--',
      process.execPath,
      realpathSync(CLI),
      'mcp',
      '-C',
      root,
    ]);
  });

  it.each([
    [['install'], /what should vouch install\?/],
    [['install', 'mpc'], /unknown install target "mpc" \(did you mean "mcp"\?\)/],
    [['install', 'mcp'], /vouch install mcp needs --client/],
    [['install', 'mcp', '--client', 'codx'], /unknown client \(did you mean "codex"\?\)/],
    [['install', 'mcp', '--client', 'codex', '--name', 'a b'], /--name is not a usable server name/],
    [['install', 'mcp', 'extra', '--client', 'codex'], /unexpected argument "extra"/],
  ])('refuses %j with exit 2 and says why', async (args, message) => {
    const { rig, root } = await workspace();
    const result = await rig.run(args, { cwd: root });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });

  it('needs a workspace: the entry pins one', async () => {
    const result = await new Rig().run(['install', 'mcp', '--client', 'codex']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no vouch.yaml in');
  });
});
