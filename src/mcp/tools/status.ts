import * as z from 'zod';
import { fail } from '../../core/problem.js';
import { checkStatuses } from '../../engine/status.js';
import { allPass, statusEntry } from '../../engine/outcome.js';
import { answer, defineTool } from '../tool.js';
import { namedChecks, specTrust } from '../workspace-call.js';
import { checkIds, checkStatus, trust } from '../schemas.js';
import { NOT_ALLOWED, statusLine } from '../text.js';

/** Each check's standing now: its latest receipt judged against the files as they are. */
export const statusTool = defineTool({
  name: 'vouch_status',
  title: 'Check status',
  description:
    "Each check's current status, PASS, FAIL, UNKNOWN or STALE: its latest receipt judged against the files as they are now. " +
    'A PASS turns STALE as soon as a covered file or the check definition changes. Runs nothing and records nothing. ' +
    'check_ids: the ids to report (default: every check).',
  input: z.object({ check_ids: checkIds.optional() }).strict(),
  output: z.object({
    ok: z.boolean().describe('every selected blocking check is PASS'),
    workspace: z.string(),
    spec: z.object({ sha256: z.string(), trust }),
    checks: z.array(checkStatus),
  }),
  readOnly: true,
  async run(args, call) {
    const spec = await call.spec();
    const checks = namedChecks(spec, args.check_ids);
    const allowed = specTrust(call, spec);
    const result = await checkStatuses(call.engine(spec), checks, { openLedger: () => call.session.read(call.workspace) });
    if (result.kind === 'trust_error') return fail(result.problem);
    // Only the fields the output schema names: the engine's own (fresh, fingerprint) would make a client that validates reject the whole answer.
    const entries = result.statuses.map((s) =>
      statusEntry(
        s,
        checks.find((c) => c.id === s.id)!,
      ),
    );
    const ok = allPass(entries);
    const blocking = entries.filter((e) => e.blocking);
    const lines = [
      ok
        ? `${blocking.length > 0 ? `all ${blocking.length} blocking` : 'all selected'} PASS`
        : `${blocking.filter((e) => e.status === 'PASS').length} of ${blocking.length} blocking checks PASS`,
      ...entries.map(statusLine),
      ...(allowed === 'allowed' ? (ok ? [] : ['To produce fresh evidence, call vouch_verify with the ids that are not PASS.']) : [NOT_ALLOWED]),
    ];
    return answer({ ok, workspace: call.workspace.root, spec: { sha256: spec.sha256, trust: allowed }, checks: entries }, lines.join('\n'));
  },
});
