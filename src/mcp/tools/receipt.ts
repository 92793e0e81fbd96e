import * as z from 'zod';
import { fail } from '../../core/problem.js';
import { duration } from '../../render/time.js';
import { answer, defineTool } from '../tool.js';
import { reason, receiptId, verdict } from '../schemas.js';

const stream = z.object({ sha256: z.string(), bytes: z.number().int(), excerpt: z.string(), truncated: z.boolean() }).nullable();

/** The receipt as recorded; further fields of the stored body are passed through unchanged. */
const receiptBody = z.looseObject({
  id: z.string(),
  check_id: z.string(),
  verdict,
  reason,
  detail: z.string().nullable(),
  proves: z.string(),
  argv: z.array(z.string()),
  cwd: z.string(),
  ran: z.boolean(),
  started_at: z.string(),
  finished_at: z.string(),
  duration_ms: z.number().int(),
  exit_code: z.number().int().nullable(),
  timed_out: z.boolean(),
  stdout: stream,
  stderr: stream,
  file_count: z.number().int(),
  fingerprint: z.string(),
  spec_sha256: z.string(),
  actor: z.string(),
  prev_hash: z.string().nullable(),
});

/** One receipt, read back from the ledger. */
export const receiptTool = defineTool({
  name: 'vouch_receipt',
  title: 'Show a receipt',
  description:
    'One receipt as recorded: the check, the command that ran, its exit code and duration, hashes and redacted excerpts of its output, the fingerprint of the files it covered, and the verdict with its reason. ' +
    'A receipt says what happened then; vouch_status says whether it still holds for the files now. receipt_id: an id from vouch_verify or vouch_status (or a unique prefix of 6+ characters).',
  input: z.object({ receipt_id: receiptId }).strict(),
  output: z.object({
    seq: z.number().int(),
    hash: z.string(),
    intact: z.boolean().describe('false when the stored bytes no longer match their hash: the receipt must not be trusted'),
    receipt: receiptBody,
  }),
  readOnly: true,
  async run(args, call) {
    const ledger = await call.session.read(call.workspace);
    if (!ledger)
      return fail({
        code: 'receipt_not_found',
        message: `no receipt "${args.receipt_id}": nothing has been recorded in this workspace yet`,
        hint: 'call vouch_verify',
      });
    const found = await ledger.findReceipt(args.receipt_id);
    if (found.kind === 'none')
      return fail({
        code: 'receipt_not_found',
        message: `no receipt "${args.receipt_id}" in this workspace's ledger`,
        hint: 'use a receipt id returned by vouch_verify or vouch_status',
      });
    if (found.kind === 'ambiguous') {
      return fail({
        code: 'receipt_ambiguous',
        message: `"${args.receipt_id}" matches several receipts: ${found.ids.join(', ')}`,
        hint: 'give more characters of the id',
      });
    }
    const { seq, hash, intact, body } = found.receipt;
    const output = body.stderr?.excerpt.trim() ? body.stderr : body.stdout;
    const lines = intact
      ? [
          `receipt ${body.id}: ${body.check_id} ${body.verdict} (${body.reason})${body.detail ? `: ${body.detail}` : ''}`,
          `ran ${body.ran ? `${JSON.stringify(body.argv)} in ${body.cwd}, exit ${body.exit_code ?? '-'}${body.timed_out ? ', timed out' : ''}, ${duration(body.duration_ms)}, at ${body.started_at}` : 'nothing: stopped before the run'} · by ${body.actor}`,
          `covered ${body.file_count} files, fingerprint ${body.fingerprint}`,
          `proves (when PASS): ${body.proves}`,
          ...(output?.excerpt.trim()
            ? [`--- ${output === body.stderr ? 'stderr' : 'stdout'}${output.truncated ? ' (end)' : ''}, redacted ---`, output.excerpt.trimEnd()]
            : []),
          '',
          'This receipt records one run. Whether it still holds for the files as they are now is what vouch_status answers.',
        ]
      : [
          `receipt ${body.id} (seq ${seq}) is DAMAGED: its stored bytes no longer match its hash. It must not be trusted; its check reads as UNKNOWN (ledger_corrupt).`,
        ];
    return answer({ seq, hash, intact, receipt: { ...body, argv: [...body.argv] } }, lines.join('\n'));
  },
});
