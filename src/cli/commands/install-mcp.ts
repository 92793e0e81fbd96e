import { fail } from '../../core/problem.js';
import { closest } from '../../core/suggest.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { applyIntents } from '../config-edit.js';
import { err, json, type Cli } from '../io.js';
import { vouchHome } from '../../workspace/home.js';
import type { ClientPlace } from '../../install/mcp/client.js';
import { MCP_CLIENTS } from '../../install/mcp/clients/index.js';
import { mcpLaunch } from '../../install/mcp/launch.js';
import { mcpIntent, type McpEdit } from '../../install/mcp/intent.js';

const CLIENT_IDS = MCP_CLIENTS.map((c) => c.id);

export const help = `usage: vouch install mcp --client ${CLIENT_IDS.join('|')} [--name NAME] [--write] [--json]

Prints the configuration entry that makes a client start \`vouch mcp\` for this
workspace; with --write, adds it to the client's file. Printed, stdout is the
snippet alone, a valid document in the client's format (JSON, TOML or YAML),
and stderr says which file it belongs in. The entry uses absolute paths to
node, to vouch and to the workspace, so it works without PATH and from any
directory.

  --client NAME  claude-code: .mcp.json at the project root (project scope)
                 cursor:      .cursor/mcp.json in the project
                 codex:       [mcp_servers.NAME] in ~/.codex/config.toml ($CODEX_HOME)
                 hermes:      mcp_servers in ~/.hermes/config.yaml ($HERMES_HOME)
  --name NAME    the server's name in the client (default vouch); A-Z a-z 0-9 _ -
  --write        add the entry to that file, by the same rules as every install:
                 backup, built in memory, parsed again and compared, anything
                 unexpected refused (exit 3, nothing written); twice changes nothing
  --json         printed: {"client", "file", "format", "key", "entry", "snippet", "alternatives"};
                 with --write: {"ok", "target", "client", "name", "results"}`;

export const uninstallHelp = `usage: vouch uninstall mcp --client ${CLIENT_IDS.join('|')} [--name NAME] [--json]

Takes back \`vouch install mcp --write\`: the original bytes when the client's
file is unchanged since, else exactly the server entry vouch added (and the
"mcpServers"/"mcp_servers" it created, when nothing else is left in it).`;

const OPTIONS = { client: { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean' } } as const;

/** `vouch install mcp ...`: args are what follows `mcp`. */
export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values } = parse('install mcp', args, { ...OPTIONS, write: { type: 'boolean' } }, false);
  const edit = resolve(cli, values, 'install mcp');
  const { client, entry, file, snippet, alternatives } = edit;
  if (values.write) return applyIntents(cli, [mcpIntent(edit, 'install')], 'install', values.json === true, about(edit));
  if (values.json) {
    json(cli, { client: client.id, file, format: client.format, key: entry.key, entry: entry.value, snippet, alternatives });
    return EXIT.ok;
  }
  cli.data.write(snippet);
  err(cli, `${client.label}: add this to ${client.where(edit.place)}, or run this command again with --write.`);
  for (const line of alternatives) err(cli, `or run:\n  ${line}`);
  return EXIT.ok;
}

/** `vouch uninstall mcp ...`: takes the entry back out of the client's file. */
export async function runUninstall(cli: Cli, args: readonly string[]): Promise<number> {
  const { values } = parse('uninstall mcp', args, OPTIONS, false);
  const edit = resolve(cli, values, 'uninstall mcp');
  return applyIntents(cli, [mcpIntent(edit, 'uninstall')], 'uninstall', values.json === true, about(edit));
}

const about = (edit: McpEdit) => ({ target: 'mcp', client: edit.client.id, name: edit.entry.key[edit.entry.key.length - 1] });

/** The client, its file and the entry for this workspace, from the options; usage problems end the command. */
function resolve(cli: Cli, values: { readonly client?: string; readonly name?: string }, command: string): McpEdit & { readonly place: ClientPlace } {
  const client = MCP_CLIENTS.find((c) => c.id === values.client);
  if (!client) {
    const guess = values.client === undefined ? undefined : closest(values.client, CLIENT_IDS);
    return fail({
      code: 'usage',
      message: values.client === undefined ? `vouch ${command} needs --client` : `unknown client${guess ? ` (did you mean "${guess}"?)` : ''}`,
      where: `vouch ${command}`,
      expected: `--client ${CLIENT_IDS.join(', ')}`,
      ...(values.client !== undefined && { found: values.client }),
    });
  }
  const name = values.name ?? 'vouch';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
    return fail({
      code: 'usage',
      message: '--name is not a usable server name',
      where: `vouch ${command}`,
      expected: '1 to 64 characters from A-Z a-z 0-9 _ -',
      found: name,
    });
  }
  if (!cli.io.self)
    return fail({ code: 'usage', message: 'cannot tell where this vouch is installed', hint: 'run vouch through its executable (dist/cli.js)' });

  const workspace = cli.session.workspace();
  const home = vouchHome(cli.io.env);
  const place = { workspaceRoot: workspace.root, home, env: cli.io.env };
  const launch = mcpLaunch(cli.io.self, workspace.root, home, cli.io.env);
  const entry = client.entry(launch, name);
  return {
    client,
    file: client.configPath(place),
    entry,
    snippet: client.render(entry),
    workspaceRoot: workspace.root,
    alternatives: client.alternatives?.(launch, name, place) ?? [],
    place,
  };
}
