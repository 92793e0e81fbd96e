import * as z from 'zod/mini';
import type { Evidence } from '../../fleet/claim.js';
import type { PromptSource, WriterActor } from '../../fleet/model.js';
import { at, client, dispatchState, dispatchVerdict, doc, sha256, status, tier, transitionState } from './words.js';

/*
 * A dispatch as the report gives it: the object `vouch fleet --json` and
 * `vouch dispatch show --json` give (fleet/json.ts), plus every grade.
 */

const nullable = z.nullable;

const evidence = z.enum(['executed', 'observed', 'believed'] as const satisfies readonly Evidence[]);
const promptSource = z.enum(['flag', 'file', 'stdin', 'not_in_payload'] as const satisfies readonly PromptSource[]);
const writerActor = z.enum(['cli', 'hook', 'mcp'] as const satisfies readonly WriterActor[]);

const gradedCheck = z.strictObject({
  id: z.string(),
  status,
  reason: doc(z.string(), 'the status reason code, as vouch status --json gives it'),
  receipt: nullable(z.string()),
});

const writer = doc(
  z.strictObject({
    pid: z.int(),
    ppid: doc(z.int(), 'its parent: for a hook, the agent client that ran it'),
    actor: writerActor,
    client: nullable(client),
    host: z.string(),
  }),
  'the process that wrote the transition: a label for the record, not an authentication',
);

export const driftSchema = doc(
  nullable(
    z.strictObject({
      pinned: doc(nullable(sha256), 'the vouch.yaml the dispatch pinned when it was ordered; null: there was no valid one'),
      now: doc(nullable(sha256), 'the vouch.yaml in force now; null: none is valid'),
    }),
  ),
  "DRIFT: the dispatch's pin is not the vouch.yaml in force. An open dispatch that drifted cannot be graded (pin drift); a closed one was graded under its pin. null: no drift (or no readable order to hold a pin: a DAMAGED record)",
);

export const dispatchSchema = z.strictObject({
  id: z.string(),
  state: doc(dispatchState, 'its last transition; damaged when the record cannot be believed'),
  tier: nullable(tier),
  tier_source: doc(nullable(z.enum(['declared', 'inferred'])), 'declared with --tier, or inferred from its chain'),
  verdict: doc(dispatchVerdict, 'the grade of its current claim; ungraded where nothing graded it (never a pass)'),
  created_at: nullable(at),
  updated_at: nullable(at),
  age_seconds: doc(nullable(z.int()), 'seconds from its order to generated_at'),
  damage: doc(nullable(z.string()), 'why the record cannot be believed; null when intact'),
  tier_basis: doc(nullable(z.string()), 'why this tier, in words'),
  prompt: doc(nullable(z.string()), 'the prompt as recorded; null when it was never seen (a captured subagent)'),
  prompt_source: nullable(promptSource),
  prompt_sha256: nullable(sha256),
  parent: doc(nullable(z.string()), 'the dispatch that ordered this one'),
  card: doc(nullable(z.string()), 'the task card it works on'),
  session: doc(nullable(z.string()), 'the agent session that ordered it'),
  agent: nullable(z.strictObject({ client, id: z.string(), type: nullable(z.string()) })),
  spec_sha256: doc(nullable(sha256), 'its pin: the vouch.yaml in force when it was ordered'),
  drift: driftSchema,
  manifest: doc(
    nullable(
      z.strictObject({
        checks: z.array(z.strictObject({ id: z.string(), definition_digest: sha256, block: z.boolean() })),
        git: nullable(z.strictObject({ head: nullable(z.string()), dirty: z.boolean() })),
      }),
    ),
    'what will grade it, frozen at its order: the checks of its tier, and the git state',
  ),
  claim: doc(
    nullable(
      z.strictObject({
        at,
        via: z.enum(['cli', 'mcp', 'hook']),
        summary: z.string(),
        deliverables: z.array(z.strictObject({ what: z.string(), evidence, how: nullable(z.string()) })),
        claim_sha256: sha256,
        transcript_prompt: nullable(z.strictObject({ text: z.string(), sha256, truncated: z.boolean() })),
      }),
    ),
    "the latest claim: the agent's own words, recorded and never counted as evidence",
  ),
  grade: doc(
    nullable(
      z.strictObject({
        at,
        outcome: z.enum(['verified', 'contradicted']),
        tier,
        spec_sha256: sha256,
        basis: doc(
          z.enum(['own_writes', 'whole_tier', 'card_proof']),
          'own_writes: the checks covering what its agent wrote; whole_tier: every blocking check of its tier; card_proof: the frozen proof of the card its agent claimed, run by the gate',
        ),
        card: doc(nullable(z.string()), 'the card whose proof graded it (basis card_proof); null otherwise'),
        checks: z.array(gradedCheck),
      }),
    ),
    'the independent grade of the latest claim; null when none',
  ),
  transitions: z.array(
    z.strictObject({ seq: z.int(), at, from: nullable(transitionState), to: transitionState, why: z.string(), writer, signed: z.boolean() }),
  ),
  damaged_events: doc(z.array(z.strictObject({ seq: z.int(), id: z.string(), why: z.string() })), 'events that cannot be believed, in their place: never read'),
});

/** A dispatch in the report: the fleet's JSON of it, and every grade it was given, oldest first. */
export const reportDispatchSchema = z.extend(dispatchSchema, {
  grades: doc(
    z.array(z.strictObject({ at, outcome: z.enum(['verified', 'contradicted']) })),
    'every grade recorded, oldest first (a claim reported again is graded again)',
  ),
});
