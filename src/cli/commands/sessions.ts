import type { GateBody, StoredSessionEntry, TrailBody } from '../../gate/entries.js';
import { paint } from '../../render/color.js';
import { table } from '../../render/table.js';
import { ago } from '../../render/time.js';
import { integerFlag, parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, out, type Cli } from '../io.js';
import { ledgerOfWorkspace, openLedgerForRead, workspaceOf } from '../session.js';

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
             "first_at", "last_at", "decisions": [...], "trail": [...]}]}`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('sessions', args, { json: { type: 'boolean' }, limit: { type: 'string' } });
  const limit = integerFlag('sessions', 'limit', values.limit, 1) ?? 20;
  const workspace = workspaceOf(cli);
  const ledger = openLedgerForRead(ledgerOfWorkspace(cli.io.env, workspace));
  const sessions: Summary[] = [];
  if (ledger) {
    try {
      const ids = positionals.length > 0 ? positionals : await ledger.recentSessions(limit);
      for (const id of ids) sessions.push(summarize(id, await ledger.sessionEntries(id)));
    } finally {
      await ledger.close();
    }
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
        `${s.trail.length} tool call${s.trail.length === 1 ? '' : 's'}`,
        p.dim(ago(s.last_at)),
      ]),
    ),
  );
  return EXIT.ok;
}

interface Summary {
  readonly session: string;
  readonly client: string | null;
  /** The last gate decision, or null when the session never stopped. */
  readonly last: GateBody['decision'] | null;
  readonly escaped: boolean;
  readonly blocks: number;
  readonly first_at: string | null;
  readonly last_at: string | null;
  readonly decisions: GateBody[];
  readonly trail: TrailBody[];
}

function summarize(session: string, entries: readonly StoredSessionEntry[]): Summary {
  const decisions = entries.flatMap((e) => (e.body.kind === 'gate' ? [e.body] : []));
  const trail = entries.flatMap((e) => (e.body.kind === 'trail' ? [e.body] : []));
  return {
    session,
    client: entries[0]?.body.client ?? null,
    last: decisions[decisions.length - 1]?.decision ?? null,
    escaped: decisions.some((d) => d.decision === 'escaped'),
    blocks: decisions.filter((d) => d.decision === 'block').length,
    first_at: entries[0]?.body.at ?? null,
    last_at: entries[entries.length - 1]?.body.at ?? null,
    decisions,
    trail,
  };
}
