import { fail } from '../../core/problem.js';
import { refuseInAgentRun } from '../person-only.js';
import { gradeDispatch, gradeWhy } from '../../fleet/grade.js';
import { dispatchJson } from '../../fleet/json.js';
import { refusalProblem } from '../../fleet/problems.js';
import { currentWriter } from '../../fleet/writer.js';
import { SessionHistory } from '../../gate/history.js';
import { paint } from '../../render/color.js';
import { renderDispatch } from '../../render/fleet.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { err, json, out, type Cli } from '../io.js';
import { findDispatch, moved, signerOf, withStore } from './common.js';
import { gateContext } from '../../session/contexts.js';

/**
 * The checker, from the command line: grades a reported dispatch at its
 * tier against the spec it pinned, running owed checks in this process
 * (never the claimant's). Refused on pin drift, on a damaged record and
 * before a report. Where its tier has no blocking check (or nothing it
 * wrote is covered), no verdict is recorded: it reads `ungraded`, exit 1.
 */
export async function dispatchGrade(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('dispatch grade', args, { json: { type: 'boolean' } });
  const [id, ...extra] = positionals;
  if (!id || extra.length > 0)
    return fail({
      code: 'usage',
      message: 'expected exactly one dispatch id',
      where: 'vouch dispatch grade',
      hint: '`vouch fleet --open` lists open dispatches',
    });
  // Grading is the checker's act: receipts an agent could make are never what grades it.
  refuseInAgentRun(cli.io.env, 'vouch dispatch grade', 'grade');
  const workspace = cli.session.workspace();
  const spec = await cli.session.spec(workspace);
  const sign = await signerOf(cli, workspace, spec);
  const ctx = gateContext(cli.session);
  const p = paint(cli.color);

  const result = await withStore(cli, workspace, spec, false, id, async (store, ledger) => {
    const dispatch = await findDispatch(store, id);
    if (dispatch.damage) return fail(refusalProblem({ kind: 'damaged', dispatch, to: 'verified' }));
    if (dispatch.lastState !== 'reported') return fail(refusalProblem({ kind: 'illegal', dispatch, to: 'verified' }));
    const session = dispatch.order?.session ?? null;
    const history = session !== null ? SessionHistory.from(await ledger.sessionEntries(session)) : SessionHistory.empty();
    const outcome = await gradeDispatch(ctx, workspace, spec, dispatch, {
      history,
      actor: 'cli',
      // An explicit grade runs what it owes, unbounded, whatever the gate's on_stop says.
      policy: { onStop: 'verify', maxBlocks: Number.MAX_SAFE_INTEGER, budgetSeconds: null },
      // A person grades (the command is refused inside an agent run): an agent's own receipts are run again.
      accept: 'outside_agent',
    });
    switch (outcome.kind) {
      case 'drift':
        return fail({
          code: 'pin_drift',
          message: `dispatch ${dispatch.id} pinned vouch.yaml ${outcome.pinned ?? '(none: there was no valid spec)'}, and it is ${outcome.now} now: it is not graded against a spec that changed while it worked`,
          hint: `close it (\`vouch dispatch close ${dispatch.id} --reason "spec changed"\`) and dispatch the work again under the current spec`,
        });
      case 'claimant':
        return fail({
          code: 'grader_is_claimant',
          message: `this process (pid ${outcome.pid}) relayed dispatch ${dispatch.id}'s claim; it may not grade it`,
          hint: 'grade from another process: `vouch dispatch grade ID`',
        });
      case 'refused':
      case 'ungraded':
        return {
          dispatch,
          graded: false as const,
          why: outcome.kind === 'ungraded' ? outcome.why : `${outcome.verdict.reason}: ${outcome.verdict.detail ?? ''}`,
          findings: outcome.verdict.findings,
        };
      case 'graded': {
        const next = moved(await store.move(dispatch.id, { event: outcome.to, grade: outcome.grade, why: gradeWhy(outcome) }, currentWriter('cli'), sign));
        return { dispatch: next, graded: true as const, why: gradeWhy(outcome), findings: outcome.verdict.findings };
      }
    }
  });

  const { dispatch } = result;
  if (!result.graded)
    err(
      cli,
      `${paint(cli.color && cli.io.stderrIsTTY).yellow('vouch:')} no verdict recorded for dispatch ${dispatch.id}: ${result.why}. It reads ungraded; an absent grade is not a pass.`,
    );
  if (values.json) {
    json(cli, { ok: result.graded && dispatch.verdict === 'verified', graded: result.graded, why: result.why, ...dispatchJson(dispatch, spec.sha256) });
  } else {
    out(cli, renderDispatch(dispatch, spec.sha256, p));
    for (const f of result.findings.filter((f) => f.status !== 'PASS' && f.excerpt))
      out(
        cli,
        `\n${f.id}: ${f.status} (${f.reason})\n${f
          .excerpt!.split('\n')
          .map((l) => `  │ ${l}`)
          .join('\n')}`,
      );
    if (dispatch.verdict === 'verified') out(cli, `\nnext: close it (\`vouch dispatch close ${dispatch.id}\`)`);
  }
  return result.graded && dispatch.verdict === 'verified' ? EXIT.ok : EXIT.notOk;
}
