/**
 * Codex's apply_patch format, read the way Codex 0.171 reads it
 * (codex-rs/apply-patch, lenient mode), so that what vouch sees a patch
 * touch is what Codex writes:
 *
 * - the whole text is trimmed, then split into lines (a `\r` before each
 *   `\n` dropped); the first line must be `*** Begin Patch` and the last
 *   `*** End Patch`, each trimmed of white space; a text wrapped in a
 *   here-document (`<<'EOF'` ... `EOF`) is unwrapped first;
 * - a hunk's header is trimmed before its marker is looked for, so
 *   `\t*** Update File: x` is a header; `*** Move to:` must start its line;
 * - an Add File hunk runs while lines start with `+`; an Update File hunk
 *   runs until a line starting with `*` (its chunks are parsed to know where
 *   it ends, as Codex does).
 *
 * White space is Unicode White_Space as Rust's `str::trim` has it, which is
 * not JavaScript's (U+0085 is white space to Rust, and U+FEFF is not).
 * A text Codex would refuse to parse is refused here too (null): Codex then
 * writes nothing, and vouch does not guess.
 */

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const ADD = '*** Add File: ';
const DELETE = '*** Delete File: ';
const UPDATE = '*** Update File: ';
const MOVE = '*** Move to: ';
const EOF_MARKER = '*** End of File';

/** Rust's White_Space: what `str::trim` removes. */
const RUST_WHITE_SPACE =
  /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

function trim(text: string): string {
  return text.replace(RUST_WHITE_SPACE, '');
}

/** One file a patch writes, removes or moves, as written in it (relative to where Codex applies it, or absolute). */
export interface PatchTouch {
  readonly path: string;
  readonly via: 'add' | 'delete' | 'update' | 'move';
}

/** The files an apply_patch body touches, or null when Codex would not parse it. */
export function codexPatchTouches(text: string): PatchTouch[] | null {
  const lines = linesOf(trim(text));
  const body = boundaries(lines);
  if (body === null) return null;
  const touches: PatchTouch[] = [];
  let rest = body;
  while (rest.length > 0) {
    const hunk = parseHunk(rest);
    if (hunk === null) return null;
    touches.push(...hunk.touches);
    rest = rest.slice(hunk.lines);
  }
  return touches;
}

/** The paths alone. */
export function codexPatchPaths(text: string): string[] | null {
  return codexPatchTouches(text)?.map((touch) => touch.path) ?? null;
}

/** Rust's `str::lines`: split at `\n`, a `\r` before it dropped. */
function linesOf(text: string): string[] {
  if (text === '') return [];
  return text.split('\n').map((line, i, all) => (i < all.length - 1 && line.endsWith('\r') ? line.slice(0, -1) : line));
}

/** The hunk lines between the markers (strict), or inside a here-document wrapper (lenient). */
function boundaries(lines: readonly string[]): readonly string[] | null {
  const strict = (all: readonly string[]) => (all.length >= 2 && trim(all[0]!) === BEGIN && trim(all[all.length - 1]!) === END ? all.slice(1, -1) : null);
  const plain = strict(lines);
  if (plain !== null) return plain;
  const first = lines[0];
  const last = lines[lines.length - 1];
  if (lines.length >= 4 && (first === '<<EOF' || first === "<<'EOF'" || first === '<<"EOF"') && last!.endsWith('EOF')) return strict(lines.slice(1, -1));
  return null;
}

function parseHunk(lines: readonly string[]): { touches: PatchTouch[]; lines: number } | null {
  const header = trim(lines[0]!);
  if (header.startsWith(ADD)) {
    let used = 1;
    while (used < lines.length && lines[used]!.startsWith('+')) used++;
    return { touches: [{ path: header.slice(ADD.length), via: 'add' }], lines: used };
  }
  if (header.startsWith(DELETE)) return { touches: [{ path: header.slice(DELETE.length), via: 'delete' }], lines: 1 };
  if (!header.startsWith(UPDATE)) return null;
  const touches: PatchTouch[] = [{ path: header.slice(UPDATE.length), via: 'update' }];
  let used = 1;
  if (lines[1]?.startsWith(MOVE)) {
    touches.push({ path: lines[1].slice(MOVE.length), via: 'move' });
    used++;
  }
  let chunks = 0;
  while (used < lines.length) {
    const line = lines[used]!;
    if (trim(line) === '') {
      used++;
      continue;
    }
    if (line.startsWith('*')) break;
    const chunk = chunkLength(lines.slice(used), chunks === 0);
    if (chunk === null) return null;
    chunks++;
    used += chunk;
  }
  return chunks === 0 ? null : { touches, lines: used };
}

/** How many lines one chunk of an Update File hunk takes: an `@@` line (optional for the first), then context, added and removed lines. */
function chunkLength(lines: readonly string[], first: boolean): number | null {
  let start = 0;
  if (lines[0] === '@@' || lines[0]!.startsWith('@@ ')) start = 1;
  else if (!first) return null;
  if (start >= lines.length) return null;
  let taken = 0;
  for (const line of lines.slice(start)) {
    if (line === EOF_MARKER) {
      if (taken === 0) return null;
      taken++;
      break;
    }
    const c = line[0];
    if (c === undefined || c === ' ' || c === '+' || c === '-') {
      taken++;
      continue;
    }
    if (taken === 0) return null;
    break;
  }
  return taken + start;
}
