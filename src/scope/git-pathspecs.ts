import picomatch from 'picomatch';
import type { ScopeDecl } from './scan-types.js';

/**
 * Git pathspecs naming at least every path a scope's globs can match, so
 * that `git ls-files --cached` lists the tracked files of that scope and
 * little else (engine/git.ts). `prefix` is the workspace's path below the
 * top of its work tree ('' or ending in "/"); every pathspec is from the top.
 *
 * Naming more than the scope only costs time; naming less would let a
 * tracked file pass for untracked, and the receipt read dirty. So a glob
 * that git's own glob pathspecs cannot say for certain (extglobs, escapes,
 * brace ranges) falls back to the literal directory it starts from, and a
 * glob without glob characters is named literally.
 */
export function gitPathspecs(scope: ScopeDecl, prefix: string): string[] {
  const globs = [...(scope.inputs ?? []), ...scope.sources, ...scope.tests, ...scope.artifacts];
  return [...new Set(globs.flatMap((glob) => pathspecsOf(glob, prefix)))];
}

/** Characters git's glob magic gives a meaning to, and that a literal part must escape. */
const GIT_SPECIAL = /[*?[\\]/g;
/** What picomatch reads in a glob that git's wildmatch does not, or not the same way. */
const UNSAID = /[\\()|+@!]|\{[^}]*\.\.[^}]*\}/;
/** At most this many globs from one glob's braces; more says nothing git could not say with the base. */
const MAX_EXPANSIONS = 32;

function pathspecsOf(glob: string, prefix: string): string[] {
  // A negation matches everything but what it names.
  if (glob.startsWith('!')) return [literal(prefix)];
  // An escape may make a literal of a glob character, or not: the directory above it is named.
  const escape = glob.indexOf('\\');
  if (escape >= 0) return [literal(prefix + glob.slice(0, Math.max(0, glob.lastIndexOf('/', escape))))];
  const scanned = picomatch.scan(glob);
  if (!scanned.isGlob) return [literal(prefix + glob)];
  // The common "dir/**": everything below a literal directory.
  if (glob === `${scanned.base}/**` || glob === '**') return [literal(prefix + scanned.base)];
  const expanded = UNSAID.test(glob.replace(/\[!/g, '[^')) ? undefined : expandBraces(glob);
  // A brace left over, or a bracket that does not close, may mean one thing to picomatch and another to git.
  if (expanded === undefined || expanded.some((one) => /[{}]/.test(one) || !bracketsClose(one))) return [literal(prefix + scanned.base)];
  const escaped = prefix.replace(GIT_SPECIAL, '\\$&');
  // The glob's own text too: picomatch matches a path equal to it (a file named "[ab].ts").
  return [...expanded.map((one) => `:(top,glob)${escaped}${one}`), literal(prefix + glob)];
}

/** Whether every "[" opens a class that closes before the next "/" (a "]" first in a class is a member). */
function bracketsClose(glob: string): boolean {
  for (let at = glob.indexOf('['); at >= 0; at = glob.indexOf('[', at + 1)) {
    let close = at + 1;
    if (glob[close] === '!' || glob[close] === '^') close++;
    if (glob[close] === ']') close++;
    close = glob.indexOf(']', close);
    if (close < 0 || glob.slice(at, close).includes('/')) return false;
    at = close;
  }
  return true;
}

/** A pathspec naming exactly this top-relative path and all below it ('' is the whole work tree). */
function literal(path: string): string {
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed === '' ? ':(top)' : `:(top,literal)${trimmed}`;
}

/**
 * `a/{b,c}/*.{js,ts}` as the globs it stands for; undefined when the
 * braces do not close or the expansion grows past MAX_EXPANSIONS. A brace
 * without a comma at its own level stands for itself, as in picomatch.
 */
export function expandBraces(glob: string): string[] | undefined {
  const open = outerBrace(glob);
  if (open === undefined) return [glob];
  if (open === null) return undefined;
  const { start, end, commas } = open;
  const head = glob.slice(0, start);
  const tail = glob.slice(end + 1);
  const bounds = [start, ...commas, end];
  const results: string[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const more = expandBraces(head + glob.slice(bounds[i]! + 1, bounds[i + 1]) + tail);
    if (more === undefined) return undefined;
    results.push(...more);
    if (results.length > MAX_EXPANSIONS) return undefined;
  }
  return results;
}

/** The first brace pair with a comma at its own level: undefined when there is none, null when a brace does not close. */
function outerBrace(glob: string): { start: number; end: number; commas: number[] } | undefined | null {
  for (let start = glob.indexOf('{'); start >= 0; start = glob.indexOf('{', start + 1)) {
    let depth = 0;
    const commas: number[] = [];
    let end = -1;
    for (let i = start; i < glob.length; i++) {
      const char = glob[i];
      if (char === '{') depth++;
      else if (char === '}' && --depth === 0) {
        end = i;
        break;
      } else if (char === ',' && depth === 1) commas.push(i);
    }
    if (end < 0) return null;
    if (commas.length > 0) return { start, end, commas };
  }
  return undefined;
}
