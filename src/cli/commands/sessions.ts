import type { BoxState } from '../../gate/box.js';
import { sessionTrouble, sessionView, type SessionTrouble, type SessionView } from '../../gate/session-check.js';
import { sessionWatches } from '../../gate/session-record.js';
import { summarizeSession } from '../../gate/session-summary.js';
import { paint, type Paint } from '../../render/color.js';
import { table } from '../../render/table.js';
import { ago } from '../../render/time.js';
import { integerFlag, parse } from '../args.js';
import { EXIT } from '../exit.js';
import { err, json, out, type Cli } from '../io.js';

export const help = `usage: vouch sessions [SESSION...] [--limit N] [--check] [--json]

Agent sessions the gate has seen in this workspace, most recent first: how
the last stop was answered (allow, block, or ESCAPED: let through unverified
after gate.max_blocks blocks with no file change), how many blocks, how
many tool calls the agent's own trail records, and whether the agent worked
in the box (its client's sandbox holding what vouches read-only). A session
with tool calls on record and no stop seen is flagged "stop never seen":
its hooks were switched off (disableAllHooks), or it is still working. With
SESSION, those sessions only, with every decision and trail entry in --json.

The trail is the agent's own account (PostToolUse), kept as context; it is
never evidence that anything passed. Only receipts are.

  --limit N  at most N sessions (default 20)
  --check    exit 1 unless each session named (default: the most recent
             one) ended on a stop the gate allowed: an ESCAPED session, one
             whose last stop was blocked, one whose stop was never seen, and
             a SESSION with nothing on record fail, each with its reason
             (escaped, blocked, stop_never_seen, unknown_session). For CI
             after a headless \`claude -p\`, whose exit code says nothing of this
  --json     {"sessions": [{"session", "client", "last", "escaped", "blocks",
             "first_at", "last_at", "stop_seen", "box": {"client", "on",
             "gaps"} | null, "decisions": [...], "trail": [...],
             "damaged"}]} (damaged: entries whose bytes no longer match
             their hash, counted and never read as what they say); with
             --check also "check": {"ok", "failing": [{"session", "reason"}]}

exit: 0 (with --check: every session checked ended on an allowed stop),
1 with --check when one did not, 2 usage or ledger problem`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('sessions', args, { json: { type: 'boolean' }, limit: { type: 'string' }, check: { type: 'boolean' } });
  const limit = integerFlag('sessions', 'limit', values.limit, 1) ?? 20;
  const workspace = cli.session.workspace();
  const ledger = await cli.session.read(workspace);
  const sessions: SessionView[] = [];
  const ids = positionals.length > 0 ? positionals : ledger ? await ledger.recentSessions(values.check ? 1 : limit) : [];
  for (const id of ids) {
    const summary = summarizeSession(id, ledger ? await ledger.sessionEntries(id) : []);
    sessions.push(sessionView(summary, boxOf(cli.session.home, summary.client, id, workspace.root)));
  }
  const failing = values.check
    ? sessions.flatMap((s) => {
        const reason = sessionTrouble(s);
        return reason ? [{ session: s.session, reason }] : [];
      })
    : [];
  const code = failing.length > 0 ? EXIT.notOk : EXIT.ok;
  if (values.json) {
    json(cli, { sessions, ...(values.check && { check: { ok: failing.length === 0, failing } }) });
    return code;
  }
  const p = paint(cli.color);
  if (sessions.length === 0) {
    out(cli, 'no agent sessions recorded yet (install the hooks: `vouch install claude-code`)');
    // A check of nothing is no pass: there was no session to vouch for.
    if (values.check) err(cli, `${p.red('✗')} no session on record to check: the gate saw none in this workspace`);
    return values.check ? EXIT.notOk : EXIT.ok;
  }
  out(
    cli,
    table(
      sessions.map((s) => [
        s.session,
        s.client ?? '',
        word(s, p),
        `${s.blocks} block${s.blocks === 1 ? '' : 's'}`,
        `${s.trail.length} tool call${s.trail.length === 1 ? '' : 's'}${s.damaged > 0 ? ` · ${p.red(`${s.damaged} DAMAGED entr${s.damaged === 1 ? 'y' : 'ies'}`)}` : ''}`,
        boxWord(s.box, p),
        p.dim(ago(s.last_at)),
      ]),
    ),
  );
  for (const f of failing) err(cli, `${p.red('✗')} ${f.session}: ${troubleWords(f.reason)}`);
  return code;
}

function word(s: SessionView, p: Paint): string {
  if (s.escaped) return p.red('ESCAPED (unverified)');
  if (!s.stop_seen) return p.red(s.last === null ? 'stop never seen: hooks switched off?' : `${s.last}, then tool calls and no stop seen: hooks switched off?`);
  if (s.last === 'allow') return p.green('allowed');
  if (s.last === 'block') return p.yellow('blocked');
  return p.dim('no stop yet');
}

function boxWord(box: BoxState | null, p: Paint): string {
  if (box === null) return p.dim('box: not recorded');
  return box.on ? p.green('boxed') : p.yellow('box off');
}

function boxOf(home: string, client: string | null, session: string, root: string): BoxState | null {
  if (client === null) return null;
  return sessionWatches(home, client, session).watches.find((w) => w.workspace === root)?.box ?? null;
}

function troubleWords(reason: SessionTrouble): string {
  switch (reason) {
    case 'escaped':
      return 'ESCAPED: let through unverified after gate.max_blocks blocks (escaped)';
    case 'blocked':
      return 'its last stop was blocked: it ended on a "done" the gate did not accept (blocked)';
    case 'stop_never_seen':
      return 'tool calls on record and no stop seen: its hooks were switched off (disableAllHooks?), or it is still working (stop_never_seen)';
    case 'unknown_session':
      return "nothing of it on record here: the gate's hooks never ran for it in this workspace (unknown_session)";
  }
}
