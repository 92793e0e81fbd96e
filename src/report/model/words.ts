import * as z from 'zod/mini';
import type { Client } from '../../clients/registry.js';
import { DISPATCH_STATES, type DispatchVerdict } from '../../core/dispatch-state.js';
import type { Status, Verdict } from '../../core/status.js';
import type { TrustState } from '../../trust/trust.js';
import { TIERS } from '../../spec/fields.js';

/*
 * The closed word lists the report's schema uses, each tied to the type it
 * stands for. A list that misses a word fails to compile where the model is
 * built (model/*.ts assigns the domain's values to the schema's types), so
 * the schema cannot fall behind the code.
 */

/** Documents a schema: the text is the field's description in schema/report.schema.json. */
export function doc<T extends z.ZodMiniType>(schema: T, text: string): T {
  return schema.check(z.describe(text));
}

export const status = z.enum(['PASS', 'FAIL', 'UNKNOWN', 'STALE'] as const satisfies readonly Status[]);
export const verdict = z.enum(['PASS', 'FAIL', 'UNKNOWN'] as const satisfies readonly Verdict[]);
export const tier = z.enum(TIERS);
export const client = z.enum(['claude-code', 'codex', 'hermes'] as const satisfies readonly Client[]);
/** Fails to compile when a hooked client of the registry is missing from the list above. */
const everyClient: Client extends z.infer<typeof client> ? true : never = true;
void everyClient;
export const dispatchState = z.enum([...DISPATCH_STATES, 'damaged']);
export const transitionState = z.enum(DISPATCH_STATES);
export const dispatchVerdict = z.enum(['verified', 'contradicted', 'ungraded', 'damaged'] as const satisfies readonly DispatchVerdict[]);
export const trust = z.enum(['allowed', 'changed', 'denied', 'outdated', 'never', 'unreadable'] as const satisfies readonly (
  TrustState['kind'] | 'unreadable'
)[]);

/** A SHA-256 as lowercase hex. */
export const sha256 = z.string().check(z.regex(/^[0-9a-f]{64}$/));

/** A time as recorded (ISO 8601, UTC). Read from the ledger, so not checked here. */
export const at = z.string();
