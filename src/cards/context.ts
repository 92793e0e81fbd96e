import { readFileSync } from 'node:fs';
import { sha256, type Sha256 } from '../core/digest.js';
import { fail, type Problem } from '../core/problem.js';
import type { VerifyEvent } from '../engine/context.js';
import type { BaseContext } from '../core/context.js';
import type { Signer } from '../ledger/ledger.js';
import type { LedgerSource } from '../ledger/source.js';
import type { GateStamp } from '../receipt/receipt.js';
import type { SpecSource } from '../spec/source.js';
import type { Spec } from '../spec/model.js';
import { notAllowedWords, trustState, type TrustState } from '../trust/trust.js';
import type { Workspace } from '../workspace/find.js';
import type { CardActor, ProofPolicy } from './model.js';

/** Everything the card engine needs from the front end that calls it (the CLI, the MCP server). */
export interface CardContext extends BaseContext {
  readonly workspace: Workspace;
  /** Who acts, and from where. */
  readonly by: CardActor;
  /** The session's ledgers (never closed here) and specs (read once). */
  readonly ledgers: LedgerSource;
  readonly specs: SpecSource;
  readonly onEvent?: (event: VerifyEvent) => void;
  /** Set when the gate runs the proof at a card worker's stop: its receipts carry the stop's stamp, as the gate's own runs do. */
  readonly gate?: GateStamp;
}

export { nowOf } from '../core/context.js';

/** What judging a card needs of its context. */
export type CardPlace = Pick<CardContext, 'workspace' | 'home' | 'specs'>;

/** The spec as it is now, and whether a person allowed exactly it. */
export interface CurrentSpec {
  readonly spec: Spec | null;
  readonly problem: Problem | null;
  readonly trust: TrustState['kind'];
}

export async function currentSpec(ctx: CardPlace): Promise<CurrentSpec> {
  const loaded = await ctx.specs.load(ctx.workspace);
  let bytesSha: Sha256 = sha256('');
  try {
    bytesSha = sha256(readFileSync(ctx.workspace.specPath));
  } catch {
    // Unreadable: trust is then judged on nothing, which is "changed" or "never".
  }
  const trust = trustState(ctx.home, ctx.workspace.root, loaded.ok ? loaded.value.sha256 : bytesSha);
  if (!trust.ok) return fail(trust.error);
  return { spec: loaded.ok ? loaded.value : null, problem: loaded.ok ? null : loaded.error, trust: trust.value.kind };
}

/** The allowed spec, for freezing a proof from it; anything else is refused with its reason. */
export async function allowedSpec(ctx: CardContext): Promise<Spec> {
  const current = await currentSpec(ctx);
  if (!current.spec) return fail(current.problem!);
  if (current.trust !== 'allowed') {
    return fail({
      code: 'spec_not_allowed',
      message: `${notAllowedWords(current.trust)}: a proof is frozen only from a spec a person allowed`,
      where: ctx.workspace.specPath,
      hint: 'a person reads it and runs `vouch allow`, then opens the card again',
    });
  }
  return current.spec;
}

/**
 * Whether the card's entries must be signed: frozen with the card, or set by
 * the spec as it is now when that spec is valid and allowed (an edited,
 * unallowed vouch.yaml neither adds nor removes the requirement). Signing
 * and judging a card's receipts both follow this one answer, so a receipt
 * that would be refused a signature today never closes the card.
 */
export async function signaturesRequired(ctx: CardPlace, frozen: ProofPolicy | null, known?: CurrentSpec): Promise<boolean> {
  const current = known ?? (await currentSpec(ctx));
  const now = current.spec !== null && current.trust === 'allowed' && current.spec.requireSignature;
  return now || (frozen?.require_signature ?? false);
}

/**
 * The signer of new card entries: the key of the spec as it is now when it
 * is valid and allowed, else the one frozen with the card (an edited,
 * unallowed vouch.yaml must not switch signing off). VOUCH_SIGNING_KEY
 * overrides the key name, as everywhere. A card whose earlier entries are
 * signed (`signedBefore`) gets no unsigned entry: once signed, always
 * signed, since an unsigned entry after signed ones reads as forged.
 */
export async function cardSigner(ctx: CardContext, frozen: ProofPolicy | null, signedBefore = false): Promise<Signer | undefined> {
  const current = await currentSpec(ctx);
  const allowed = current.spec !== null && current.trust === 'allowed';
  const settings = {
    signingKey: allowed ? (current.spec.signingKey ?? frozen?.signing_key ?? null) : (frozen?.signing_key ?? null),
    requireSignature: await signaturesRequired(ctx, frozen, current),
    path: allowed ? current.spec.path : ctx.workspace.specPath,
  };
  const { signingKeyFor } = await import('../crypto/select.js');
  const key = signingKeyFor(ctx.home, ctx.env, settings, ctx.workspace.root);
  if (!key.ok) return fail(key.error);
  if (!key.value) {
    if (!signedBefore) return undefined;
    return fail({
      code: 'signing_key_required',
      message:
        "this card's earlier events are signed, and no signing key is selected now: an unsigned event after signed ones would read as forged, so nothing is written",
      where: settings.path,
      expected: 'signing_key: NAME in vouch.yaml, or VOUCH_SIGNING_KEY=NAME in the environment',
      hint: 'name the key the card was signed with (`vouch keys list`), then run the command again',
    });
  }
  const { signerFor } = await import('../crypto/signature.js');
  return signerFor(key.value);
}

/** Runs nothing in a workspace nobody ever allowed (or whose trust was withdrawn with `vouch deny`). */
export async function requireTrustedWorkspace(ctx: CardContext): Promise<void> {
  const current = await currentSpec(ctx);
  if (current.trust === 'never') {
    fail({
      code: 'spec_not_allowed',
      message: "this workspace has no allowed vouch.yaml (never allowed, or `vouch deny` withdrew it): a card's proof runs nothing here",
      where: ctx.workspace.specPath,
      hint: 'a person runs `vouch allow` in this workspace',
    });
  }
}
