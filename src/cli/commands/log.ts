import { shortId } from '../../core/ids.js';
import { paint } from '../../render/color.js';
import { selectChecks } from '../../spec/select.js';
import { statusWord } from '../../render/status.js';
import { table } from '../../render/table.js';
import { ago, duration } from '../../render/time.js';
import { integerFlag, parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, out, type Cli } from '../io.js';

export const help = `usage: vouch log [ID] [--limit N] [--json]

Receipts, newest first: all checks, or one check's. Every execution has one;
nothing is ever overwritten. Ids are shown in their short form (the last 8
characters); \`vouch show\` takes it, and --json gives full ids.

  --limit N  at most N receipts (default 20)
  --json     [{"id", "check_id", "verdict", "reason", "finished_at", "duration_ms", "exit_code", "actor",
              "executable", "agent_run"?, "gate"?, "duplicate_of"?, "dedupe_count"?, "intact"}]
             agent_run: recorded inside an agent run ({agent, marker}); gate: run by the
             agent gate to answer a stop ({session, client, event}); duplicate_of: a rerun
             inside dedupe_window_seconds that found what the run before it found (the
             first receipt's id), dedupe_count: which rerun of it this is`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('log', args, { json: { type: 'boolean' }, limit: { type: 'string' } });
  const limit = integerFlag('log', 'limit', values.limit, 1) ?? 20;
  const workspace = cli.session.workspace();
  const spec = await cli.session.spec(workspace);
  if (positionals.length > 1) selectChecks(spec, positionals);
  const checkId = positionals[0];
  const ledger = await cli.session.read(workspace);
  const receipts = ledger ? await ledger.listReceipts({ limit, ...(checkId !== undefined && { checkId }) }) : [];
  if (values.json) {
    json(
      cli,
      receipts.map((r) => ({
        id: r.body.id,
        check_id: r.body.check_id,
        verdict: r.body.verdict,
        reason: r.body.reason,
        finished_at: r.body.finished_at,
        duration_ms: r.body.duration_ms,
        exit_code: r.body.exit_code,
        actor: r.body.actor,
        executable: r.body.executable,
        ...(r.body.agent_run && { agent_run: r.body.agent_run }),
        ...(r.body.gate && { gate: r.body.gate }),
        ...(r.body.duplicate_of !== undefined && { duplicate_of: r.body.duplicate_of, dedupe_count: r.body.dedupe_count ?? 1 }),
        intact: r.intact,
      })),
    );
    return EXIT.ok;
  }
  const p = paint(cli.color);
  if (receipts.length === 0) {
    out(cli, checkId ? `no receipts for "${checkId}" yet` : 'no receipts yet: run `vouch verify`');
    return EXIT.ok;
  }
  out(
    cli,
    table(
      receipts.map((r) =>
        r.intact
          ? [
              p.dim(shortId(r.body.id)),
              r.body.check_id,
              statusWord(r.body.verdict, p),
              r.body.duplicate_of === undefined
                ? r.body.reason
                : `${r.body.reason} ${p.dim(`(rerun ${r.body.dedupe_count ?? 1} of ${shortId(r.body.duplicate_of)})`)}`,
              duration(r.body.duration_ms),
              p.dim(`${ago(r.body.finished_at)} · ${r.body.actor}${r.body.gate ? ' (gate)' : r.body.agent_run ? ` (inside ${r.body.agent_run.agent})` : ''}`),
            ]
          : [p.dim(r.body.id), '?', p.red('DAMAGED'), 'stored bytes do not match the hash', '', ''],
      ),
    ),
  );
  return EXIT.ok;
}
