import { childProcess } from '../../core/builtins.js';
import { dirname, resolve } from 'node:path';
import { claudeBoxIntent } from '../box/claude-box.js';
import { missingPrerequisites, type MissingPrerequisites } from '../box/prerequisites.js';
import { readOnlySet, type UnboxableGlob } from '../box/read-only.js';
import { ecosystemsOf } from '../box/registries.js';
import type { EditIntent } from '../intent.js';
import type { SelfCommand } from './agent-hooks.js';
import { claudeCodeIntent, claudeSettingsPath, type Scope } from './claude-code.js';
import { codexHooksPath, codexIntent } from './codex.js';
import { prePushIntent } from './git-hooks.js';

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
  /** The spec's protect: globs and the programs its checks run (empty without a spec that loads). */
  readonly protect: readonly string[];
  readonly programs: readonly string[];
}

/** What the edits leave out or let through, said when they are made: protect: globs the box cannot hold, the registries let in. */
export interface BoxNotes {
  readonly unboxable: readonly UnboxableGlob[];
  readonly domains: readonly string[];
  readonly caches: readonly string[];
}

export type TargetIntents =
  | { readonly ok: true; readonly intents: readonly EditIntent[]; readonly box?: BoxNotes }
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
}

export const INSTALL_TARGETS: Readonly<Record<string, InstallTarget>> = {
  'claude-code': {
    summary: "Claude Code hooks: the Stop gate, the write guard and the trail (in .claude/settings.json, or the user's settings)",
    scopes: ['project', 'user'],
    needsWorkspace: (scope) => scope === 'project',
    intents: (ctx) => claudeCodeIntents(ctx),
    boxPrerequisites: (env) => missingPrerequisites(env),
  },
  codex: {
    summary: "Codex hooks: the Stop gate, the write guard and the trail (in .codex/hooks.json, or the user's)",
    scopes: ['project', 'user'],
    needsWorkspace: (scope) => scope === 'project',
    intents: (ctx) => ({ ok: true, intents: [codexIntent(codexHooksPath(ctx.scope, ctx.root, ctx.env), ctx.self)] }),
  },
  'git-hooks': {
    summary: 'a git pre-push hook that refuses a push while a blocking check is not a fresh PASS',
    scopes: ['project'],
    needsWorkspace: () => true,
    intents: (ctx) => {
      const path = gitHookPath(ctx.root!, 'pre-push');
      if (path === null) return { ok: false, why: `${ctx.root} is not inside a git work tree`, hint: 'run `git init` first, or skip git hooks' };
      return { ok: true, intents: [prePushIntent(path, ctx.root!, ctx.self)] };
    },
  },
};

/**
 * The hooks, and (unless `--no-sandbox`) the box: Claude Code's own sandbox
 * with what vouches read-only. Uninstall states both, so it takes back
 * whichever was installed.
 */
function claudeCodeIntents(ctx: TargetContext): TargetIntents {
  const path = claudeSettingsPath(ctx.scope, ctx.root, ctx.env);
  const hooks = claudeCodeIntent(path, ctx.self);
  if (!ctx.box && ctx.mode === 'install') return { ok: true, intents: [hooks] };
  const root = ctx.scope === 'project' ? ctx.root : null;
  const gitHook = root === null ? null : gitHookPath(root, 'pre-push');
  const set = readOnlySet(root, ctx.env, ctx.protect, gitHook === null ? null : dirname(gitHook));
  const ecosystems = ecosystemsOf(ctx.root, ctx.programs);
  const box = claudeBoxIntent(path, { readOnly: set.paths, ecosystems });
  return {
    ok: true,
    intents: [hooks, box],
    box: { unboxable: set.unboxable, domains: [...new Set(ecosystems.flatMap((e) => e.domains))], caches: [...new Set(ecosystems.flatMap((e) => e.caches))] },
  };
}

/** Where git looks for a hook (core.hooksPath honoured), or null outside a work tree. */
export function gitHookPath(root: string, name: string): string | null {
  try {
    // The repository's config is what is asked (core.hooksPath), so it is read; rev-parse reads no index and runs nothing it names.
    const out = childProcess().execFileSync('git', ['--no-pager', '-c', 'core.fsmonitor=false', 'rev-parse', '--git-path', `hooks/${name}`], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' },
    });
    return resolve(root, out.trim());
  } catch {
    return null;
  }
}
