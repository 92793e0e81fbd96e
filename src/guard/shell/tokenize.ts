/**
 * A small POSIX-shell reader, enough to see what a command line plainly
 * writes: it splits a line into simple commands, removes quotes, and keeps
 * redirections apart from words. It does not expand anything: a word holding
 * a variable or a command substitution is marked opaque, and the text of a
 * command substitution is returned so it can be read as commands too.
 */

export interface Word {
  /** The word with quotes removed. */
  readonly text: string;
  /** It holds an expansion ($VAR, $(...), `...`) whose value is unknown here. */
  readonly opaque: boolean;
  /** It holds an unquoted glob character (*, ?, [). */
  readonly glob: boolean;
}

export interface Redirect {
  /** The operator without its fd number: >, >>, >|, &>, &>>, <>, <, <<, <<<, >&, <&. */
  readonly op: string;
  readonly target: Word;
  /** A here-document's body (<<, <<-): data the command reads, e.g. a patch for `git apply`. */
  readonly body?: string;
}

export interface SimpleCommand {
  readonly words: readonly Word[];
  readonly redirects: readonly Redirect[];
  /** The operator that ends it: ;, &&, ||, |, &, newline, or '' at the end. */
  readonly then: string;
}

export interface Parsed {
  readonly commands: readonly SimpleCommand[];
  /** Texts of $(...) and `...`, to be read as commands as well. */
  readonly nested: readonly string[];
}

const SEPARATORS = ['&&', '||', ';;', ';', '|&', '|', '&', '\n', '(', ')'];
const REDIRECTS = ['&>>', '&>', '>>', '>|', '>&', '<<<', '<<-', '<<', '<&', '<>', '>', '<'];

export function tokenize(line: string): Parsed {
  const commands: SimpleCommand[] = [];
  const nested: string[] = [];
  let words: Word[] = [];
  let redirects: Redirect[] = [];
  let pendingRedirect: string | null = null;
  const heredocs: { delimiter: string; stripTabs: boolean; redirect: { body?: string } }[] = [];
  let i = 0;

  const finish = (then: string) => {
    if (words.length > 0 || redirects.length > 0) commands.push({ words, redirects, then });
    words = [];
    redirects = [];
    pendingRedirect = null;
  };
  const pushWord = (word: Word) => {
    if (pendingRedirect !== null) {
      const op = pendingRedirect;
      pendingRedirect = null;
      const redirect: Redirect & { body?: string } = { op, target: word };
      redirects.push(redirect);
      if (op === '<<' || op === '<<-') heredocs.push({ delimiter: word.text, stripTabs: op === '<<-', redirect });
      return;
    }
    words.push(word);
  };

  while (i < line.length) {
    const c = line[i]!;
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    if (c === '\\' && line[i + 1] === '\n') {
      i += 2;
      continue;
    }
    if (c === '#') {
      while (i < line.length && line[i] !== '\n') i++;
      continue;
    }
    if (c === '\n' && heredocs.length > 0) {
      finish('\n');
      i = skipHeredocs(line, i + 1, heredocs.splice(0));
      continue;
    }
    const separator = line.startsWith('&>', i) ? undefined : SEPARATORS.find((s) => line.startsWith(s, i));
    if (separator) {
      finish(separator);
      i += separator.length;
      continue;
    }
    const fd = /^[0-9]+(?=[<>])/.exec(line.slice(i, i + 4));
    const at = fd ? i + fd[0].length : i;
    const redirect = REDIRECTS.find((r) => line.startsWith(r, at));
    if (redirect && (fd || at === i)) {
      pendingRedirect = redirect;
      i = at + redirect.length;
      continue;
    }
    const read = readWord(line, i, nested);
    i = read.end;
    pushWord(read.word);
  }
  finish('');
  return { commands, nested };
}

/** Skips the bodies of here-documents, which are data, not commands; each body is kept on its redirection. */
function skipHeredocs(line: string, start: number, docs: readonly { delimiter: string; stripTabs: boolean; redirect: { body?: string } }[]): number {
  let i = start;
  for (const doc of docs) {
    const body: string[] = [];
    while (i < line.length) {
      const end = line.indexOf('\n', i);
      const raw = line.slice(i, end < 0 ? line.length : end);
      i = end < 0 ? line.length : end + 1;
      const text = doc.stripTabs ? raw.replace(/^\t+/, '') : raw;
      if (text === doc.delimiter) break;
      body.push(text);
    }
    doc.redirect.body = body.length > 0 ? `${body.join('\n')}\n` : '';
  }
  return i;
}

const WORD_END = /[\s;&|()<>]/;

function readWord(line: string, start: number, nested: string[]): { word: Word; end: number } {
  let text = '';
  let opaque = false;
  let glob = false;
  let i = start;
  while (i < line.length && !WORD_END.test(line[i]!)) {
    const c = line[i]!;
    if (c === '\\') {
      text += line[i + 1] ?? '';
      i += 2;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      text += line.slice(i + 1, end < 0 ? line.length : end);
      i = end < 0 ? line.length : end + 1;
    } else if (c === '"') {
      i++;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === '\\' && i + 1 < line.length && '"\\$`\n'.includes(line[i + 1]!)) {
          text += line[i + 1];
          i += 2;
        } else if (line[i] === '$' || line[i] === '`') {
          const expansion = readExpansion(line, i, nested);
          opaque ||= expansion.opaque;
          text += expansion.text;
          i = expansion.end;
        } else {
          text += line[i];
          i++;
        }
      }
      i++;
    } else if (c === '$' || c === '`') {
      const expansion = readExpansion(line, i, nested);
      opaque ||= expansion.opaque;
      text += expansion.text;
      i = expansion.end;
    } else {
      if (c === '*' || c === '?' || c === '[') glob = true;
      text += c;
      i++;
    }
  }
  return { word: { text, opaque, glob }, end: i };
}

/** $NAME, ${...}, $(...), $((...)), `...`, or a lone $. */
function readExpansion(line: string, i: number, nested: string[]): { text: string; opaque: boolean; end: number } {
  if (line[i] === '`') {
    const end = line.indexOf('`', i + 1);
    nested.push(line.slice(i + 1, end < 0 ? line.length : end));
    return { text: '', opaque: true, end: end < 0 ? line.length : end + 1 };
  }
  const next = line[i + 1];
  if (next === '(' || next === '{') {
    const close = next === '(' ? ')' : '}';
    let depth = 0;
    let j = i + 1;
    for (; j < line.length; j++) {
      if (line[j] === next) depth++;
      else if (line[j] === close && --depth === 0) break;
    }
    if (next === '(' && line[i + 2] !== '(') nested.push(line.slice(i + 2, j));
    return { text: '', opaque: true, end: Math.min(j + 1, line.length) };
  }
  if (next === "'") {
    // $'...': ANSI-C quoting; its escapes are rare in paths, keep the text.
    const end = line.indexOf("'", i + 2);
    return { text: line.slice(i + 2, end < 0 ? line.length : end), opaque: false, end: end < 0 ? line.length : end + 1 };
  }
  const name = /^([A-Za-z_][A-Za-z0-9_]*|[0-9#?@*$!-])/.exec(line.slice(i + 1));
  if (name) return { text: '', opaque: true, end: i + 1 + name[0].length };
  return { text: '$', opaque: false, end: i + 1 };
}
