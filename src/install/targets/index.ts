import { childProcess } from '../../core/builtins.js';
import { resolve } from 'node:path';
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
}

export type TargetIntents = { readonly ok: true; readonly intents: readonly EditIntent[] } | { readonly ok: false; readonly why: string; readonly hint: string };

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
}

export const INSTALL_TARGETS: Readonly<Record<string, InstallTarget>> = {
  'claude-code': {
    summary: "Claude Code hooks: the Stop gate, the write guard and the trail (in .claude/settings.json, or the user's settings)",
    scopes: ['project', 'user'],
    needsWorkspace: (scope) => scope === 'project',
    intents: (ctx) => ({ ok: true, intents: [claudeCodeIntent(claudeSettingsPath(ctx.scope, ctx.root, ctx.env), ctx.self)] }),
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
