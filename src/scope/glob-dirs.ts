import picomatch from 'picomatch';

/**
 * picomatch's own test for a workspace-relative path (what
 * `picomatch(glob, {dot: true})(path)` answers on POSIX paths: the path
 * equals the glob text, or matches its expression), minus its per-call
 * bookkeeping. It runs for every file of every scan, so the common
 * "literal/dirs/**" needs no expression: a walk's paths never hold "." or
 * ".." segments, the only ones picomatch's `**` leaves out.
 */
export function globMatcher(glob: string): (path: string) => boolean {
  if (glob === '**') return (path) => path !== '';
  const parts = glob.split('/');
  if (parts.length > 1 && parts.at(-1) === '**' && parts.slice(0, -1).every((part) => part !== '' && !SPECIAL.test(part))) {
    const base = parts.slice(0, -1).join('/');
    const prefix = `${base}/`;
    return (path) => path === base || path.startsWith(prefix);
  }
  const regex = picomatch.makeRe(glob, { dot: true });
  return (path) => path === glob || regex.test(path);
}

/** Answers, for a workspace-relative directory ('' is the root), a yes/no question about what lies below it. */
export type DirTest = (dir: string) => boolean;

const SPECIAL = /[*?[\]{}()!+@]/;
const ALWAYS: DirTest = () => true;
const NEVER: DirTest = () => false;

/**
 * Whether any path strictly below a directory could match `glob`, so a walk
 * can skip directories where nothing can. The directory's segments must
 * match the glob's, one by one (each as picomatch reads a segment), up to
 * the first `**` (below which anything can match) and leaving at least one
 * segment of the glob for what lies below. It may answer yes where nothing
 * matches; it never answers no where something could: a glob it cannot
 * split by "/" (a negation, brackets holding a "/") answers yes everywhere.
 */
export function mayMatchBelow(glob: string): DirTest {
  const parts = glob.split('/');
  if (glob.startsWith('!') || parts.some((part) => part.startsWith('!') || !balanced(part))) return ALWAYS;
  const globstar = parts.indexOf('**');
  const firstGlob = parts.findIndex((part) => SPECIAL.test(part));
  // The common shape "literal/dirs/**...": only string comparisons.
  if (firstGlob >= 0 && firstGlob === globstar) {
    const base = parts.slice(0, globstar).join('/');
    if (base === '') return ALWAYS;
    return (dir) => dir === '' || dir === base || dir.startsWith(`${base}/`) || base.startsWith(`${dir}/`);
  }
  // Segments a directory is held to: those before the first "**"; without
  // one, all but the last (which names the file).
  const checked = (globstar >= 0 ? parts.slice(0, globstar) : parts.slice(0, -1)).map(segmentTest);
  // Called for every directory of every walk: no split, no allocation for
  // literal and "*" segments.
  return (dir) => {
    if (dir === '') return true;
    let start = 0;
    for (let i = 0; ; i++) {
      if (i === checked.length) return globstar >= 0;
      const end = dir.indexOf('/', start);
      if (!checked[i]!(dir, start, end < 0 ? dir.length : end)) return false;
      if (end < 0) return true;
      start = end + 1;
    }
  };
}

/** Tests the name at dir[start, end) against one glob segment. */
type SegmentTest = (dir: string, start: number, end: number) => boolean;

function segmentTest(part: string): SegmentTest {
  if (!SPECIAL.test(part)) return (dir, start, end) => end - start === part.length && dir.startsWith(part, start);
  // "*" with dot: true matches any name but "." and "..", which no walk meets.
  if (part === '*') return (_dir, start, end) => end > start;
  const regex = picomatch.makeRe(part, { dot: true });
  return (dir, start, end) => {
    const name = dir.slice(start, end);
    return name === part || regex.test(name);
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
  const regex = picomatch.makeRe(prefix, { dot: true });
  return (dir) => dir !== '' && (dir === prefix || regex.test(dir));
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
