/**
 * The paths a patch (or a mailbox of patches, for `git am`) touches, as
 * written in it: `diff --git` headers, `---` / `+++` lines (GNU diff as
 * well), `rename from|to` and `copy from|to`. `strip` leading components go
 * (git's -p, 1 by default); `directory` is prefixed (git's --directory).
 * Paths are relative to the top of the work tree; /dev/null is no path.
 */
export function patchFilePaths(text: string, strip: number, directory: string | null): string[] {
  const found = new Set<string>();
  const add = (raw: string | null, stripped: boolean) => {
    if (raw === null || raw === '/dev/null') return;
    const parts = raw.split('/').filter((part) => part !== '' && part !== '.');
    const kept = stripped ? parts.slice(strip) : parts;
    if (kept.length === 0) return;
    found.add([...(directory ? directory.split('/').filter(Boolean) : []), ...kept].join('/'));
  };
  for (const line of text.split('\n')) {
    if (line.startsWith('diff --git ')) {
      for (const path of headerPaths(line.slice('diff --git '.length), strip)) add(path, true);
      continue;
    }
    const marker = /^(?:---|\+\+\+) (.*)$/.exec(line);
    if (marker) {
      add(pathWord(marker[1]!), true);
      continue;
    }
    const named = /^(?:rename|copy) (?:from|to) (.*)$/.exec(line);
    if (named) add(unquote(named[1]!), false);
  }
  return [...found];
}

/** The path of a `---` / `+++` line: quoted, or up to a tab (GNU diff puts a timestamp there). */
function pathWord(rest: string): string | null {
  if (rest.startsWith('"')) return unquote(rest);
  const tab = rest.indexOf('\t');
  const word = (tab >= 0 ? rest.slice(0, tab) : rest).trimEnd();
  return word === '' ? null : word;
}

/**
 * Both paths of `diff --git A B`. Unquoted names may hold spaces: the split
 * is where both halves name the same file once stripped (no rename); a
 * rename has `rename from/to` lines, and the split at " b/" covers it.
 */
function headerPaths(rest: string, strip: number): string[] {
  if (rest.startsWith('"')) {
    const end = closingQuote(rest);
    const first = unquote(rest.slice(0, end + 1));
    const second = rest.slice(end + 2);
    return [first, second.startsWith('"') ? unquote(second) : second];
  }
  const strippedOf = (path: string) => path.split('/').slice(strip).join('/');
  for (let i = rest.indexOf(' '); i >= 0; i = rest.indexOf(' ', i + 1)) {
    const left = rest.slice(0, i);
    const right = rest.slice(i + 1);
    if (strippedOf(left) === strippedOf(right)) return [left, right];
  }
  const at = rest.indexOf(' b/');
  return at >= 0 ? [rest.slice(0, at), rest.slice(at + 1)] : [];
}

function closingQuote(text: string): number {
  for (let i = 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return text.length - 1;
}

const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', '"': '"', '\\': '\\', a: '\x07', b: '\b', f: '\f', r: '\r', v: '\v' };

/** git's C-style quoted path ("a/\303\244.txt"), or the text as is when it is not quoted. */
function unquote(text: string): string {
  if (!text.startsWith('"')) return text;
  const bytes: number[] = [];
  const end = closingQuote(text);
  for (let i = 1; i < end; i++) {
    const c = text[i]!;
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const octal = /^[0-7]{3}/.exec(text.slice(i + 1, i + 4));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      i += 3;
    } else {
      const next = text[i + 1] ?? '';
      bytes.push(...Buffer.from(ESCAPES[next] ?? next, 'utf8'));
      i++;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}
