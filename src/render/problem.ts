import type { Problem } from '../core/problem.js';
import type { Paint } from './color.js';
import { oneLine } from './visible.js';

/** What was found, as a person reads it: text quoted, a number, boolean or null as itself. */
export function foundText(found: NonNullable<Problem['found']> | null): string {
  return typeof found === 'string' ? JSON.stringify(found) : String(found);
}

/**
 * A problem for people: what, where, expected, found, what to do. A `where`
 * that is a vouch command (`vouch verify`) leads the line in place of the
 * bare `vouch:`, and is not said twice when the message already starts with it.
 */
export function renderProblem(problem: Problem, p: Paint): string {
  const where = problem.where && !problem.more ? oneLine(problem.where) : undefined;
  const message = oneLine(problem.message);
  const lines = [
    where?.startsWith('vouch ')
      ? message.startsWith(`${where} `)
        ? `${p.red(where)}${message.slice(where.length)}`
        : `${p.red(`${where}:`)} ${message}`
      : `${p.red('vouch:')} ${where ? `${where}: ` : ''}${message}`,
  ];
  for (const item of problem.more ?? []) {
    lines.push(`  ${p.bold(oneLine(item.where ?? ''))}${item.where ? ': ' : ''}${oneLine(item.message)}`);
    if (item.expected) lines.push(`      expected: ${oneLine(item.expected)}`);
    if (item.found !== undefined) lines.push(`      found:    ${oneLine(foundText(item.found))}`);
  }
  if (!problem.more) {
    if (problem.expected) lines.push(`  expected: ${oneLine(problem.expected)}`);
    if (problem.found !== undefined) lines.push(`  found:    ${oneLine(foundText(problem.found))}`);
  }
  if (problem.hint) lines.push(`  ${p.cyan('hint:')} ${problem.hint}`);
  // The stable code, as --json and MCP give it: what a script (or an agent reading this) can rely on.
  lines.push(p.dim(`  code: ${problem.code}`));
  return `${lines.join('\n')}\n`;
}

/** A problem for machines (`--json`): the same fields, stable codes. */
export function problemJson(problem: Problem): Record<string, unknown> {
  return { ok: false, error: problem };
}
