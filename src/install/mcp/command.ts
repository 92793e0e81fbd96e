import { fail } from '../../core/problem.js';
import { closest } from '../../core/suggest.js';
import { parse } from '../../cli/args.js';
import { EXIT } from '../../cli/exit.js';
import { err, json, type Cli } from '../../cli/io.js';
import { workspaceOf } from '../../cli/session.js';
import { vouchHome } from '../../workspace/home.js';
import { MCP_CLIENTS } from './clients/index.js';
import { mcpLaunch } from './launch.js';
import { writeEntry } from './write.js';

const CLIENT_IDS = MCP_CLIENTS.map((c) => c.id);

export const help = `usage: vouch install mcp --client ${CLIENT_IDS.join('|')} [--name NAME] [--json] [--write]

Prints the configuration entry that makes a client start \`vouch mcp\` for this
workspace. stdout is the snippet alone, a valid document in the client's
format (JSON, TOML or YAML); stderr says which file it belongs in. The entry
uses absolute paths to node, to vouch and to the workspace, so it works
without PATH and from any directory.

  --client NAME  claude-code: .mcp.json at the project root (project scope)
                 cursor:      .cursor/mcp.json in the project
                 codex:       [mcp_servers.NAME] in ~/.codex/config.toml ($CODEX_HOME)
                 hermes:      mcp_servers in ~/.hermes/config.yaml ($HERMES_HOME)
  --name NAME    the server's name in the client (default vouch); A-Z a-z 0-9 _ -
  --json         {"client", "file", "format", "key", "entry", "snippet", "alternatives"}
  --write        not yet available: prints the snippet, then exits 2; apply it by hand`;

/** `vouch install mcp ...`: args are what follows `mcp`. */
export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values } = parse(
    'install mcp',
    args,
    { client: { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean' }, write: { type: 'boolean' } },
    false,
  );
  const client = MCP_CLIENTS.find((c) => c.id === values.client);
  if (!client) {
    const guess = values.client === undefined ? undefined : closest(values.client, CLIENT_IDS);
    return fail({
      code: 'usage',
      message: values.client === undefined ? 'vouch install mcp needs --client' : `unknown client${guess ? ` (did you mean "${guess}"?)` : ''}`,
      where: 'vouch install mcp',
      expected: `--client ${CLIENT_IDS.join(', ')}`,
      ...(values.client !== undefined && { found: values.client }),
    });
  }
  const name = values.name ?? 'vouch';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
    return fail({ code: 'usage', message: '--name is not a usable server name', where: 'vouch install mcp', expected: '1 to 64 characters from A-Z a-z 0-9 _ -', found: name });
  }
  if (!cli.io.self) return fail({ code: 'usage', message: 'cannot tell where this vouch is installed', hint: 'run vouch through its executable (dist/cli.js)' });

  const workspace = workspaceOf(cli);
  const home = vouchHome(cli.io.env);
  const place = { workspaceRoot: workspace.root, home, env: cli.io.env };
  const launch = mcpLaunch(cli.io.self, workspace.root, home, cli.io.env);
  const entry = client.entry(launch, name);
  const file = client.configPath(place);
  const snippet = client.render(entry);
  const alternatives = client.alternatives?.(launch, name, place) ?? [];

  // With --json, stdout carries one object: the refusal, not the entry and then the refusal.
  if (values.write && values.json) return writeEntry(client, file, entry, false);
  if (values.json) {
    json(cli, { client: client.id, file, format: client.format, key: entry.key, entry: entry.value, snippet, alternatives });
    return EXIT.ok;
  }
  cli.io.stdout.write(snippet);
  err(cli, `${client.label}: add this to ${client.where(place)}.`);
  for (const line of alternatives) err(cli, `or run:\n  ${line}`);
  if (values.write) return writeEntry(client, file, entry, true);
  return EXIT.ok;
}
