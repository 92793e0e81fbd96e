import { summarizeSession, type SessionSummary as Summary } from '../../gate/session-summary.js';
import { paint } from '../../render/color.js';
import { table } from '../../render/table.js';
import { ago } from '../../render/time.js';
import { integerFlag, parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, out, type Cli } from '../io.js';

export const help = `usage: vouch sessions [SESSION] [--limit N] [--json]

Agent sessions the gate has seen in this workspace, most recent first: how
the last stop was answered (allow, block, or ESCAPED: let through unverified
after gate.max_blocks blocks with no file change), how many blocks, and how
many tool calls the agent's own trail records. With SESSION, that session
only, with every decision and trail entry in --json.

The trail is the agent's own account (PostToolUse), kept as context; it is
never evidence that anything passed. Only receipts are.

  --limit N  at most N sessions (default 20)
  --json     {"sessions": [{"session", "client", "last", "escaped", "blocks",
             "first_at", "last_at", "decisions": [...], "trail": [...],
             "damaged"}]} (damaged: entries whose bytes no longer match
             their hash, counted and never read as what they say)`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('sessions', args, { json: { type: 'boolean' }, limit: { type: 'string' } });
  const limit = integerFlag('sessions', 'limit', values.limit, 1) ?? 20;
  const workspace = cli.session.workspace();
  const ledger = await cli.session.read(workspace);
  const sessions: Summary[] = [];
  if (ledger) {
    const ids = positionals.length > 0 ? positionals : await ledger.recentSessions(limit);
    for (const id of ids) sessions.push(summarizeSession(id, await ledger.sessionEntries(id)));
  }
  if (values.json) {
    json(cli, { sessions });
    return EXIT.ok;
  }
  const p = paint(cli.color);
  if (sessions.length === 0) {
    out(cli, 'no agent sessions recorded yet (install the hooks: `vouch install claude-code`)');
    return EXIT.ok;
  }
  const word = (s: Summary) =>
    s.escaped ? p.red('ESCAPED (unverified)') : s.last === 'allow' ? p.green('allowed') : s.last === 'block' ? p.yellow('blocked') : p.dim('no stop yet');
  out(
    cli,
    table(
      sessions.map((s) => [
        s.session,
        s.client ?? '',
        word(s),
        `${s.blocks} block${s.blocks === 1 ? '' : 's'}`,
        `${s.trail.length} tool call${s.trail.length === 1 ? '' : 's'}${s.damaged > 0 ? ` · ${p.red(`${s.damaged} DAMAGED entr${s.damaged === 1 ? 'y' : 'ies'}`)}` : ''}`,
        p.dim(ago(s.last_at)),
      ]),
    ),
  );
  return EXIT.ok;
}
