import { sha256 } from '../core/digest.js';
import { gitState } from '../engine/git.js';
import type { Tier } from '../spec/fields.js';
import type { Spec } from '../spec/model.js';
import type { Workspace } from '../workspace/find.js';
import type { AgentRef, Dispatch, DispatchedBody, DispatchManifest, PromptSource } from './model.js';
import type { TransitionDraft } from './store.js';

/** Where a dispatch sits in its chain, for tier inference. */
export interface Chain {
  /** The dispatch that ordered it, with its own ancestors, nearest first. */
  readonly ancestors: readonly Dispatch[];
  /** The agent session that ordered it (directly, or through its top ancestor). */
  readonly session: string | null;
}

export interface TierChoice {
  readonly tier: Tier;
  readonly source: 'declared' | 'inferred';
  readonly basis: string;
}

const BY_LEVEL: readonly Tier[] = ['bridge', 'lane'];
/** The tier of the work a dispatch at each tier orders. */
const BELOW: Readonly<Record<Tier, Tier>> = { bridge: 'lane', coordinator: 'lane', lane: 'leaf', leaf: 'leaf' };

/**
 * The tier a dispatch is graded at: the one declared, else inferred from the
 * shape of its chain. The top of a chain is the bridge; a session's own
 * agent is a bridge too, so what it orders is a lane; a dispatch with a
 * parent is one level below it; two levels or more down is a leaf. Under a
 * parent whose tier was declared, one level below that tier.
 * `coordinator` is never inferred: it is a role someone assigns, not a
 * shape a chain shows. The record says which it was, and why.
 */
export function chooseTier(declared: Tier | null, chain: Chain): TierChoice {
  if (declared !== null) return { tier: declared, source: 'declared', basis: `declared: ${declared}` };
  // A parent whose tier was declared placed itself: its work is one level below that, whatever the depth.
  const parent = chain.ancestors[0]?.order;
  if (parent?.tier_source === 'declared') {
    const tier = BELOW[parent.tier];
    return { tier, source: 'inferred', basis: `inferred: one level below its parent ${chain.ancestors[0]!.id}, declared ${parent.tier}` };
  }
  const top = chain.ancestors[chain.ancestors.length - 1];
  const sessionLevel = (top ? top.order?.session : chain.session) ? 1 : 0;
  const level = chain.ancestors.length + sessionLevel;
  const tier = BY_LEVEL[level] ?? 'leaf';
  const path = [
    ...(sessionLevel ? [`session ${(top?.order?.session ?? chain.session)!} (the bridge)`] : []),
    ...[...chain.ancestors].reverse().map((d) => d.id),
    'this dispatch',
  ];
  const why =
    level === 0
      ? 'no parent and no ordering session: it tops its chain'
      : level === 1
        ? 'one level below the top of its chain'
        : `${level} levels below the top of its chain`;
  return { tier, source: 'inferred', basis: `inferred: ${why}${path.length > 1 ? ` (${path.join(' → ')})` : ''}` };
}

/** What grading this dispatch will mean: the checks of its tier, and where the tree stood. */
export async function manifestAt(workspace: Workspace, spec: Spec | null, tier: Tier): Promise<DispatchManifest> {
  const checks = (spec?.checks ?? [])
    .filter((check) => check.tier === null || check.tier === tier)
    .map((check) => ({ id: check.id, definition_digest: check.definitionDigest, block: check.block }));
  return { checks, git: await gitState(workspace.root) };
}

export interface OrderInput {
  readonly prompt: { readonly text: string; readonly source: Exclude<PromptSource, 'not_in_payload'> } | null;
  readonly tier: TierChoice;
  readonly parent: string | null;
  readonly card: string | null;
  readonly session: string | null;
  readonly agent: AgentRef | null;
  readonly spec: Spec | null;
  readonly manifest: DispatchManifest;
  readonly why: string;
}

/** The first transition of a dispatch: the order, with the spec it pins. */
export function orderDraft(input: OrderInput): Extract<TransitionDraft, { event: 'dispatched' }> {
  const body: Omit<DispatchedBody, 'v' | 'kind' | 'id' | 'at' | 'subject' | 'from' | 'writer'> = {
    event: 'dispatched',
    why: input.why,
    prompt: input.prompt?.text ?? null,
    prompt_sha256: input.prompt ? sha256(input.prompt.text) : null,
    prompt_source: input.prompt?.source ?? 'not_in_payload',
    tier: input.tier.tier,
    tier_source: input.tier.source,
    tier_basis: input.tier.basis,
    parent: input.parent,
    card: input.card,
    session: input.session,
    agent: input.agent,
    spec_sha256: input.spec?.sha256 ?? null,
    require_signature: input.spec?.requireSignature ?? false,
    manifest: input.manifest,
  };
  return body;
}

/** How many blocking checks will grade a dispatch at its tier. */
export function blockingAtTier(manifest: DispatchManifest): number {
  return manifest.checks.filter((check) => check.block).length;
}
