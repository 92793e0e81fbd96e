import { actorOf } from '../../../cards/roles.js';
import type { CardContext } from '../../../cards/context.js';
import { fail } from '../../../core/problem.js';
import { cardContext as sessionCardContext } from '../../../session/contexts.js';
import type { Workspace } from '../../../workspace/find.js';
import type { Cli } from '../../io.js';

/** The card engine's context for one CLI invocation: the workspace, and who acts (VOUCH_ROLE, or the default). */
export function cardContext(cli: Cli, workspace: Workspace = cli.session.workspace()): CardContext {
  const by = actorOf(cli.io.env, 'cli');
  if (!by.ok) return fail(by.error);
  return sessionCardContext(cli.session, workspace, by.value);
}

/** The one card id a subcommand takes. */
export function cardIdArg(command: string, positionals: readonly string[]): string {
  if (positionals.length !== 1) {
    return fail({
      code: 'usage',
      message: positionals.length === 0 ? `vouch card ${command} needs a card id` : `vouch card ${command} takes one card id, got ${positionals.length}`,
      where: `vouch card ${command}`,
      expected: 'ID, as `vouch card list` shows it (c-xxxxxxxx)',
      hint: `run \`vouch card ${command} --help\``,
    });
  }
  return positionals[0]!;
}

/** Repeatable values, each also split on commas: --proof tests,lint --proof build. */
export function listFlag(values: readonly string[] | undefined): string[] {
  return (values ?? [])
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
}
