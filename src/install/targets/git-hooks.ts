import { shellLine } from '../../core/quote.js';
import type { EditIntent } from '../intent.js';
import type { SelfCommand } from './agent-hooks.js';

/**
 * git's pre-push hook, a file vouch owns whole: the push goes ahead only
 * while every blocking check is a fresh PASS. An existing pre-push hook of
 * someone else's is never overwritten or merged; the manual steps say which
 * line to add to it.
 */
export function prePushIntent(path: string, workspaceRoot: string, self: SelfCommand): EditIntent {
  const line = `${shellLine([self.node, self.entry, '-C', workspaceRoot, 'hook', 'git', 'pre-push'])} || exit 1`;
  const content = [
    '#!/bin/sh',
    '# vouch: refuses a push while a blocking check is not a fresh PASS.',
    '# Installed by `vouch install git-hooks`; remove with `vouch uninstall git-hooks`.',
    line,
    '',
  ].join('\n');
  return {
    path,
    format: 'script',
    summary: 'refuse git push while a blocking check is not a fresh PASS',
    changes: [{ kind: 'file', content, mode: 0o755 }],
    manual: [`add this line to ${path} (keep it executable): ${line}`],
  };
}
