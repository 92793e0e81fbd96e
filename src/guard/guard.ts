import { readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import { gitTreePaths } from './git-rewrites.js';
import { hardLinkOf } from './links.js';
import type { ProtectedPaths, ProtectionRule } from './protected.js';
import type { PersonAct } from './shell/vouch-acts.js';
import { codexPatchPaths } from './shell/apply-patch.js';
import { shellWrites } from './shell/writes.js';
import type { WiringPath } from './wiring.js';
import type { ToolUse } from '../clients/tool-use.js';

export type { ToolUse } from '../clients/tool-use.js';

export interface GuardPlace {
  /** Workspace root, canonical; null outside every workspace (the user's wiring and VOUCH_HOME are still guarded). */
  readonly root: string | null;
  /** Where the tool runs; relative paths are resolved against it. */
  readonly cwd: string;
  readonly home: string | undefined;
  readonly protect: ProtectedPaths;
  /** The gate's wiring (wiring.ts), asked for only when a call names a path. */
  readonly wiring: {
    /** Every entry but git's hook: costs no process. */
    readonly config: () => readonly WiringPath[];
    /** git's pre-push hook: one `git rev-parse`, asked only when a path could be it. */
    readonly gitHook: () => readonly WiringPath[];
  };
}

export type GuardAnswer =
  | { readonly kind: 'allow' }
  | {
      readonly kind: 'deny';
      readonly tool: string;
      /** Workspace-relative, or absolute outside the workspace. */
      readonly path: string;
      readonly rule: ProtectionRule;
      readonly via: string;
      /** The path is another name (a hard link) of this protected file. */
      readonly hardLinkOf?: string;
    }
  /** A shell command that runs an act only a person may do (`vouch allow`, `vouch install`, `vouch hook`, `git push --no-verify`...). */
  | { readonly kind: 'deny_act'; readonly tool: string; readonly act: PersonAct }
  /** An edit whose body vouch cannot read as the client does (an apply_patch it cannot parse or find): what it writes is unknown. */
  | { readonly kind: 'deny_unreadable'; readonly tool: string; readonly why: string };

/** Ways of writing that change a name, never a file's contents: a hard link's other names are left as they are. */
const NAME_ONLY = new Set(['rm', 'rmdir', 'unlink', 'mv', 'git rm', 'git mv']);

/**
 * Denies, before it happens, a write by the agent to what proves its work or
 * wires its gate: vouch.yaml, .vouch/ and the spec's protect: globs; the
 * gate's wiring (hook settings, MCP entries, the git pre-push hook) and
 * anything under VOUCH_HOME, wherever they are; another name (hard link) of
 * any of these; and a shell command that runs a person's act (`vouch allow`,
 * `install`, `uninstall`, `keys generate`, `hook`, `git push --no-verify`).
 * File tools are checked by the paths they name, shell commands by what they
 * plainly write (see shell/writes.ts) and, for git commands that rewrite the
 * work tree wholesale, by what git says they would change; patches by the
 * files they add, update, move or delete, read as Codex reads them (one it
 * cannot read is denied). Anything else is allowed: this
 * guard is a courtesy on commands, and the stop judges by result.
 */
export function guardToolUse(use: ToolUse, place: GuardPlace): GuardAnswer {
  switch (use.kind) {
    case 'write':
      return first(
        use.tool,
        use.paths.map((path) => ({ path: resolve(place.cwd, path), tree: false, glob: false, via: use.tool })),
        place,
      );
    case 'patch': {
      // What vouch cannot read, it does not let through: Codex itself applies nothing it cannot parse, so an honest patch loses nothing.
      const paths = use.patch === null ? null : codexPatchPaths(use.patch);
      if (paths === null)
        return {
          kind: 'deny_unreadable',
          tool: use.tool,
          why: use.patch === null ? 'the call carries no patch text vouch knows where to find' : 'the patch does not parse as Codex parses apply_patch',
        };
      return first(
        use.tool,
        paths.map((path) => ({ path: resolve(place.cwd, path), tree: false, glob: false, via: 'apply_patch' })),
        place,
      );
    }
    case 'shell': {
      const writes = shellWrites(use.command, place.cwd, place.home);
      const act = writes.acts[0];
      if (act !== undefined) return { kind: 'deny_act', tool: use.tool, act };
      const named = first(use.tool, writes.targets, place);
      if (named.kind !== 'allow') return named;
      for (const op of writes.gitOps) {
        const changed = gitTreePaths(op);
        // Not known before it runs: the trail marks the call opaque and the stop judges the result.
        if (changed === null) continue;
        const answer = first(
          use.tool,
          changed.map((path) => ({ path, tree: false, glob: false, via: op.command })),
          place,
        );
        if (answer.kind !== 'allow') return answer;
      }
      return named;
    }
    case 'read':
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

/** The names git's hooks vouch installs always have, wherever core.hooksPath puts them. */
const GIT_HOOK_NAMES = new Set(['pre-push', 'pre-commit']);

function first(tool: string, targets: readonly Target[], place: GuardPlace): GuardAnswer {
  let config: readonly WiringPath[] | null = null;
  let gitHook: readonly WiringPath[] | null = null;
  // git's hooks are looked up (a process) only for a path that could be one: named pre-push or pre-commit, or a whole directory.
  const wiringFor = (absolute: string, tree: boolean) => {
    config ??= place.wiring.config();
    const maybeHook = tree || GIT_HOOK_NAMES.has(basename(absolute)) || GIT_HOOK_NAMES.has(basename(realPathOf(absolute)));
    if (maybeHook) gitHook ??= place.wiring.gitHook();
    return maybeHook ? [...config, ...gitHook!] : config;
  };
  for (const target of targets) {
    const paths = target.glob ? expandGlob(target.path) : [target.path];
    for (const absolute of paths) {
      if (place.root !== null) {
        for (const rel of workspaceRelative(place.root, absolute)) {
          const rule = target.tree ? (place.protect.tree(rel) ?? protectedBeneath(place.root, place.protect, rel)) : place.protect.file(rel);
          if (rule) return { kind: 'deny', tool, path: rel, rule, via: target.via };
        }
      }
      const wired = wiringHit(absolute, target.tree, wiringFor(absolute, target.tree));
      if (wired) return { kind: 'deny', tool, path: displayPath(place.root, absolute), rule: { kind: 'wiring', what: wired.what }, via: target.via };
      if (!NAME_ONLY.has(target.via)) {
        const link = hardLinkOf(absolute, place.root, place.protect, () => wiringFor(absolute, true));
        if (link) return { kind: 'deny', tool, path: displayPath(place.root, absolute), rule: link.rule, via: target.via, hardLinkOf: link.path };
      }
    }
  }
  return { kind: 'allow' };
}

/**
 * The wiring a write at this path reaches: the file itself, anything under
 * VOUCH_HOME, or (a whole-directory operation) wiring beneath it. Both sides
 * are compared as written and through symlinks.
 */
function wiringHit(absolute: string, tree: boolean, wiring: readonly WiringPath[]): WiringPath | undefined {
  const forms = unique([absolute, realPathOf(absolute)]);
  const within = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);
  return wiring.find((entry) => {
    const places = unique([entry.path, realPathOf(entry.path)]);
    return forms.some((form) => places.some((place) => form === place || (entry.dir && within(form, place)) || (tree && within(place, form))));
  });
}

/** Workspace-relative inside the workspace, absolute outside it. */
function displayPath(root: string | null, absolute: string): string {
  if (root === null) return absolute;
  return workspaceRelative(root, absolute)[0] ?? absolute;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
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

/**
 * realpath of the longest existing prefix, with the rest appended. A
 * dangling symlink on the way is followed too: a write through it creates
 * its target.
 */
function realPathOf(path: string, hops = 0): string {
  const rest: string[] = [];
  let current = path;
  for (;;) {
    try {
      // The C library's realpath: one call, where Node's own walks the path in JavaScript.
      return join(realpathSync.native(current), ...rest.reverse());
    } catch {
      const link = hops < 8 ? linkTarget(current) : null;
      if (link !== null) return realPathOf(join(resolve(dirname(current), link), ...rest.reverse()), hops + 1);
      const parent = dirname(current);
      if (parent === current) return path;
      rest.push(current.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
      current = parent;
    }
  }
}

function linkTarget(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}

/** A whole-directory operation reaches any protected file beneath it; looked up on disk, bounded. */
function protectedBeneath(root: string, protect: ProtectedPaths, rel: string): ProtectionRule | undefined {
  let budget = 20_000;
  const stack = [rel === '.' ? '' : rel];
  while (stack.length > 0 && budget > 0) {
    const current = stack.pop()!;
    let entries;
    try {
      entries = readdirSync(current === '' ? root : join(root, current), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      budget--;
      const path = current === '' ? entry.name : `${current}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== '.git' && entry.name !== 'node_modules') stack.push(path);
      } else {
        const rule = protect.file(path);
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
        return readdirSync(dir)
          .filter((name) => match(name))
          .map((name) => join(dir, name));
      } catch {
        return [];
      }
    });
  }
  return found.length > 0 ? found : [path];
}
