import { readdirSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import type { ProtectedPaths, ProtectionRule } from './protected.js';
import { shellWrites } from './shell/writes.js';

/** A tool call as the guard sees it, whatever the client called the tool. */
export type ToolUse =
  /** A file tool (Write, Edit, MultiEdit, NotebookEdit): the paths it writes. */
  | { readonly kind: 'write'; readonly tool: string; readonly paths: readonly string[] }
  /** A shell command (Bash). */
  | { readonly kind: 'shell'; readonly tool: string; readonly command: string }
  /** A patch in the apply_patch format (Codex). */
  | { readonly kind: 'patch'; readonly tool: string; readonly patch: string }
  | { readonly kind: 'other'; readonly tool: string };

export interface GuardPlace {
  /** Workspace root, canonical. */
  readonly root: string;
  /** Where the tool runs; relative paths are resolved against it. */
  readonly cwd: string;
  readonly home: string | undefined;
  readonly protect: ProtectedPaths;
}

export type GuardAnswer =
  | { readonly kind: 'allow' }
  | { readonly kind: 'deny'; readonly tool: string; readonly path: string; readonly rule: ProtectionRule; readonly via: string }
  /** A shell command that runs a person's act on the spec's trust (`vouch allow`, `vouch deny`, `vouch init --write`). */
  | { readonly kind: 'deny_act'; readonly tool: string; readonly act: string };

/**
 * Denies, before it happens, a write by the agent to what proves its work:
 * vouch.yaml, .vouch/ and the spec's protect: globs, and a shell command
 * that runs `vouch allow`, `vouch deny` or `vouch init --write` (trusting
 * the spec is the person's act; the CLI also refuses them inside an agent
 * run, by its environment markers). File tools are checked
 * by the paths they name, shell commands by what they plainly write (see
 * shell/writes.ts), patches by the files they add, update, move or delete.
 * Anything else is allowed: this guard answers only for protected paths.
 */
export function guardToolUse(use: ToolUse, place: GuardPlace): GuardAnswer {
  switch (use.kind) {
    case 'write':
      return first(use.tool, use.paths.map((path) => ({ path: resolve(place.cwd, path), tree: false, glob: false, via: use.tool })), place);
    case 'patch':
      return first(use.tool, patchPaths(use.patch).map((path) => ({ path: resolve(place.cwd, path), tree: false, glob: false, via: 'apply_patch' })), place);
    case 'shell': {
      const writes = shellWrites(use.command, place.cwd, place.home);
      const act = writes.trustActs[0];
      if (act !== undefined) return { kind: 'deny_act', tool: use.tool, act };
      return first(use.tool, writes.targets, place);
    }
    case 'other':
      return { kind: 'allow' };
  }
}

interface Target {
  readonly path: string;
  readonly tree: boolean;
  readonly glob: boolean;
  readonly via: string;
}

function first(tool: string, targets: readonly Target[], place: GuardPlace): GuardAnswer {
  for (const target of targets) {
    const paths = target.glob ? expandGlob(target.path) : [target.path];
    for (const absolute of paths) {
      for (const rel of workspaceRelative(place.root, absolute)) {
        const rule = target.tree ? (place.protect.tree(rel) ?? protectedBeneath(place, rel)) : place.protect.file(rel);
        if (rule) return { kind: 'deny', tool, path: rel, rule, via: target.via };
      }
    }
  }
  return { kind: 'allow' };
}

/**
 * The workspace-relative forms of a path: as written, and with symlinks on
 * the way resolved (a write through a link lands on its target). Paths
 * outside the workspace have none.
 */
export function workspaceRelative(root: string, absolute: string): string[] {
  const forms = new Set<string>();
  for (const candidate of [absolute, realPathOf(absolute)]) {
    const rel = relative(root, candidate);
    if (rel === '') forms.add('.');
    else if (!rel.startsWith('..') && !isAbsolute(rel)) forms.add(rel.split(sep).join('/'));
  }
  return [...forms];
}

/** realpath of the longest existing prefix, with the rest appended. */
function realPathOf(path: string): string {
  const rest: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(realpathSync(current), ...rest.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      rest.push(current.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
      current = parent;
    }
  }
}

/** A whole-directory operation reaches any protected file beneath it; looked up on disk, bounded. */
function protectedBeneath(place: GuardPlace, rel: string): ProtectionRule | undefined {
  let budget = 20_000;
  const stack = [rel === '.' ? '' : rel];
  while (stack.length > 0 && budget > 0) {
    const current = stack.pop()!;
    let entries;
    try {
      entries = readdirSync(current === '' ? place.root : join(place.root, current), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      budget--;
      const path = current === '' ? entry.name : `${current}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== '.git' && entry.name !== 'node_modules') stack.push(path);
      } else {
        const rule = place.protect.file(path);
        if (rule) return rule;
      }
    }
  }
  return undefined;
}

/** Expands a shell glob as the shell would (no dotfiles unless spelt); the word itself when nothing matches. */
function expandGlob(path: string): string[] {
  const segments = path.split('/').filter(Boolean);
  let found = ['/'];
  for (const segment of segments) {
    if (!/[*?[]/.test(segment)) {
      found = found.map((dir) => join(dir, segment));
      continue;
    }
    const match = picomatch(segment, { dot: false });
    found = found.flatMap((dir) => {
      try {
        return readdirSync(dir).filter((name) => match(name)).map((name) => join(dir, name));
      } catch {
        return [];
      }
    });
  }
  return found.length > 0 ? found : [path];
}

/** The files an apply_patch body adds, updates, deletes or moves to. */
export function patchPaths(patch: string): string[] {
  const paths: string[] = [];
  for (const line of patch.split('\n')) {
    const match = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$/.exec(line);
    if (match) paths.push(match[1]!);
  }
  return paths;
}
