import * as z from 'zod';
import { REASONS, type Status } from '../core/status.js';
import { CHECK_FIELDS, CHECK_ID_PATTERN } from '../spec/fields.js';

/*
 * The pieces tool schemas are built from. Inputs are ids and nothing else:
 * a check id cannot hold a slash, a space or a glob character, and a receipt
 * id is lowercase Crockford base32, so neither can carry a path, a command
 * or a pattern even when a client ignores the schema (the server checks it).
 */

export const checkId = z.string().regex(CHECK_ID_PATTERN).describe(`${CHECK_FIELDS.id}; see vouch_checks`);

export const checkIds = z.array(checkId).min(1).max(256);

export const receiptId = z
  .string()
  .regex(/^[0-9a-hjkmnp-tv-z]{6,26}$/)
  .describe(
    'a receipt id (26 lowercase characters), its short form (the last 8), or a unique leading or trailing part of at least 6, as returned by vouch_verify or vouch_status',
  );

const STATUSES = ['PASS', 'FAIL', 'UNKNOWN', 'STALE'] as const satisfies readonly Status[];
export const status = z.enum(STATUSES);
export const verdict = z.enum(['PASS', 'FAIL', 'UNKNOWN']);
export const reason = z.enum(REASONS);

/** Whether this exact vouch.yaml was allowed by a person in this workspace. */
export const trust = z
  .enum(['allowed', 'changed', 'denied', 'outdated', 'never'])
  .describe(
    'allowed: this exact vouch.yaml was allowed; changed: edited since; denied: withdrawn by vouch deny; outdated: allowed by an earlier vouch, to be allowed again; never: never allowed',
  );

export const checkStatus = z.object({
  id: z.string(),
  status,
  reason,
  blocking: z.boolean(),
  receipt: z.string().nullable(),
  detail: z.string().nullable(),
  recorded_at: z.string().nullable(),
  changed: z.object({ added: z.array(z.string()), removed: z.array(z.string()), modified: z.array(z.string()) }).optional(),
  verifier: z.string().optional().describe('for a receipt accepted from a verifier service (vouch verify --remote): the key id of the verifier that signed it'),
  agent_run: z
    .object({ agent: z.string(), marker: z.string() })
    .optional()
    .describe(
      'the latest receipt was recorded inside an agent run: it never lets that agent stop, close a card or pass a grade; the gate runs the check itself',
    ),
  proves: z.string().describe("the operator's sentence for what a PASS of this check proves"),
});

export const verifyResult = z.object({
  id: z.string(),
  status: verdict,
  reason,
  blocking: z.boolean(),
  receipt: z.string().nullable(),
  detail: z.string().nullable(),
  exit_code: z.number().int().nullable(),
  /** null: the check did not run (not started, not allowed). */
  duration_ms: z.number().int().nullable(),
  proves: z.string(),
  withheld_env: z
    .array(z.string())
    .optional()
    .describe(
      "for a check that ran and did not pass in a way that reads like its environment's fault: the names (never the values) of the environment variables it was not given",
    ),
});
