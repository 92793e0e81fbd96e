import type { Sha256 } from '../core/digest.js';
import { pinDrift } from './drift.js';
import type { Dispatch } from './model.js';

/**
 * A dispatch as `--json` and the MCP tool give it: the board's columns
 * first (id, state, tier, verdict), then the whole record. `verdict` is
 * never empty: `ungraded` where nothing graded the current claim, `damaged`
 * where the record cannot be believed. `specNow` is the SHA-256 of the
 * vouch.yaml in force (null when none is valid): `drift` is
 * `{pinned, now}` when the dispatch's pin differs from it, else null.
 */
export function dispatchJson(d: Dispatch, specNow: Sha256 | null, now: Date = new Date()) {
  const order = d.order;
  return {
    id: d.id,
    state: d.state,
    tier: order?.tier ?? null,
    tier_source: order?.tier_source ?? null,
    verdict: d.verdict,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
    age_seconds: d.createdAt ? Math.max(0, Math.round((now.getTime() - Date.parse(d.createdAt)) / 1000)) : null,
    damage: d.damage,
    tier_basis: order?.tier_basis ?? null,
    prompt: order?.prompt ?? null,
    prompt_source: order?.prompt_source ?? null,
    prompt_sha256: order?.prompt_sha256 ?? null,
    parent: order?.parent ?? null,
    card: order?.card ?? null,
    session: order?.session ?? null,
    agent: order?.agent ?? null,
    spec_sha256: order?.spec_sha256 ?? null,
    drift: pinDrift(d, specNow),
    manifest: order?.manifest ?? null,
    claim: d.claim
      ? {
          at: d.claim.at,
          via: d.claim.via,
          summary: d.claim.claim.summary,
          deliverables: d.claim.claim.deliverables,
          claim_sha256: d.claim.claim_sha256,
          transcript_prompt: d.claim.transcript_prompt,
        }
      : null,
    grade: d.grade ? { at: d.grade.at, outcome: d.grade.event, ...d.grade.grade, card: d.grade.grade.card ?? null } : null,
    transitions: d.transitions.map((t) => ({ seq: t.seq, at: t.at, from: t.from, to: t.to, why: t.why, writer: t.writer, signed: t.signed })),
    /** Events that cannot be believed, by position: not read. */
    damaged_events: d.unreadable,
  };
}
