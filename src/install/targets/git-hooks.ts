import { shellLine } from '../../core/quote.js';
import type { EditIntent } from '../intent.js';
import type { SelfCommand } from './agent-hooks.js';

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
export function gitHookIntent(name: GitHookName, path: string, workspaceRoot: string, self: SelfCommand): EditIntent {
  const line = `${shellLine([self.node, self.entry, '-C', workspaceRoot, 'hook', 'git', name])} || exit 1`;
  const content = ['#!/bin/sh', WHAT[name].says, `# Installed by \`vouch install git-hooks${name === 'pre-commit' ? ' --pre-commit' : ''}\`; remove with \`vouch uninstall git-hooks\`.`, line, ''].join('\n');
  return {
    path,
    format: 'script',
    summary: WHAT[name].summary,
    changes: [{ kind: 'file', content, mode: 0o755 }],
    manual: [`add this line to ${path} (keep it executable): ${line}`],
  };
}
