import * as z from 'zod';
import { fail } from '../../core/problem.js';
import { verifyChecks } from '../../engine/verify.js';
import { allPass } from '../../engine/outcome.js';
import { duration } from '../../render/time.js';
import type { CheckDef } from '../../spec/model.js';
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
    'Nothing runs unless a person allowed this exact vouch.yaml. Verifications run one at a time; vouch_status answers meanwhile. ' +
    'check_ids: the ids to run (see vouch_checks).',
  input: z.object({ check_ids: checkIds }).strict(),
  output: z.object({
    ok: z.boolean().describe('every selected blocking check PASSed in this run'),
    ran: z.boolean().describe('false when nothing was run (spec not allowed, or cancelled)'),
    workspace: z.string(),
    spec: z.object({ sha256: z.string(), trust }),
    checks: z.array(verifyResult),
  }),
  readOnly: false,
  async run(args, call) {
    // Unknown ids fail at once, without queueing behind a running verification.
    namedChecks((await call.spec()), args.check_ids);
    if (call.verifications.pending > 0) call.progress.notify('waiting for another verification in this workspace to finish');
    return call.verifications.run(() => verifyNow(args.check_ids, call));
  },
});

async function verifyNow(ids: readonly string[], call: WorkspaceCall) {
  // Read again: the spec may have been edited while this call waited.
  const spec = (await call.spec());
  const checks = namedChecks(spec, ids);
  // Cancelled while it waited: nobody is listening for the answer, so run nothing.
  if (call.signal.aborted) {
    const trusted = specTrust(call, spec);
    return answer({ workspace: call.workspace.root, ok: false, ran: false, spec: { sha256: spec.sha256, trust: trusted }, checks: [] }, 'Cancelled before it started: nothing was run.');
  }
  {
    const result = await verifyChecks(call.engine(spec), checks, {
      openLedger: () => call.session.write(call.workspace),
      signal: call.signal,
      onEvent: (event) => {
        if (event.kind === 'check_started') {
          call.progress.start(`${event.check.id}${event.total > 1 ? ` (${event.index + 1} of ${event.total})` : ''}`);
        } else {
          call.progress.stop();
          call.progress.notify(`${event.check.id}: ${event.receipt.body.verdict} (${event.receipt.body.reason}) in ${duration(event.receipt.body.duration_ms)}`);
        }
      },
    });
    if (result.kind === 'trust_error') return fail(result.problem);
    const base = { workspace: call.workspace.root };
    if (result.kind === 'not_allowed') {
      const rows = checks.map((c) => row(c, { status: 'UNKNOWN', reason: 'spec_not_allowed', receipt: null, detail: null, exit_code: null, duration_ms: 0 }));
      const text = ['Nothing was run.', NOT_ALLOWED, ...rows.map(statusLine)].join('\n');
      return answer({ ...base, ok: false, ran: false, spec: { sha256: spec.sha256, trust: result.trust }, checks: rows }, text);
    }
    const rows = result.receipts.map((receipt) => {
      const check = checks.find((c) => c.id === receipt.body.check_id)!;
      const b = receipt.body;
      return row(check, { status: b.verdict, reason: b.reason, receipt: b.id, detail: b.detail, exit_code: b.exit_code, duration_ms: b.duration_ms });
    });
    const complete = rows.length === checks.length;
    const ok = complete && allPass(rows);
    const text = [
      complete ? `${ok ? 'PASS' : 'NOT PASS'}: ran ${rows.length} check${rows.length === 1 ? '' : 's'}, one receipt each` : `stopped after ${rows.length} of ${checks.length} checks (cancelled)`,
      ...rows.map((r) => `${statusLine(r)}${r.receipt ? ` [receipt ${r.receipt}${r.exit_code === null ? '' : `, exit ${r.exit_code}`}, ${duration(r.duration_ms)}]` : ''}`),
      ...(ok ? [] : ['vouch_receipt shows the redacted end of the output of a receipt.']),
    ].join('\n');
    return answer({ ...base, ok, ran: rows.length > 0, spec: { sha256: spec.sha256, trust: 'allowed' as const }, checks: rows }, text);
  }
}

type Outcome = Pick<z.output<typeof verifyResult>, 'status' | 'reason' | 'receipt' | 'detail' | 'exit_code' | 'duration_ms'>;

function row(check: CheckDef, outcome: Outcome): z.output<typeof verifyResult> {
  return { id: check.id, blocking: check.block, proves: check.proves, ...outcome };
}
