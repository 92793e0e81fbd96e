import { vouchHome } from '../../workspace/home.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import type { Cli } from '../io.js';

export const help = `usage: vouch mcp [-C DIR]

Serves the Model Context Protocol over stdio for the workspace at DIR (default:
the nearest vouch.yaml upwards from the current directory), for agents such as
Claude Code, Codex, Cursor and Hermes. stdout carries only the protocol; logs go
to stderr. \`vouch install mcp --client NAME\` prints the entry for a client.

tools (every argument is an id, or a dispatch's claim as data; none takes a
command, path, directory, environment or glob):
  vouch_checks                the configured checks and what a PASS of each proves
  vouch_status [check_ids]    each check's current status (runs nothing)
  vouch_verify check_ids      run checks as the spec declares them, one receipt
                              each (actor "mcp"), with progress notifications
  vouch_receipt receipt_id    one receipt as recorded
  vouch_dispatch_report dispatch_id claim
                              record the agent's claim on its dispatch, as
                              \`vouch dispatch report\` (grades nothing)
  vouch_card_show card_id     a task card and whether it would close now
  vouch_card_verify card_id   run the card's frozen proof, as \`vouch card verify\`
  vouch_card_complete card_id close the card on a fresh PASS (no force over MCP)

vouch.yaml is read again, and its trust checked again, on every call: an
edited spec runs nothing until a person runs \`vouch allow\`.
exit: 0 when the client closes the connection, 2 when no workspace is found`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  parse('mcp', args, {}, false);
  // Chosen once, at start: a client cannot move the server to another workspace.
  const workspace = cli.session.workspace();
  // The SDK is loaded only here, so no other command pays for it.
  const { serveMcp } = await import('../../mcp/serve.js');
  await serveMcp({
    workspace,
    home: vouchHome(cli.io.env),
    env: cli.io.env,
    stdin: cli.io.stdin,
    stdout: cli.data,
    stderr: cli.io.stderr,
    ...(cli.io.signal && { signal: cli.io.signal }),
    ...(cli.io.hashWorker && { hashWorker: cli.io.hashWorker }),
  });
  return EXIT.ok;
}
