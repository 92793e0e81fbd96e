import type { Problem } from '../core/problem.js';
import type { Paint } from './color.js';

/** A problem for people: what, where, expected, found, what to do. */
export function renderProblem(problem: Problem, p: Paint): string {
  const lines = [`${p.red('vouch:')} ${problem.where && !problem.more ? `${problem.where}: ` : ''}${problem.message}`];
  for (const item of problem.more ?? []) {
    lines.push(`  ${p.bold(item.where ?? '')}${item.where ? ': ' : ''}${item.message}`);
    if (item.expected) lines.push(`      expected: ${item.expected}`);
    if (item.found !== undefined) lines.push(`      found:    ${JSON.stringify(item.found)}`);
  }
  if (!problem.more) {
    if (problem.expected) lines.push(`  expected: ${problem.expected}`);
    if (problem.found !== undefined) lines.push(`  found:    ${JSON.stringify(problem.found)}`);
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
