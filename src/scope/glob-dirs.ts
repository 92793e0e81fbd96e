import picomatch from 'picomatch';

/** Answers, for a workspace-relative directory ('' is the root), a yes/no question about what lies below it. */
export type DirTest = (dir: string) => boolean;

const GLOBSTAR = Symbol('globstar');
type Segment = typeof GLOBSTAR | string | ((name: string) => boolean);

const SPECIAL = /[*?[\]{}()!+@]/;
const ALWAYS: DirTest = () => true;
const NEVER: DirTest = () => false;

/**
 * Whether any path strictly below a directory could match `glob`, so a walk
 * can skip directories where nothing can. The glob is matched segment by
 * segment against the directory's path (`**` spanning any number of them).
 * It may answer yes where nothing matches; it never answers no where
 * something could: a glob it cannot split by "/" (a negation, braces or
 * brackets holding a "/") answers yes everywhere.
 */
export function mayMatchBelow(glob: string): DirTest {
  if (glob.startsWith('!')) return ALWAYS;
  const parts = glob.split('/');
  if (!parts.every(balanced)) return ALWAYS;
  // The common shape "literal/dirs/**..." needs no matching at all: below
  // the literal part anything can match, beside it nothing.
  const firstGlob = parts.findIndex((part) => SPECIAL.test(part));
  if (firstGlob >= 0 && parts[firstGlob] === '**') {
    const base = parts.slice(0, firstGlob).join('/');
    if (base === '') return ALWAYS;
    return (dir) => dir === '' || dir === base || dir.startsWith(`${base}/`) || base.startsWith(`${dir}/`);
  }
  const segments: Segment[] = parts.map((part) => {
    if (part === '**') return GLOBSTAR;
    if (!SPECIAL.test(part)) return part;
    const match = picomatch(part, { dot: true });
    return (name: string) => match(name);
  });
  return (dir) => {
    let states = closure([0], segments);
    if (dir !== '') {
      for (const name of dir.split('/')) {
        const next: number[] = [];
        for (const i of states) {
          const segment = segments[i];
          if (segment === undefined) continue;
          if (segment === GLOBSTAR) next.push(i);
          else if (typeof segment === 'string' ? segment === name : segment(name)) next.push(i + 1);
        }
        states = closure(next, segments);
        if (states.length === 0) return false;
      }
    }
    // Something below can match when part of the glob is left for it.
    return states.some((i) => i < segments.length);
  };
}

/**
 * Whether an exclude glob removes everything below a directory, so the walk
 * can skip it: `X/**` and `X/**\/*` exclude the whole tree of any directory
 * X matches. Other excludes are applied file by file.
 */
export function excludesTree(glob: string): DirTest {
  const prefix = glob.endsWith('/**') ? glob.slice(0, -3) : glob.endsWith('/**/*') ? glob.slice(0, -5) : undefined;
  if (prefix === undefined || prefix === '' || glob.startsWith('!')) return NEVER;
  const match = picomatch(prefix, { dot: true });
  return (dir) => dir !== '' && match(dir);
}

/** Adds the positions reachable by letting each `**` match no segment. */
function closure(states: readonly number[], segments: readonly Segment[]): number[] {
  const out: number[] = [];
  const seen = new Set<number>();
  const stack = [...states];
  while (stack.length > 0) {
    const i = stack.pop()!;
    if (seen.has(i)) continue;
    seen.add(i);
    out.push(i);
    if (segments[i] === GLOBSTAR) stack.push(i + 1);
  }
  return out;
}

/** True when the brackets of one "/"-separated part close within it. */
function balanced(part: string): boolean {
  let braces = 0;
  let parens = 0;
  let brackets = 0;
  for (const char of part) {
    if (char === '{') braces++;
    else if (char === '}') braces--;
    else if (char === '(') parens++;
    else if (char === ')') parens--;
    else if (char === '[') brackets++;
    else if (char === ']') brackets--;
    if (braces < 0 || parens < 0 || brackets < 0) return false;
  }
  return braces === 0 && parens === 0 && brackets === 0;
}
