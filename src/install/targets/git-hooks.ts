import { join, relative } from 'node:path';
import { findRepository } from '../../core/git-command.js';
import { shellLine } from '../../core/quote.js';
import type { EditIntent } from '../intent.js';
import type { SelfCommand } from './agent-hooks.js';
import { hasProjectBin, homePrefix, PROJECT_BIN } from './hook-command.js';

/**
 * vouch and its workspace, as the hook names them. git runs a hook from the
 * top of the work tree, so in a workspace that depends on vouch the
 * project's own node_modules/.bin/vouch is named relative to it (a hooks
 * directory a team commits, core.hooksPath, then holds no path of this
 * machine); otherwise the absolute node and entry script that ran install.
 */
function invocation(root: string, self: SelfCommand): string {
  const top = findRepository(root)?.top;
  if (top === undefined || !hasProjectBin(root)) return shellLine([self.node, self.entry, '-C', root]);
  const below = relative(top, root);
  return shellLine([`./${below === '' ? PROJECT_BIN : join(below, PROJECT_BIN)}`, '-C', below === '' ? '.' : below]);
}

/** The git hooks vouch installs: pre-push always, pre-commit when asked (`--pre-commit`). */
export type GitHookName = 'pre-push' | 'pre-commit';

const WHAT: Record<GitHookName, { readonly says: string; readonly summary: string }> = {
  'pre-push': {
    says: '# vouch: refuses a push while a blocking check is not a fresh PASS.',
    summary: 'refuse git push while a blocking check is not a PASS for the commits pushed',
  },
  'pre-commit': {
    says: '# vouch: refuses a commit while a blocking check is not a PASS for the staged files.',
    summary: 'refuse git commit while a blocking check is not a PASS for the staged files',
  },
};

/**
 * A git hook, a file vouch owns whole. git's stdin (pre-push's ref lines)
 * reaches vouch as the hook's. An existing hook of someone else's is never
 * overwritten or merged; the manual steps say which line to add to it.
 */
export function gitHookIntent(name: GitHookName, path: string, workspaceRoot: string, self: SelfCommand, env: NodeJS.ProcessEnv): EditIntent {
  const line = `${homePrefix(env)}${invocation(workspaceRoot, self)} ${shellLine(['hook', 'git', name])} || exit 1`;
  const content = [
    '#!/bin/sh',
    WHAT[name].says,
    `# Installed by \`vouch install git-hooks${name === 'pre-commit' ? ' --pre-commit' : ''}\`; remove with \`vouch uninstall git-hooks\`.`,
    line,
    '',
  ].join('\n');
  return {
    path,
    format: 'script',
    summary: WHAT[name].summary,
    changes: [{ kind: 'file', content, mode: 0o755 }],
    manual: [`add this line to ${path} (keep it executable): ${line}`],
  };
}
