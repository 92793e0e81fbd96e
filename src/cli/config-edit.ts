import { fail } from '../core/problem.js';
import { closest } from '../core/suggest.js';
import { installEdit, uninstallEdit } from '../install/edit.js';
import type { EditIntent, EditOutcome } from '../install/intent.js';
import type { Scope } from '../install/targets/claude-code.js';
import { INSTALL_TARGETS } from '../install/targets/index.js';
import { paint } from '../render/color.js';
import { outcomeJson, renderOutcome } from '../render/install.js';
import { findWorkspace } from '../workspace/find.js';
import { vouchHome } from '../workspace/home.js';
import { parse } from './args.js';
import { EXIT } from './exit.js';
import { err, json, out, type Cli } from './io.js';

/** `vouch install TARGET` and `vouch uninstall TARGET`: state the edit, then make it safely or refuse. */
export async function runConfigEdit(cli: Cli, args: readonly string[], mode: 'install' | 'uninstall'): Promise<number> {
  const { values, positionals } = parse(mode, args, { scope: { type: 'string' }, json: { type: 'boolean' } });
  // `install mcp` has its own command module (cli/commands/install-mcp.ts); it is named here so a typo finds it.
  const names = [...Object.keys(INSTALL_TARGETS), 'mcp'];
  const [name, ...extra] = positionals;
  const target = name ? INSTALL_TARGETS[name] : undefined;
  if (!target || extra.length > 0) {
    const guess = name && !target ? closest(name, names) : undefined;
    return fail({
      code: 'usage',
      message: name ? `unknown ${mode} target "${positionals.join(' ')}"${guess ? ` (did you mean "${guess}"?)` : ''}` : `what should vouch ${mode}?`,
      where: `vouch ${mode}`,
      expected: `one of: ${names.join(', ')}`,
      hint: `run \`vouch ${mode} --help\``,
    });
  }
  const scope = (values.scope ?? target.scopes[0]) as Scope;
  if (!target.scopes.includes(scope)) {
    return fail({ code: 'usage', message: `${name} cannot be ${mode}ed at scope "${values.scope}"`, where: `vouch ${mode} ${name}`, expected: target.scopes.join(' or '), found: values.scope ?? '' });
  }
  const found = findWorkspace(cli.dir ?? cli.io.cwd, cli.dir !== undefined);
  if (!found.ok && target.needsWorkspace(scope)) return fail(found.error);
  const self = cli.io.self;
  if (!self) {
    return fail({ code: 'usage', message: 'vouch cannot tell the path of its own entry script, which the hook command must name', hint: 'run vouch through its executable (dist/cli.js)' });
  }
  const intents = target.intents({ scope, root: found.ok ? found.value.root : null, env: cli.io.env, self });
  if (!intents.ok) return fail({ code: 'usage', message: intents.why, where: `vouch ${mode} ${name}`, hint: intents.hint });

  return applyIntents(cli, intents.intents, mode, values.json === true, { target: name, scope });
}

/**
 * Makes (or takes back) each edit through the safe editor, saying first what
 * it will do; a refusal goes to stderr with its manual steps. With `json`,
 * stdout is one object: `about`, `ok` and one result per edit.
 * Exit 3 when any edit was refused.
 */
export function applyIntents(cli: Cli, intents: readonly EditIntent[], mode: 'install' | 'uninstall', asJson: boolean, about: Record<string, unknown>): number {
  const p = paint(cli.color);
  const home = vouchHome(cli.io.env);
  const outcomes: EditOutcome[] = [];
  for (const intent of intents) {
    if (!asJson) out(cli, `${mode === 'install' ? 'vouch will' : 'vouch will undo'}: ${intent.summary}\n  in ${intent.path}`);
    const outcome = mode === 'install' ? installEdit(intent, { home }) : uninstallEdit(intent, { home });
    outcomes.push(outcome);
    if (!asJson) (outcome.kind === 'refused' ? err : out)(cli, renderOutcome(outcome, p));
  }
  const refused = outcomes.some((o) => o.kind === 'refused');
  if (asJson) json(cli, { ok: !refused, ...about, results: outcomes.map(outcomeJson) });
  return refused ? EXIT.refused : EXIT.ok;
}
