import { childProcess } from '../../core/builtins.js';
import { dirname, resolve } from 'node:path';
import { claudeBoxIntent } from '../box/claude-box.js';
import { projectSandboxEntry } from '../box/claude-settings.js';
import { codexBoxIntent, codexConfigPath } from '../box/codex-box.js';
import { boxPrerequisites, codexHomeNote, type MissingPrerequisites } from '../box/prerequisites.js';
import { readOnlySet, type UnboxableGlob } from '../box/read-only.js';
import { ecosystemsOf } from '../box/registries.js';
import type { AgentClient, BoxKind, HookEvent, Scope } from '../../clients/descriptor.js';
import { vouchHome } from '../../workspace/home.js';
import { readRecord } from '../store.js';
import { CLIENTS, hookedClients, type HookedClient } from '../../clients/registry.js';
import { unreachable } from '../../core/unreachable.js';
import type { EditIntent } from '../intent.js';
import { hookIntent, type SelfCommand } from './agent-hooks.js';
import { vouchWords } from './hook-command.js';
import { gitHookIntent } from './git-hooks.js';
import { hermesPluginIntents } from './hermes-plugin.js';

/** What a target needs to know to state its edits. */
export interface TargetContext {
  readonly scope: Scope;
  /** The workspace (nearest vouch.yaml); null when there is none. */
  readonly root: string | null;
  readonly env: NodeJS.ProcessEnv;
  readonly self: SelfCommand;
  readonly mode: 'install' | 'uninstall';
  /** Put the agent in the client's own sandbox too (the default; `--no-sandbox` says no). Uninstall always takes it back. */
  readonly box: boolean;
  /** `--exec` (with --no-sandbox): the client's shell calls are rewritten into `vouch exec -- ...` by its hook. Uninstall takes back either form. */
  readonly exec: boolean;
  /** The spec's protect: globs and the programs its checks run (empty without a spec that loads). */
  readonly protect: readonly string[];
  readonly programs: readonly string[];
  /** git-hooks: the pre-commit hook too (`--pre-commit`). Uninstall takes it back whenever vouch's record says it made it. */
  readonly preCommit?: boolean;
}

/** What the edits leave out or let through, said when they are made: protect: globs the box cannot hold, the registries let in. */
export interface BoxNotes {
  readonly kind: BoxKind;
  readonly unboxable: readonly UnboxableGlob[];
  readonly domains: readonly string[];
  readonly caches: readonly string[];
}

export type TargetIntents =
  | {
      readonly ok: true;
      readonly intents: readonly EditIntent[];
      readonly box?: BoxNotes;
      /** What this install leaves out on this machine, said when it is made (an older client without some events). */
      readonly notes?: readonly string[];
    }
  | { readonly ok: false; readonly why: string; readonly hint: string };

/**
 * Everything `vouch install` can wire up. A target states its edits as
 * intents; the safe editor (install/edit.ts) applies or takes them back.
 */
export interface InstallTarget {
  readonly summary: string;
  /** Scopes it accepts; the first is the default. */
  readonly scopes: readonly Scope[];
  /** Whether it needs a workspace (vouch.yaml) at the given scope. */
  readonly needsWorkspace: (scope: Scope) => boolean;
  readonly intents: (ctx: TargetContext) => TargetIntents;
  /** What the box needs on this machine and does not find (install only, when the target has a box). */
  readonly boxPrerequisites?: (env: NodeJS.ProcessEnv) => MissingPrerequisites;
  /** Whether its hooks can rewrite shell calls into `vouch exec` (`--exec`). */
  readonly canExec?: boolean;
}

/** git's hooks (pre-push; pre-commit with `--pre-commit`): not an agent client, so not in the registry. */
const GIT_HOOKS: InstallTarget = {
  summary:
    'a git pre-push hook that refuses a push while a blocking check is not a PASS for the commits pushed (and, with --pre-commit, a pre-commit hook for the staged files)',
  scopes: ['project'],
  needsWorkspace: () => true,
  intents: (ctx) => {
    const path = gitHookPath(ctx.root!, 'pre-push');
    if (path === null) return { ok: false, why: `${ctx.root} is not inside a git work tree`, hint: 'run `git init` first, or skip git hooks' };
    const intents = [gitHookIntent('pre-push', path, ctx.root!, ctx.self, ctx.env)];
    // Uninstall states the pre-commit hook too, but touches it only where vouch's record says it wrote it: a person's own is left alone.
    if (ctx.preCommit === true || ctx.mode === 'uninstall') {
      const preCommit = gitHookIntent('pre-commit', gitHookPath(ctx.root!, 'pre-commit')!, ctx.root!, ctx.self, ctx.env);
      intents.push(ctx.mode === 'uninstall' ? { ...preCommit, onlyWithRecord: true } : preCommit);
    }
    return { ok: true, intents };
  },
};

/** Every install target: one per client with hooks in the registry (clients/registry.ts), then git's hooks. */
export function installTargets(clients: readonly AgentClient[] = CLIENTS): Readonly<Record<string, InstallTarget>> {
  return Object.fromEntries([...hookedClients(clients).map((client) => [client.id, clientTarget(client)] as const), ['git-hooks', GIT_HOOKS] as const]);
}

export const INSTALL_TARGETS = installTargets();

/** A client's target, by how its hooks are installed, with its box where it has one. */
function clientTarget(client: HookedClient): InstallTarget {
  const { install, box } = client.hooks;
  switch (install.kind) {
    case 'hooks-file':
      return {
        summary: install.summary,
        scopes: install.scopes,
        needsWorkspace: (scope) => scope === 'project',
        intents: (ctx) => {
          const path = install.file(ctx.scope, ctx.root, ctx.env);
          const version = ctx.mode === 'install' ? (install.version?.(ctx.env) ?? null) : null;
          const events =
            ctx.mode === 'install'
              ? install.events.filter((event) => event.since === undefined || version === null || !olderThan(version, event.since))
              : installedEvents(install.events, path, client.id, ctx, install.projectDirVariable);
          const exec = client.hooks.exec ? { event: client.hooks.exec.event, on: ctx.exec } : null;
          const hooks = hookIntent(path, client.id, vouchWords(ctx.self, ctx, install.projectDirVariable), events, exec);
          const older = events.length < install.events.length && install.olderNote ? [`${client.label} ${version}: ${install.olderNote}`] : [];
          const intents = box === null ? ({ ok: true, intents: [hooks] } as const) : withBox(box, path, hooks, ctx);
          return intents.ok && older.length > 0 ? { ...intents, notes: [...older, ...(intents.notes ?? [])] } : intents;
        },
        ...(box !== null && { boxPrerequisites: (env: NodeJS.ProcessEnv) => boxPrerequisites(box, env) }),
        ...(client.hooks.exec && { canExec: true }),
      };
    case 'hermes-plugin':
      return {
        summary: install.summary,
        scopes: ['user'],
        needsWorkspace: () => false,
        intents: (ctx) => ({ ok: true, intents: hermesPluginIntents(install, ctx.env, ctx.self) }),
      };
    default:
      return unreachable(install);
  }
}

/**
 * The hooks, and (unless `--no-sandbox`) the box: the client's own sandbox
 * with what vouches read-only. Uninstall states both, so it takes back
 * whichever was installed.
 */
function withBox(box: BoxKind, path: string, hooks: EditIntent, ctx: TargetContext): TargetIntents {
  if (!ctx.box && ctx.mode === 'install') return { ok: true, intents: [hooks] };
  switch (box) {
    case 'claude-code-sandbox': {
      const root = ctx.scope === 'project' ? ctx.root : null;
      const gitHook = root === null ? null : gitHookPath(root, 'pre-push');
      const set = readOnlySet(root, ctx.env, ctx.protect, gitHook === null ? null : dirname(gitHook));
      const ecosystems = ecosystemsOf(ctx.root, ctx.programs);
      // In the project's settings (a file teams commit) no path of this machine: entries relative to the workspace, as Claude Code resolves them.
      const readOnly = root === null ? set.paths : set.paths.map((entry) => ({ ...entry, path: projectSandboxEntry(entry.path, root, ctx.env) }));
      return {
        ok: true,
        intents: [hooks, claudeBoxIntent(path, { readOnly, ecosystems })],
        ...(root === null && ctx.mode === 'install' && { notes: [USER_SCOPE_BOX_NOTE] }),
        box: {
          kind: box,
          unboxable: set.unboxable,
          domains: [...new Set(ecosystems.flatMap((e) => e.domains))],
          caches: [...new Set(ecosystems.flatMap((e) => e.caches))],
        },
      };
    }
    case 'codex-permissions': {
      // Codex's sandbox is in its config.toml beside the hooks file, at the same scope; it has no network filter to open.
      const root = ctx.scope === 'project' ? ctx.root : null;
      const gitHook = root === null ? null : gitHookPath(root, 'pre-push');
      const set = readOnlySet(root, ctx.env, ctx.protect, gitHook === null ? null : dirname(gitHook));
      const note = ctx.mode === 'install' ? codexHomeNote(ctx.env) : null;
      return {
        ok: true,
        intents: [hooks, codexBoxIntent(codexConfigPath(ctx.scope, ctx.root, ctx.env), set.paths)],
        box: { kind: box, unboxable: set.unboxable, domains: [], caches: [] },
        ...(note !== null && { notes: [note] }),
      };
    }
    default:
      return unreachable(box);
  }
}

/** Why a box installed in the user's settings does not hold a workspace's paths (checked with Claude Code 2.1.332: test/claude-box.test.ts). */
const USER_SCOPE_BOX_NOTE =
  "Claude Code resolves a relative sandbox path in the user's settings against its config directory (~/.claude), not the workspace: from there the box keeps VOUCH_HOME read-only but no workspace's .vouch/, vouch.yaml or settings, and the gate counts it as off; run `vouch install claude-code` in each project for the box";

/**
 * The events an earlier install wrote, for uninstall to state the same
 * edit (its record, and so the original bytes, are keyed by it): every
 * event, or those an older client got; every event when vouch has no
 * record of either (what is there is then taken out by its markers).
 */
function installedEvents(
  all: readonly HookEvent[],
  path: string,
  client: string,
  ctx: TargetContext,
  projectDirVariable: string | undefined,
): readonly HookEvent[] {
  const older = all.filter((event) => event.since === undefined);
  if (older.length === all.length) return all;
  const home = vouchHome(ctx.env);
  const recorded = (events: readonly HookEvent[]) =>
    readRecord(home, path, hookIntent(path, client, vouchWords(ctx.self, ctx, projectDirVariable), events).changes) !== undefined;
  return !recorded(all) && recorded(older) ? older : all;
}

/** Whether version a (x.y.z) is older than b. */
export function olderThan(a: string, b: string): boolean {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? 0;
    const y = pb[i] ?? 0;
    if (x !== y) return x < y;
  }
  return false;
}

/** Where git looks for a hook (core.hooksPath honoured), or null outside a work tree. */
export function gitHookPath(root: string, name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  try {
    // The repository's config is what is asked (core.hooksPath), so it is read; rev-parse reads no index and runs nothing it names.
    const out = childProcess().execFileSync('git', ['--no-pager', '-c', 'core.fsmonitor=false', 'rev-parse', '--git-path', `hooks/${name}`], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' },
    });
    return resolve(root, out.trim());
  } catch {
    return null;
  }
}
