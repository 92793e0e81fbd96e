import { LineCounter, parseDocument } from 'yaml';
import * as z from 'zod/mini';
import type { $ZodIssue } from 'zod/v4/core';
import type { Problem } from '../core/problem.js';
import { err, ok, type Result } from '../core/result.js';
import { closest } from '../core/suggest.js';
import { locate } from '../spec/locate.js';

/**
 * How the agent says it knows a deliverable is there: it ran something and
 * saw the result (executed), it looked without running anything (observed),
 * or neither (believed). The agent's word either way: the checker decides.
 */
export const EVIDENCE = ['executed', 'observed', 'believed'] as const;
export type Evidence = (typeof EVIDENCE)[number];

export const CLAIM_FIELDS = {
  summary: 'what the agent says it did, in its own words (1 to 20000 characters)',
  deliverables: 'a list (may be empty) of {what, evidence, how}: each thing the agent says it delivered',
} as const;

export const DELIVERABLE_FIELDS = {
  what: 'the deliverable, e.g. "src/add.ts handles negative numbers" (1 to 2000 characters)',
  evidence: 'how the agent knows: executed (it ran something and saw the result), observed (it looked, ran nothing) or believed (neither)',
  how: 'optional: what it ran or looked at, e.g. "npm test exited 0" (at most 4000 characters)',
} as const;

/** The largest claim accepted, in bytes: a report, not a transcript. */
export const CLAIM_MAX_BYTES = 64 * 1024;
const SUMMARY_MAX = 20_000;

const text = (max: number, what: string) => z.string().check(z.minLength(1), z.maxLength(max), z.regex(/\S/), z.describe(what));

export const deliverableSchema = z.strictObject({
  what: text(2000, DELIVERABLE_FIELDS.what),
  evidence: z.enum(EVIDENCE).check(z.describe(DELIVERABLE_FIELDS.evidence)),
  how: z.optional(z.string().check(z.maxLength(4000), z.describe(DELIVERABLE_FIELDS.how))),
});

/** The agent's claim, as `vouch dispatch report`, the MCP tool and a subagent's last message give it. */
export const claimSchema = z.strictObject({
  summary: text(SUMMARY_MAX, CLAIM_FIELDS.summary),
  deliverables: z.array(deliverableSchema).check(z.maxLength(100), z.describe(CLAIM_FIELDS.deliverables)),
});

export interface Deliverable {
  readonly what: string;
  readonly evidence: Evidence;
  readonly how: string | null;
}

export interface Claim {
  readonly summary: string;
  readonly deliverables: readonly Deliverable[];
}

/** The claim with optional fields made explicit, so its stored form is one shape. */
export function normalizeClaim(raw: z.infer<typeof claimSchema>): Claim {
  return { summary: raw.summary, deliverables: raw.deliverables.map((d) => ({ what: d.what, evidence: d.evidence, how: d.how ?? null })) };
}

/**
 * Reads a claim from JSON text. Every problem says where (file:line:col),
 * what was expected and what was found, like a spec error.
 */
export function parseClaim(source: string, display: string): Result<Claim, Problem> {
  const bytes = Buffer.byteLength(source, 'utf8');
  if (bytes > CLAIM_MAX_BYTES) {
    return err(
      problem(`the claim is ${bytes} bytes; at most ${CLAIM_MAX_BYTES} are accepted`, display, 'a small JSON report: a summary and a list of deliverables'),
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(source);
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message);
    const at = position ? lineCol(source, Number(position[1])) : null;
    return err(
      problem(`not valid JSON: ${message}`, at ? `${display}:${at.line}:${at.col}` : display, 'a JSON object such as {"summary": "...", "deliverables": []}'),
    );
  }
  const parsed = claimSchema.safeParse(data, { reportInput: true });
  if (parsed.success) return ok(normalizeClaim(parsed.data));
  const lines = new LineCounter();
  const doc = parseDocument(source, { lineCounter: lines });
  const more = parsed.error.issues
    .flatMap((issue) => explain(issue))
    .map((issue): Problem => {
      const at = locate(source, doc, lines, issue.path, issue.atKey);
      return {
        code: 'claim_invalid',
        message: `${pathText(issue.path)}: ${issue.message}`,
        where: `${display}:${at.line}:${at.col}`,
        expected: issue.expected,
        ...(at.found !== undefined && !issue.atKey && { found: at.found }),
      };
    });
  return err({
    code: 'claim_invalid',
    message: `${display} is not a valid claim (${more.length} problem${more.length === 1 ? '' : 's'})`,
    where: display,
    hint: 'write {"summary": "...", "deliverables": [{"what": "...", "evidence": "executed|observed|believed", "how": "..."}]}',
    more,
  });
}

/**
 * The claim in a subagent's last message: the whole message, or its last
 * ```json block, when that is a valid claim; otherwise the message itself
 * is the summary, with no deliverables. The agent's words are kept either
 * way; only their shape differs.
 */
export function claimFromMessage(message: string): { readonly claim: Claim; readonly structured: boolean } {
  for (const candidate of [message.trim(), lastJsonBlock(message)]) {
    if (!candidate || !candidate.startsWith('{')) continue;
    const parsed = parseClaim(candidate, 'message');
    if (parsed.ok) return { claim: parsed.value, structured: true };
  }
  const summary = message.length > SUMMARY_MAX ? `${message.slice(0, SUMMARY_MAX - 40)}\n[… cut: the message was ${message.length} characters]` : message;
  return { claim: { summary, deliverables: [] }, structured: false };
}

function lastJsonBlock(message: string): string | undefined {
  const blocks = [...message.matchAll(/```json\s*\n([\s\S]*?)```/g)];
  return blocks[blocks.length - 1]?.[1]?.trim();
}

interface ClaimIssue {
  readonly path: readonly (string | number)[];
  readonly message: string;
  readonly expected: string;
  readonly atKey?: boolean;
}

function explain(issue: $ZodIssue): ClaimIssue[] {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  const fields: Record<string, string> = path.length >= 2 && path[0] === 'deliverables' ? DELIVERABLE_FIELDS : CLAIM_FIELDS;
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => {
      const guess = closest(key, Object.keys(fields));
      return {
        path: [...path, key],
        atKey: true,
        message: `unknown key "${key}"${guess ? ` (did you mean "${guess}"?)` : ''}`,
        expected: `one of: ${Object.keys(fields).join(', ')}`,
      };
    });
  }
  const key = path[path.length - 1];
  const expected =
    typeof key === 'string'
      ? (fields[key] ?? 'a claim object')
      : path.length === 0
        ? 'a JSON object with summary and deliverables'
        : `each entry: {${Object.keys(DELIVERABLE_FIELDS).join(', ')}}`;
  if (issue.code === 'invalid_type' && issue.input === undefined && typeof key === 'string') {
    return [{ path: path.slice(0, -1), message: `missing required key "${key}"`, expected }];
  }
  return [{ path, message: words(issue), expected }];
}

function words(issue: $ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `wrong type: expected ${issue.expected}`;
    case 'invalid_value':
      return `must be ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}`;
    case 'too_small':
      return 'must not be empty';
    case 'too_big':
      return issue.origin === 'array' ? `at most ${String(issue.maximum)} entries` : `at most ${String(issue.maximum)} characters`;
    case 'invalid_format':
      return 'must not be blank';
    default:
      return issue.message;
  }
}

function pathText(path: readonly (string | number)[]): string {
  if (path.length === 0) return '(claim)';
  return path.map((segment, i) => (typeof segment === 'number' ? `[${segment}]` : i === 0 ? segment : `.${segment}`)).join('');
}

function lineCol(source: string, offset: number): { line: number; col: number } {
  const before = source.slice(0, offset).split('\n');
  return { line: before.length, col: (before[before.length - 1]?.length ?? 0) + 1 };
}

function problem(message: string, where: string, expected: string): Problem {
  return { code: 'claim_invalid', message, where, expected, hint: 'fix the claim file and run `vouch dispatch report` again' };
}
