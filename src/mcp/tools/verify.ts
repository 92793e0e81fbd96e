import * as z from 'zod';
import { fail } from '../../core/problem.js';
import { answerVerify } from '../../engine/verify-answer.js';
import { duration } from '../../render/time.js';
import { RunningLabel } from '../../render/running-label.js';
import { answer, defineTool } from '../tool.js';
import { namedChecks, specTrust, type WorkspaceCall } from '../workspace-call.js';
import { checkIds, trust, verifyResult } from '../schemas.js';
import { NOT_ALLOWED, statusLine } from '../text.js';

/** Runs checks through the engine, exactly as `vouch verify` does, and records a receipt per run. */
export const verifyTool = defineTool({
  name: 'vouch_verify',
  title: 'Verify checks',
  description:
    'Runs the named checks exactly as the operator declared them in vouch.yaml (command, directory, environment and scope come only from the spec) ' +
    'and records one receipt per run: PASS, FAIL or UNKNOWN. Sends progress notifications while a check runs. ' +
    'Nothing runs unless a person allowed this exact vouch.yaml. Independent checks run side by side (as `vouch verify` runs them); one verification at a time per workspace; vouch_status answers meanwhile. ' +
    'check_ids: the ids to run (see vouch_checks).',
  input: z.object({ check_ids: checkIds }).strict(),
  output: z.object({
    ok: z.boolean().describe('every selected check ran and every selected blocking one PASSed in this run'),
    ran: z.boolean().describe('false when nothing was run (spec not allowed, or cancelled)'),
    workspace: z.string(),
    spec: z.object({ sha256: z.string(), trust }),
    checks: z.array(verifyResult),
  }),
  readOnly: false,
  async run(args, call) {
    // Unknown ids fail at once, without queueing behind a running verification.
    namedChecks(await call.spec(), args.check_ids);
    if (call.verifications.pending > 0) call.progress.notify('waiting for another verification in this workspace to finish');
    return call.verifications.run(() => verifyNow(args.check_ids, call));
  },
});

async function verifyNow(ids: readonly string[], call: WorkspaceCall) {
  // Read again: the spec may have been edited while this call waited.
  const spec = await call.spec();
  const checks = namedChecks(spec, ids);
  // Cancelled while it waited: nobody is listening for the answer, so run nothing.
  if (call.signal.aborted) {
    const trusted = specTrust(call, spec);
    return answer(
      { workspace: call.workspace.root, ok: false, ran: false, spec: { sha256: spec.sha256, trust: trusted }, checks: [] },
      'Cancelled before it started: nothing was run.',
    );
  }
  const running = new RunningLabel();
  const result = await answerVerify(call.engine(spec), checks, {
    openLedger: () => call.session.write(call.workspace),
    signal: call.signal,
    onEvent: (event) => {
      const label = running.see(event);
      if (event.kind === 'check_started') {
        call.progress.start(label ?? event.check.id, running.since());
        return;
      }
      call.progress.notify(`${event.check.id}: ${event.receipt.body.verdict} (${event.receipt.body.reason}) in ${duration(event.receipt.body.duration_ms)}`);
      if (label === null) call.progress.stop();
      else call.progress.relabel(label, running.since());
    },
  });
  if (result.kind === 'trust_error') return fail(result.problem);
  const base = { workspace: call.workspace.root, spec: { sha256: spec.sha256, trust: result.trust } };
  // The engine's answer as it is (verify-answer.ts): the same rows and ok that `vouch verify --json` prints.
  const rows = result.checks.map(({ withheld_env, ...entry }) => ({ ...entry, ...(withheld_env && { withheld_env: [...withheld_env] }) }));
  if (result.trust !== 'allowed') {
    const text = ['Nothing was run.', NOT_ALLOWED, ...rows.map(statusLine)].join('\n');
    return answer({ ...base, ok: false, ran: false, checks: rows }, text);
  }
  const ran = rows.length - result.notStarted.length;
  const text = [
    result.notStarted.length === 0
      ? `${result.ok ? 'PASS' : 'NOT PASS'}: ran ${rows.length} check${rows.length === 1 ? '' : 's'}, one receipt each`
      : `stopped after ${ran} of ${rows.length} checks (cancelled); not started, nothing recorded: ${result.notStarted.join(', ')}`,
    ...rows.map(
      (r) =>
        `${statusLine(r)}${r.receipt ? ` [receipt ${r.receipt}${r.exit_code === null ? '' : `, exit ${r.exit_code}`}, ${duration(r.duration_ms ?? 0)}]` : ''}`,
    ),
    ...(result.ok ? [] : ['vouch_receipt shows the redacted end of the output of a receipt.']),
  ].join('\n');
  return answer({ ...base, ok: result.ok, ran: ran > 0, checks: rows }, text);
}
