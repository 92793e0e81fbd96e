import { isAbsolute, join, resolve } from 'node:path';

/** What one traced call did to one path. */
export interface FileEvent {
  /** Absolute, as the kernel resolved it where strace says so (an opened descriptor's path), else as named. */
  readonly path: string;
  /** exec: run as a program; read: opened for reading; write: opened for writing only; look: stat'ed, access'ed or readlink'ed. */
  readonly how: 'exec' | 'read' | 'write' | 'look';
}

/** Calls that name a path in their first argument. */
const PATH_FIRST: Readonly<Record<string, FileEvent['how']>> = {
  open: 'read',
  creat: 'write',
  execve: 'exec',
  stat: 'look',
  lstat: 'look',
  stat64: 'look',
  lstat64: 'look',
  access: 'look',
  readlink: 'look',
};
/** Calls that name a directory descriptor, then a path. */
const DIR_FIRST: Readonly<Record<string, FileEvent['how']>> = {
  openat: 'read',
  openat2: 'read',
  execveat: 'exec',
  newfstatat: 'look',
  fstatat64: 'look',
  statx: 'look',
  faccessat: 'look',
  faccessat2: 'look',
  readlinkat: 'look',
};

/**
 * The file events of one strace log (`strace -ff -y -s 4096 -e trace=%file`,
 * one file per process, so no call is split over two lines): only calls
 * that succeeded, each with the path it touched. `cwd` resolves a relative
 * path strace could not tie to a directory (an execve of "./x").
 */
export function fileEvents(log: string, cwd: string): FileEvent[] {
  const events: FileEvent[] = [];
  for (const line of log.split('\n')) {
    const call = /^(\w+)\((.*)\)\s+=\s+(-?\d+)(.*)$/.exec(line);
    if (!call) continue;
    const [, name, argText, ret, rest] = call as unknown as [string, string, string, string, string];
    if (Number(ret) < 0) continue;
    const args = splitArgs(argText);
    const first = PATH_FIRST[name];
    const atDir = DIR_FIRST[name];
    let how = first ?? atDir;
    if (how === undefined) continue;
    const pathArg = args[first !== undefined ? 0 : 1];
    if (pathArg === undefined || !pathArg.startsWith('"')) continue;
    const named = unquote(pathArg);
    // An empty path with AT_EMPTY_PATH is a call on a descriptor already opened: seen when it was opened.
    if (named === '') continue;
    const flags = args[name === 'open' ? 1 : name === 'openat' || name === 'openat2' ? 2 : -1] ?? '';
    if (how === 'read') {
      if (flags.includes('O_DIRECTORY')) continue;
      if (flags.includes('O_WRONLY')) how = 'write';
    }
    // An opened descriptor is printed with the path the kernel resolved: links followed, no relative part left.
    const shown = how === 'read' || how === 'write' ? /^<(.*)>/.exec(rest.trim())?.[1] : undefined;
    const opened = shown === undefined ? undefined : unescape(shown);
    const base = atDir !== undefined ? (descriptorPath(args[0] ?? '') ?? cwd) : cwd;
    events.push({ path: opened ?? (isAbsolute(named) ? resolve(named) : resolve(join(base, named))), how });
  }
  return events;
}

/** Top-level arguments of a call, split at commas outside quotes, brackets and braces. */
function splitArgs(text: string): string[] {
  const args: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === '[' || c === '{' || c === '(') depth++;
    else if (c === ']' || c === '}' || c === ')') depth--;
    else if (c === ',' && depth === 0) {
      args.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  args.push(text.slice(start).trim());
  return args;
}

/** `AT_FDCWD</dir>` or `3</dir>`: the directory strace says the descriptor is. */
function descriptorPath(arg: string): string | undefined {
  const shown = /<(.*)>$/.exec(arg)?.[1];
  return shown === undefined ? undefined : unescape(shown);
}

/** A C string as strace prints it ("...", with escapes; "..." after it when cut). */
function unquote(arg: string): string {
  return unescape(arg.slice(1, arg.lastIndexOf('"')));
}

/** strace's escapes undone: \n, \", \\, octal and hex bytes (a name's UTF-8 printed byte by byte). */
function unescape(body: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const next = body[++i]!;
    const simple: Record<string, number> = { n: 10, t: 9, r: 13, v: 11, f: 12, '"': 34, '\\': 92 };
    if (next in simple) bytes.push(simple[next]!);
    else if (next === 'x') {
      bytes.push(parseInt(body.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (/[0-7]/.test(next)) {
      const octal = /^[0-7]{1,3}/.exec(body.slice(i))![0];
      bytes.push(parseInt(octal, 8));
      i += octal.length - 1;
    } else bytes.push(...Buffer.from(next, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}
