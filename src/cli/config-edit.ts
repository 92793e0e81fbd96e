import { fail } from '../core/problem.js';
import { closest } from '../core/suggest.js';
import { installEdit, uninstallEdit } from '../install/edit.js';
import type { EditIntent, EditOutcome } from '../install/intent.js';
import type { Scope } from '../clients/descriptor.js';
import type { MissingPrerequisites } from '../install/box/prerequisites.js';
import { INSTALL_TARGETS, type BoxNotes } from '../install/targets/index.js';
import { loadSpec } from '../spec/load.js';
import { paint } from '../render/color.js';
import { outcomeJson, renderOutcome } from '../render/install.js';
import { findWorkspace } from '../workspace/find.js';
import { vouchHome } from '../workspace/home.js';
import { parse } from './args.js';
import { EXIT } from './exit.js';
import { err, json, out, type Cli } from './io.js';

/** `vouch install TARGET` and `vouch uninstall TARGET`: state the edit, then make it safely or refuse. */
export async function runConfigEdit(cli: Cli, args: readonly string[], mode: 'install' | 'uninstall'): Promise<number> {
  const { values, positionals } = parse(mode, args, {
    scope: { type: 'string' },
    json: { type: 'boolean' },
    'no-sandbox': { type: 'boolean' },
    exec: { type: 'boolean' },
    'pre-commit': { type: 'boolean' },
  });
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
    return fail({
      code: 'usage',
      message: `${name} cannot be ${mode}ed at scope "${values.scope}"`,
      where: `vouch ${mode} ${name}`,
      expected: target.scopes.join(' or '),
      found: values.scope ?? '',
    });
  }
  const found = findWorkspace(cli.dir ?? cli.io.cwd, cli.dir !== undefined);
  if (!found.ok && target.needsWorkspace(scope)) return fail(found.error);
  const self = cli.io.self;
  if (!self) {
    return fail({
      code: 'usage',
      message: 'vouch cannot tell the path of its own entry script, which the hook command must name',
      hint: 'run vouch through its executable (dist/cli.js)',
    });
  }
  if (values['pre-commit'] === true && name !== 'git-hooks') {
    return fail({
      code: 'usage',
      message: `--pre-commit is an option of git-hooks, not of ${name}`,
      where: `vouch ${mode} ${name} --pre-commit`,
      hint: `run \`vouch ${mode} git-hooks --pre-commit\``,
    });
  }
  const box = values['no-sandbox'] !== true;
  if (!box && !target.boxPrerequisites) {
    return fail({
      code: 'usage',
      message: `${name} has no sandbox of its own for vouch to turn on`,
      where: `vouch ${mode} ${name} --no-sandbox`,
      hint: `run \`vouch ${mode} ${name}\``,
    });
  }
  const exec = values.exec === true;
  if (exec && (mode !== 'install' || !target.canExec)) {
    return fail({
      code: 'usage',
      message:
        mode === 'install' ? `${name}'s hooks cannot rewrite its shell calls into vouch exec` : '--exec is for install; uninstall takes back either form',
      where: `vouch ${mode} ${name} --exec`,
      hint: mode === 'install' ? 'vouch install claude-code --no-sandbox --exec' : `run \`vouch ${mode} ${name}\``,
    });
  }
  if (exec && box) {
    return fail({
      code: 'usage',
      message: '--exec is for a client whose own sandbox is off: with the box on, its sandbox already holds what vouches for every command',
      where: `vouch ${mode} ${name} --exec`,
      hint: `vouch install ${name} --no-sandbox --exec`,
    });
  }
  if (mode === 'install' && box && target.boxPrerequisites) refuseWithoutPrerequisites(target.boxPrerequisites(cli.io.env), name!);
  const loaded = found.ok ? loadSpec(found.value.specPath) : null;
  const spec = loaded?.ok ? loaded.value : null;
  const intents = target.intents({
    scope,
    root: found.ok ? found.value.root : null,
    env: cli.io.env,
    self,
    mode,
    box,
    exec,
    protect: spec?.protect ?? [],
    programs: spec?.checks.map((check) => check.run[0] ?? '') ?? [],
    preCommit: values['pre-commit'] === true,
  });
  if (!intents.ok) return fail({ code: 'usage', message: intents.why, where: `vouch ${mode} ${name}`, hint: intents.hint });

  const code = applyIntents(cli, mode === 'uninstall' ? [...intents.intents].reverse() : intents.intents, mode, values.json === true, {
    target: name,
    scope,
    ...(mode === 'install' && target.boxPrerequisites && { sandbox: box }),
    ...(intents.notes && { notes: intents.notes }),
  });
  if (mode === 'install' && values.json !== true && target.boxPrerequisites)
    err(cli, box && intents.box ? boxNotes(intents.box, cli) : exec ? EXEC_NOTE : NO_BOX);
  if (values.json !== true) for (const note of intents.notes ?? []) err(cli, `vouch: ${note}`);
  return code;
}

/** Said by `install --no-sandbox --exec`: what the rewrite holds, and what it does not. */
const EXEC_NOTE =
  "vouch: --no-sandbox --exec: the client's sandbox is off, and each shell call of the agent is rewritten into `vouch exec -- /bin/sh -c CMD`: run under vouch.yaml's exec: policy in bubblewrap (what vouches read-only, the network as exec.network says), BLOCKED or recorded with a signed exec receipt. File tools (Write, Edit) are not shell calls: the write guard judges them. The agent's shell state (cd, variables) does not carry from one call to the next.";

/** Said by `install --no-sandbox`: what the gate gives up without the box. */
const NO_BOX =
  "vouch: --no-sandbox: the agent's commands are not boxed. Any command it runs (a script, python3 -c) can write .vouch/, VOUCH_HOME, vouch.yaml and the hook settings (disableAllHooks switches the gate off unseen); the gate still judges protected files and its wiring by result, and `vouch sessions --check` flags a session whose stop it never saw. `gate.require_box: true` in vouch.yaml blocks every stop of a session run without the box.";

function boxNotes(notes: BoxNotes, cli: Cli): string {
  if (notes.kind === 'codex-permissions') return codexBoxNotes(notes, cli);
  const p = paint(cli.color);
  const lines = [
    `${p.cyan('box:')} the agent's commands run in Claude Code's sandbox: writes outside the workspace and its $TMPDIR fail, and so do writes to what vouches (the ledger, vouch.yaml, protect: paths, hook settings, .git/config, VOUCH_HOME).`,
  ];
  lines.push(
    notes.domains.length > 0
      ? `  network: only ${notes.domains.join(', ')} (for the project's package managers; caches ${notes.caches.join(', ')} writable). Another registry or host the work needs: add it to sandbox.network.allowedDomains, e.g. "allowedDomains": [${[...notes.domains, 'registry.example.com'].map((d) => JSON.stringify(d)).join(', ')}]`
      : `  network: no host is reachable from the agent's commands. A registry or host the work needs: add it to sandbox.network.allowedDomains, e.g. "allowedDomains": ["registry.npmjs.org"]`,
  );
  for (const glob of notes.unboxable)
    lines.push(`  protect: ${glob.glob} is not read-only in the box (${glob.why}); the gate still compares it at every stop.`);
  return lines.join('\n');
}

function codexBoxNotes(notes: BoxNotes, cli: Cli): string {
  const p = paint(cli.color);
  const lines = [
    `${p.cyan('box:')} the agent's commands run in Codex's sandbox (permission profile "vouch", approval_policy "never": it cannot ask its way out): writes anywhere but the workspace, /tmp and $TMPDIR fail, and so do writes to what vouches (the ledger, vouch.yaml, protect: paths, hook settings, .git/config, VOUCH_HOME).`,
    '  Codex reads a project\'s .codex/config.toml only when it trusts the project: trust it once in Codex (or set projects."<path>".trust_level = "trusted" in $CODEX_HOME/config.toml), and launch without --sandbox, -P or --dangerously-bypass-approvals-and-sandbox, which override it unseen.',
    "  network: off for the agent's commands, as in every Codex profile until it says otherwise. A registry the work needs: add [permissions.vouch.network] with enabled = true (see Codex's permissions docs for a domain allow-list).",
  ];
  for (const glob of notes.unboxable)
    lines.push(`  protect: ${glob.glob} is not read-only in the box (${glob.why}); the gate still compares it at every stop.`);
  return lines.join('\n');
}

/** Claude Code with failIfUnavailable refuses to start without its sandbox: install says what to install first, or how to go without. */
function refuseWithoutPrerequisites(missing: MissingPrerequisites, name: string): void {
  if (!missing.unsupported && missing.programs.length === 0) return;
  const packages = missing.programs.map((program) => (program === 'bwrap' ? 'bubblewrap' : program));
  fail({
    code: 'sandbox_unavailable',
    message: missing.unsupported
      ? `${name}'s sandbox does not run on ${process.platform} (Linux needs bubblewrap and socat; macOS has Seatbelt built in)`
      : `${name}'s sandbox needs ${packages.join(' and ')} on PATH, and ${missing.programs.length === 1 ? 'it is' : 'they are'} not there (looked for ${missing.programs.map((p) => `\`${p}\``).join(', ')})`,
    where: `vouch install ${name}`,
    expected: 'bubblewrap (`bwrap`) and `socat` on PATH (Linux)',
    hint: missing.unsupported
      ? `install the gate without the box: \`vouch install ${name} --no-sandbox\` (and see what that gives up in docs/gate.md)`
      : `install them (Debian, Ubuntu: \`apt-get install bubblewrap socat\`; Fedora: \`dnf install bubblewrap socat\`), then run this again; or \`vouch install ${name} --no-sandbox\` for the gate without the box`,
  });
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
