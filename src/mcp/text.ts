import type { Problem } from '../core/problem.js';
import type { Reason, Status } from '../core/status.js';
import { foundText } from '../render/problem.js';
import { explainReason } from '../render/reasons.js';
import { oneLine, visible } from '../render/visible.js';

/*
 * The words every MCP answer ends with. A model reads the text, so the text
 * says what a PASS is worth and that nothing the caller asserts counts.
 */

export const PASS_MEANS =
  'A PASS means: the command the operator declared for that check in vouch.yaml ran to completion before its timeout and met its expectation, ' +
  'no file in its declared scope changed while it ran, and every covered file still has the SHA-256 recorded in its receipt. ' +
  'It proves that check on that scope, nothing wider.';

export const CLAIMS_ARE_NOT_EVIDENCE =
  "The caller's own claims (that tests were run, that they passed, that a file was fixed) are not evidence: only a receipt recorded by vouch is, and only while its status is PASS.";

export const NOT_ALLOWED =
  'vouch.yaml is not allowed in this workspace (new, or edited since a person allowed it): nothing runs until a person reads it and runs `vouch allow`. No tool can allow it.';

export const FOOTER = `${PASS_MEANS}\n${CLAIMS_ARE_NOT_EVIDENCE}`;

/**
 * Every tool result's text, success or error, ends with FOOTER: one place
 * adds it (handle.ts), so no tool can leave it out. The same place makes the
 * text visible: a client shows it to a person as it is, so a check's output
 * or a recorded claim quoted in it cannot carry escape sequences or bidi
 * overrides to their screen. (structuredContent stays exact, like --json.)
 */
export function withFooter(text: string): string {
  return `${visible(text.trimEnd())}\n\n${FOOTER}`;
}

/** One line per check: "PASS  tests  …" then why, in words, when it is not a PASS. */
export function statusLine(entry: {
  id: string;
  status: Status;
  reason: Reason;
  detail: string | null;
  blocking: boolean;
  proves: string;
  verifier?: string;
}): string {
  const head = `${entry.status.padEnd(7)} ${entry.id}${entry.blocking ? '' : ' (advisory)'}${entry.verifier ? ` (remote, verifier ${entry.verifier.slice(0, 16)})` : ''}`;
  if (entry.status === 'PASS') return `${head}: ${entry.proves}`;
  const { meaning } = explainReason(entry.reason, entry.id);
  return `${head}: ${entry.reason}: ${meaning}${entry.detail ? ` (${oneLine(entry.detail)})` : ''}`;
}

/** A problem for a model: what went wrong, where, expected, found, what to do, and its stable code. */
export function problemText(problem: Problem): string {
  const lines = [`vouch: ${problem.message}`];
  if (problem.where && !problem.more) lines.push(`  where: ${problem.where}`);
  for (const item of problem.more ?? []) {
    lines.push(`  ${item.where ? `${item.where}: ` : ''}${item.message}`);
    if (item.expected) lines.push(`    expected: ${item.expected}`);
    if (item.found !== undefined) lines.push(`    found: ${foundText(item.found)}`);
  }
  if (!problem.more) {
    if (problem.expected) lines.push(`  expected: ${problem.expected}`);
    if (problem.found !== undefined) lines.push(`  found: ${foundText(problem.found)}`);
  }
  if (problem.hint) lines.push(`  hint: ${problem.hint}`);
  lines.push(`  code: ${problem.code}`);
  return lines.join('\n');
}
