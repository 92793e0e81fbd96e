import { noteLoaded } from '../core/start.js';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { LineCounter, parseDocument, type Document } from 'yaml';
import type { $ZodIssue } from 'zod/v4/core';
import { sha256 } from '../core/digest.js';
import type { Problem } from '../core/problem.js';
import { err, ok, type Result } from '../core/result.js';
import { closest } from '../core/suggest.js';
import { CHECK_FIELDS, EXEC_FIELDS, EXPECT_FIELDS, GATE_FIELDS, TOP_LEVEL_FIELDS } from './fields.js';
import { locate } from './locate.js';
import type { Spec } from './model.js';
import { normalize } from './normalize.js';
import { applyRules, checkRules, type SpecIssue } from './rules.js';
import { checkSchema, specSchema } from './schema.js';

noteLoaded('yaml');

export { SPEC_FILE } from '../workspace/spec-file.js';

/** Reads, parses and validates a spec file; every problem is located. */
export function loadSpec(path: string, displayBase?: string): Result<Spec, Problem> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    return err({
      code: 'spec_unreadable',
      message: `cannot read the spec: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      where: path,
      hint: 'check that the file exists and is readable, or run `vouch init` to create one',
    });
  }
  return parseSpec(bytes, path, displayBase);
}

export function parseSpec(bytes: Buffer, path: string, displayBase?: string): Result<Spec, Problem> {
  const display = displayBase ? relative(displayBase, path) || path : path;
  const text = bytes.toString('utf8');
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: true, strict: true });

  const yamlProblems: Problem[] = [...doc.errors].map((error) => {
    const pos = error.linePos?.[0];
    return {
      code: 'spec_invalid',
      message: error.message.split('\n')[0] ?? error.message,
      where: pos ? `${display}:${pos.line}:${pos.col}` : display,
      expected: 'valid YAML',
    };
  });
  if (yamlProblems.length > 0) return err(invalid(display, yamlProblems));

  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return err(invalid(display, [{ code: 'spec_invalid', message: (error as Error).message, where: display }]));
  }

  const parsed = specSchema.safeParse(data, { reportInput: true });
  const issues: SpecIssue[] = parsed.success ? applyRules(parsed.data) : [...parsed.error.issues.flatMap(toSpecIssues), ...wellShapedCheckIssues(data)];
  if (issues.length > 0 || !parsed.success) {
    return err(invalid(display, inFileOrder(issues.map((issue) => locateIssue(issue, text, doc, lines, display)))));
  }
  return ok(normalize(parsed.data, path, sha256(bytes)));
}

/** Where the spec's shape is wrong, the rules of each check whose own shape is right still run: every problem in one pass. */
function wellShapedCheckIssues(data: unknown): SpecIssue[] {
  const checks = (data as { checks?: unknown } | null)?.checks;
  if (!Array.isArray(checks)) return [];
  return checks.flatMap((raw, index) => {
    const check = checkSchema.safeParse(raw);
    return check.success ? checkRules(check.data, index) : [];
  });
}

/** Problems in the order of the file (line, then column), as an editor lists them. */
function inFileOrder(problems: Problem[]): Problem[] {
  const at = (problem: Problem) =>
    /:(\d+):(\d+)$/
      .exec(problem.where ?? '')
      ?.slice(1)
      .map(Number) ?? [0, 0];
  return problems
    .map((problem, index) => ({ problem, index, at: at(problem) }))
    .sort((a, b) => a.at[0]! - b.at[0]! || a.at[1]! - b.at[1]! || a.index - b.index)
    .map((entry) => entry.problem);
}

function invalid(display: string, problems: Problem[]): Problem {
  return {
    code: 'spec_invalid',
    message: `${display} is not a valid vouch spec (${problems.length} problem${problems.length === 1 ? '' : 's'})`,
    where: display,
    hint: 'fix the spec, then run `vouch checks` to validate it and `vouch allow` to trust it',
    more: problems,
  };
}

function locateIssue(issue: SpecIssue, text: string, doc: Document, lines: LineCounter, display: string): Problem {
  const at = locate(text, doc, lines, issue.path, issue.atKey);
  return {
    code: 'spec_invalid',
    message: `${pathText(issue.path)}: ${issue.message}`,
    where: `${display}:${at.line}:${at.col}`,
    ...(issue.expected !== undefined && { expected: issue.expected }),
    ...(at.found !== undefined && !issue.atKey && { found: at.found }),
  };
}

function pathText(path: readonly (string | number)[]): string {
  if (path.length === 0) return '(document)';
  return path.map((segment, i) => (typeof segment === 'number' ? `[${segment}]` : i === 0 ? segment : `.${segment}`)).join('');
}

/** Which table describes the fields of the object at this path. */
function fieldsAt(path: readonly PropertyKey[]): Record<string, string> {
  if (path.length === 0) return TOP_LEVEL_FIELDS;
  if (path.length === 2 && path[0] === 'checks') return CHECK_FIELDS;
  if (path.length === 3 && path[2] === 'expect') return EXPECT_FIELDS;
  if (path.length === 1 && path[0] === 'gate') return GATE_FIELDS;
  if (path.length === 1 && path[0] === 'exec') return EXEC_FIELDS;
  return {};
}

function expectedFor(path: readonly PropertyKey[]): string | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const key = path[i];
    if (typeof key !== 'string') continue;
    const table = fieldsAt(path.slice(0, i));
    const text = table[key];
    if (text === undefined) return undefined;
    return i === path.length - 1 ? text : `each entry: ${text}`;
  }
  return 'a mapping with version: 1 and a list of checks';
}

function toSpecIssues(issue: $ZodIssue): SpecIssue[] {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    const known = Object.keys(fieldsAt(path));
    return issue.keys.map((key) => {
      const guess = closest(key, known);
      return {
        path: [...path, key],
        atKey: true,
        message: `unknown key "${key}"${guess ? ` (did you mean "${guess}"?)` : ''}`,
        expected: known.length > 0 ? `one of: ${known.join(', ')}` : 'no further keys',
      };
    });
  }
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_union') && issue.input === undefined) {
    const key = path[path.length - 1];
    if (typeof key === 'string') {
      return [{ path: path.slice(0, -1), message: `missing required key "${key}"`, expected: expectedFor(path) }];
    }
  }
  const expected = expectedFor(path);
  return [{ path, message: describeIssue(issue), ...(expected !== undefined && { expected }) }];
}

function describeIssue(issue: $ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `wrong type: expected ${issue.expected}`;
    case 'too_small':
      return issue.origin === 'array'
        ? `needs at least ${String(issue.minimum)} entr${issue.minimum === 1 ? 'y' : 'ies'}`
        : issue.origin === 'string'
          ? 'must not be empty'
          : `must be at least ${String(issue.minimum)}`;
    case 'too_big':
      return `must be at most ${String(issue.maximum)}`;
    case 'invalid_format':
      return 'has the wrong format';
    case 'invalid_value':
      return `must be ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}`;
    case 'invalid_union':
      return 'is not any of the accepted forms';
    default:
      return issue.message;
  }
}
