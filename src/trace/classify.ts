import { realpathSync, statSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { isInside } from '../scope/inside.js';
import type { FileEvent } from './strace-log.js';

/** One file a traced run used that its proof does not hold. */
export interface TracedFile {
  /** Workspace-relative in `workspace`, HOME-relative (~/...) in `home`, absolute in `system`. */
  readonly path: string;
  /** exec: run as a program; read: opened for reading; look: only stat'ed, access'ed or readlink'ed (its presence can decide too). */
  readonly how: 'exec' | 'read' | 'look';
  /** The run wrote it as well: a cache or an output of its own, not something to pin as an input. */
  readonly written: boolean;
}

/** The files a traced run used outside its proof, by where they lie. */
export interface TracedFiles {
  readonly workspace: readonly TracedFile[];
  readonly home: readonly TracedFile[];
  readonly system: readonly TracedFile[];
}

export interface ClassifyOptions {
  /** The workspace root (canonical). */
  readonly root: string;
  /** The HOME the check ran with. */
  readonly home: string | undefined;
  /** Workspace-relative paths of the check's proof (its manifest): these are not listed. */
  readonly proof: ReadonlySet<string>;
  /** Absolute directories vouch made for the run (the trace, Python's cache prefix): not listed. */
  readonly own: readonly string[];
}

const RANK = { look: 0, read: 1, exec: 2 } as const;
/** Kernel interfaces, not files a person could pin. */
const PSEUDO = ['/proc', '/sys', '/dev'];

/** Groups a run's file events: what it touched outside its proof, once each, strongest use first. */
export function classify(events: readonly FileEvent[], options: ClassifyOptions): TracedFiles {
  const seen = new Map<string, { how: TracedFile['how'] | null; written: boolean }>();
  for (const event of events) {
    const entry = seen.get(event.path) ?? { how: null, written: false };
    if (event.how === 'write') entry.written = true;
    else if (entry.how === null || RANK[event.how] > RANK[entry.how]) entry.how = event.how;
    seen.set(event.path, entry);
  }
  const found = new Map<string, TracedFile & { group: keyof TracedFiles }>();
  for (const [named, entry] of seen) {
    if (entry.how === null) continue;
    const path = realOr(named);
    if ([...PSEUDO, ...options.own].some((dir) => isInside(dir, path))) continue;
    if (!isFile(path)) continue;
    const file = where(path, options);
    if (file === undefined) continue;
    const before = found.get(path);
    const how = before && RANK[before.how] > RANK[entry.how] ? before.how : entry.how;
    found.set(path, { ...file, how, written: entry.written || (before?.written ?? false) });
  }
  const sorted = [...found.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const pick = (group: keyof TracedFiles) => sorted.filter((f) => f.group === group).map(({ group: _group, ...file }) => file);
  return { workspace: pick('workspace'), home: pick('home'), system: pick('system') };
}

function where(path: string, options: ClassifyOptions): { path: string; group: keyof TracedFiles } | undefined {
  if (isInside(options.root, path)) {
    const rel = relative(options.root, path).split(sep).join('/');
    // vouch's own state is never a check's input; a proof's files are already pinned by their hash.
    if (rel === '' || rel === '.vouch' || rel.startsWith('.vouch/') || options.proof.has(rel)) return undefined;
    return { path: rel, group: 'workspace' };
  }
  if (options.home !== undefined && options.home !== '/' && isInside(options.home, path))
    return { path: `~/${relative(options.home, path).split(sep).join('/')}`, group: 'home' };
  return { path, group: 'system' };
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    // Gone since (a temporary file of the run's): nothing to pin.
    return false;
  }
}

/** Directories whose contents are one thing to pin: a dependency tree is declared as a whole. */
const TREES = new Set(['node_modules', '.venv', 'venv', 'vendor', 'site-packages', '__pypackages__']);

/**
 * The `inputs:` globs that would put the workspace files in the proof:
 * each file by its path, or a dependency tree (node_modules, a virtualenv,
 * vendor) as `DIR/**`. Files the run wrote itself and anything under .git
 * (never in a proof) are left out.
 */
export function suggestedInputs(files: readonly TracedFile[]): string[] {
  const globs = new Set<string>();
  for (const file of files) {
    if (file.written) continue;
    const parts = file.path.split('/');
    if (parts.includes('.git')) continue;
    const tree = parts.findIndex((part, i) => i < parts.length - 1 && TREES.has(part));
    globs.add(tree >= 0 ? `${parts.slice(0, tree + 1).join('/')}/**` : file.path);
  }
  return [...globs].sort();
}
