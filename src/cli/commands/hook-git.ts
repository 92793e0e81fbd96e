import { fail } from '../../core/problem.js';
import { checkStatuses } from '../../engine/status.js';
import { paint } from '../../render/color.js';
import { allPass } from '../../engine/outcome.js';
import { renderStatusTable, renderSummary } from '../../render/status.js';
import { EXIT } from '../exit.js';
import { err, type Cli } from '../io.js';

/**
 * git's pre-push hook: the push goes ahead only while every blocking check is
 * a fresh PASS for the files as they are. Anything else (FAIL, STALE,
 * UNKNOWN, no spec, a spec not allowed) refuses it, with the reason on
 * stderr. `git push --no-verify` skips it, as it skips every git hook.
 */
export async function prePush(cli: Cli, event: string | undefined): Promise<number> {
  if (event !== 'pre-push') {
    return fail({ code: 'usage', message: `unknown git hook "${event ?? ''}"`, where: 'vouch hook git', expected: 'pre-push', hint: 'run `vouch hook --help`' });
  }
  const session = cli.session;
  const workspace = session.workspace();
  const spec = await session.spec(workspace);
  const blocking = spec.checks.filter((check) => check.block);
  const result = await checkStatuses(session.engine(workspace, spec, 'hook'), blocking, { openLedger: () => session.read(workspace) });
  if (result.kind === 'trust_error') return fail(result.problem);
  const p = paint(cli.color && cli.io.stderrIsTTY);
  if (blocking.length > 0 && allPass(result.statuses)) {
    err(cli, `vouch: push allowed: ${renderSummary(result.statuses, p)}`);
    return EXIT.ok;
  }
  err(cli, `${p.red('vouch: push refused:')} ${blocking.length === 0 ? 'vouch.yaml declares no blocking check, so nothing proves this push' : 'not every blocking check is a fresh PASS'}`);
  if (blocking.length > 0) {
    err(cli, renderStatusTable(result.statuses, p));
    err(cli, renderSummary(result.statuses, p));
  }
  err(cli, `${p.cyan('hint:')} run \`vouch verify\`, then push again (\`git push --no-verify\` skips this hook, and every other)`);
  return EXIT.notOk;
}
