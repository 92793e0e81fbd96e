import * as z from 'zod/mini';
import type { CardState, Grade } from '../../cards/fold.js';
import type { DecisionKind, Role, VerifyMode } from '../../cards/model.js';
import { reportDispatchSchema } from './dispatch-schema.js';
import { REPORT_VERSION } from './version.js';
import { at, doc, sha256, status, tier, trust, verdict } from './words.js';

/*
 * The report as data: everything `vouch report` shows, in one model that
 * every format renders (HTML, Markdown) or is (JSON, the MCP tool
 * vouch_report). This schema is the one definition: the model's types are
 * read from it (model/types.ts), schema/report.schema.json is generated
 * from it, and the MCP tool declares it as its output. Field names are
 * stable; a field is removed or changes meaning only with a new `version`.
 */

const nullable = z.nullable;
const count = z.int().check(z.minimum(0));

const specState = doc(
  z.strictObject({
    valid: doc(z.boolean(), 'vouch.yaml was read and is valid'),
    sha256: doc(nullable(sha256), 'the vouch.yaml in force now; null when it is not valid'),
    trust: doc(
      nullable(trust),
      'whether a person allowed this exact vouch.yaml here; unreadable: the trust store could not be read; null when it is not valid',
    ),
    problem: doc(nullable(z.string()), 'why it is not valid; null when it is'),
  }),
  "the spec's trust state: checks are judged only under a vouch.yaml a person allowed",
);

const receipt = z.discriminatedUnion('intact', [
  z.strictObject({
    intact: z.literal(true),
    seq: z.int(),
    id: z.string(),
    finished_at: at,
    verdict,
    reason: doc(z.string(), 'the status reason code, as vouch status --json gives it'),
    detail: nullable(z.string()),
    duration_ms: z.int(),
    exit_code: nullable(z.int()),
    actor: doc(z.string(), 'what recorded it: cli, hook, mcp, service...'),
    verifier: doc(nullable(z.string()), 'for a receipt accepted from a verifier service: the key id that signed it'),
  }),
  doc(
    z.strictObject({ intact: z.literal(false), seq: z.int(), id: doc(z.string(), 'the id as stored: not to be believed') }),
    'a receipt whose stored bytes no longer match its hash: DAMAGED, not read',
  ),
]);

const check = z.strictObject({
  id: z.string(),
  declared: doc(z.boolean(), 'the check is in vouch.yaml now (false: only its receipts remain)'),
  proves: doc(nullable(z.string()), "the operator's sentence for what a PASS proves; null when not declared"),
  blocking: doc(nullable(z.boolean()), 'true: it gates; false: advisory; null when not declared'),
  tier: doc(nullable(tier), 'the tier it gates at; null: every tier (or not declared)'),
  now: doc(
    nullable(
      z.strictObject({
        status,
        reason: z.string(),
        detail: nullable(z.string()),
        receipt: nullable(z.string()),
        recorded_at: nullable(at),
        verifier: nullable(z.string()),
        agent_run: doc(z.boolean(), 'the latest receipt was recorded inside an agent run: it never vouches for that agent'),
      }),
    ),
    'its status against the files as they are now, as vouch status sees it; null: not judged (no valid vouch.yaml, or not declared)',
  ),
  runs: doc(count, 'receipts of this check in the window read'),
  history: doc(z.array(receipt), 'its receipts in the window, newest first'),
});

const stop = z.strictObject({
  at,
  event: doc(z.string(), 'the hook event: Stop or SubagentStop'),
  agent_id: doc(nullable(z.string()), 'the subagent that stopped; null for the session itself'),
  claim: doc(
    nullable(z.strictObject({ text: z.string(), truncated: z.boolean() })),
    'what the agent said at this stop: its own words, redacted and cut short, never evidence; null when not recorded',
  ),
  decision: doc(z.enum(['allow', 'block', 'escaped']), "the gate's independent answer; escaped: let through unverified after too many blocks"),
  reason: doc(z.string(), 'the gate reason code'),
  checks: z.array(z.strictObject({ id: z.string(), status, reason: z.string(), receipt: nullable(z.string()) })),
});

const session = z.strictObject({
  id: z.string(),
  client: nullable(z.string()),
  end: doc(z.enum(['allowed', 'blocked', 'escaped', 'no_stop']), 'how its last stop was answered; escaped if any stop was'),
  blocks: count,
  tool_calls: doc(count, 'tool calls on its trail (context, never evidence)'),
  first_at: nullable(at),
  last_at: nullable(at),
  damaged_entries: doc(count, 'entries whose stored bytes no longer match their hash: counted, never read'),
  stops: z.array(stop),
});

const cardActor = z.strictObject({
  role: z.enum(['worker', 'verifier', 'coordinator', 'owner'] as const satisfies readonly Role[]),
  role_from: z.enum(['VOUCH_ROLE', 'default', 'gate']),
  agent: nullable(z.string()),
  via: z.enum(['cli', 'mcp', 'hook']),
});

const cardState = z.enum(['open', 'claimed', 'done', 'owner_closed', 'split', 'abandoned', 'damaged'] as const satisfies readonly (CardState | 'damaged')[]);

const card = z.strictObject({
  id: z.string(),
  state: cardState,
  passed: doc(z.boolean(), 'closed on a fresh PASS (state done); owner_close is never a pass'),
  grade: doc(
    z.enum(['PASS', 'FAIL', 'UNKNOWN', 'ungraded'] as const satisfies readonly Grade[]),
    'the newest verdict of the proof in force; ungraded when none',
  ),
  goal: nullable(z.string()),
  artifact: nullable(z.string()),
  verify: nullable(z.enum(['proof', 'independent'] as const satisfies readonly VerifyMode[])),
  proof: doc(nullable(z.string()), 'the check ids of its frozen proof, or "script PATH"'),
  attempts: count,
  budget_attempts: nullable(count),
  over_budget: z.boolean(),
  opened_at: nullable(at),
  opened_by: nullable(cardActor),
  updated_at: nullable(at),
  follow_up_of: nullable(z.string()),
  depth: count,
  follow_ups: z.array(z.string()),
  audit: doc(nullable(verdict), 'the newest audit after done; null when never audited'),
  damage: nullable(z.string()),
  decisions: doc(
    z.array(
      z.strictObject({
        at,
        decision: z.enum(['rescope', 'revise_script', 'split', 'abandon', 'reprove', 'retry', 'ask'] as const satisfies readonly DecisionKind[]),
        why: z.string(),
        by: cardActor,
        into: doc(nullable(z.array(z.string())), 'split: the cards it was split into'),
      }),
    ),
    'its recorded decisions, oldest first',
  ),
  owner_close: doc(nullable(z.strictObject({ at, why: z.string(), by: cardActor })), "the owner's forced close: never a pass; null when none"),
});

const integrity = doc(
  z.strictObject({
    state: doc(z.enum(['intact', 'damaged', 'nothing_recorded']), 'as vouch audit sees the whole chain; nothing_recorded: there is no ledger yet'),
    entries: count,
    receipts: count,
    gc_records: count,
    pruned: count,
    signed_by: doc(z.record(z.string(), count), 'live entries whose signature verified, by trusted key name'),
    unsigned: count,
    require_signature: z.boolean(),
    head: doc(nullable(z.strictObject({ seq: z.int(), hash: sha256 })), 'the newest position of the chain'),
    findings: z.array(
      z.strictObject({
        seq: nullable(z.int()),
        id: nullable(z.string()),
        kind: z.string(),
        code: doc(z.string(), 'the audit code (body_altered, link_broken, gap, signature_invalid, ...)'),
        detail: z.string(),
      }),
    ),
  }),
  "the ledger's integrity as vouch audit sees it",
);

const tally = <const K extends string>(keys: readonly K[]) => z.strictObject(Object.fromEntries(keys.map((k) => [k, count])) as Record<K, typeof count>);

const summary = z.strictObject({
  checks: doc(nullable(tally(['PASS', 'FAIL', 'STALE', 'UNKNOWN'])), 'checks now, by status; null when no status could be judged'),
  dispatches: doc(
    tally(['verified', 'contradicted', 'ungraded', 'damaged', 'open', 'drift']),
    'dispatches by verdict; open: not terminated; drift: pinned to a vouch.yaml other than the one in force',
  ),
  sessions: tally(['allowed', 'blocked', 'escaped', 'no_stop']),
  cards: tally(['open', 'claimed', 'done', 'owner_closed', 'split', 'abandoned', 'damaged']),
  integrity: z.enum(['intact', 'damaged', 'nothing_recorded']),
});

export const reportSchema = z.strictObject({
  kind: z.literal('vouch-report'),
  version: doc(z.literal(REPORT_VERSION), 'the report format version'),
  generated_at: at,
  vouch: doc(z.string(), 'the vouch version that wrote it'),
  workspace: doc(z.string(), 'the workspace root'),
  spec: specState,
  summary,
  checks: doc(z.array(check), 'every check declared now, then checks with receipts that vouch.yaml no longer declares'),
  sessions: doc(z.array(session), 'agent sessions the gate answered, most recently active first'),
  dispatches: doc(z.array(reportDispatchSchema), 'every dispatch, newest first; parent and session say who ordered it'),
  cards: doc(z.array(card), 'task cards, most recently active first'),
  integrity,
  window: doc(
    z.strictObject({ receipts: count, receipt_limit: count, sessions: count, session_limit: count }),
    'how much was read: the newest receipt_limit receipts and the session_limit most recently active sessions',
  ),
});
