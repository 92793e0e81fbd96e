/**
 * What a chain entry can be. Every kind is hashed and linked; `vouch audit`
 * checks them all the same way.
 *
 * - receipt: one execution of a check (signed when the workspace signs).
 * - gc: a record of receipts removed by `vouch gc` (signed likewise).
 * - gate: the agent gate's answer to a stop (signed likewise).
 * - card, dispatch: events about a task card or a dispatched agent (signed
 *   likewise; see events.ts).
 * - exec: one command run through `vouch exec` (its sandbox's decision,
 *   exit code, output digests, files written; signed likewise).
 * - trail: what an agent's own hook reported about a tool call. Untrusted by
 *   definition and never evidence, so never signed: the hook that writes it
 *   runs on every tool call and does not load keys.
 */
export const CHAIN_KINDS = ['receipt', 'gc', 'gate', 'trail', 'card', 'dispatch', 'exec'] as const;
export type ChainKind = (typeof CHAIN_KINDS)[number];

/** Kinds that are unsigned by design, so an unsigned one after signed entries is not a finding. */
export const UNSIGNED_KINDS: ReadonlySet<string> = new Set<ChainKind>(['trail']);

export function isChainKind(value: unknown): value is ChainKind {
  return typeof value === 'string' && (CHAIN_KINDS as readonly string[]).includes(value);
}
