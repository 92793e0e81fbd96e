import { readFileSync } from 'node:fs';
import { sha256 } from '../../core/digest.js';
import { lineDiff } from '../../core/line-diff.js';
import { fail } from '../../core/problem.js';
import { rebaselineWorkspace } from '../../gate/session-record.js';
import { visible } from '../../render/visible.js';
import { pinsFor } from '../../trust/pins.js';
import { allowSpec, trustState } from '../../trust/trust.js';
import { pinChanges } from '../../trust/pin-changes.js';
import { readSpecCopy, writeSpecCopy } from '../../trust/spec-copy.js';
import { allowChangeLines, venvWarnings } from '../../render/allow-changes.js';
import { vouchHome } from '../../workspace/home.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { err, json, out, type Cli } from '../io.js';
import { refuseInAgentRun } from '../person-only.js';

export const help = `usage: vouch allow [--json]

Trusts this exact vouch.yaml (its SHA-256) for this workspace, like
\`direnv allow\`. Until then nothing runs: the spec decides which commands run
on this machine, so a person reads it and allows it. Editing the spec (or a
\`git pull\` that changes it) withdraws trust until it is allowed again.

The record lives under VOUCH_HOME, outside the repository. An invalid spec
cannot be allowed: fix it first (\`vouch checks\` shows every problem).

Refused inside an agent run (Claude Code, Codex, Cursor, Gemini CLI, or
AI_AGENT set): exit 4, agent_run. An agent must not allow its own edit of
the spec; a person runs this in their own terminal.

Allowing also pins what runs: each check's command as it resolves now on
your PATH (checks then run with this PATH, whoever starts them), with the
SHA-256 of the file it resolves to, and the digests of the files that
configure the checks' tools (.npmrc, pip.conf, pytest.ini, ... and
tool_configs: in vouch.yaml), and of every file each check's inputs: match
(and the set matched). A different resolution, binary, tool config or input
makes the check UNKNOWN (executable_changed, tool_config_changed,
input_changed) until you allow again.

It says what changed since the last allow: the spec's added and removed
lines (the allowed bytes are kept under VOUCH_HOME/allowed-specs for that)
and every pin that moved, with a warning on stderr when a program leaves a
virtualenv (the next verify would run another interpreter). "(already
allowed)" means neither the spec nor any pin moved. Agent sessions vouch gates in this
workspace take a new baseline of the protected files and hook wiring (see
\`vouch sessions\`).`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values } = parse('allow', args, { json: { type: 'boolean' } }, false);
  refuseInAgentRun(cli.io.env, 'vouch allow');
  const workspace = cli.session.workspace();
  const spec = await cli.session.spec(workspace);
  const home = vouchHome(cli.io.env);
  const before = trustState(home, workspace.root, spec.sha256);
  if (!before.ok) return fail(before.error);
  const pins = await pinsFor(spec.checks, workspace.root, spec.toolConfigs, cli.io.env);
  // What moved since the last allow: the spec's lines (from the copy kept then) and every pin.
  const previous = before.value.kind === 'never' ? undefined : before.value.record;
  const moved = pinChanges(previous?.pins, pins, workspace.root);
  const bytes = readFileSync(spec.path);
  const sameBytes = sha256(bytes) === spec.sha256;
  const copy = previous ? readSpecCopy(home, workspace.root) : undefined;
  const diff =
    previous && previous.spec_sha256 !== spec.sha256 && copy !== undefined && sha256(copy) === previous.spec_sha256 && sameBytes
      ? lineDiff(copy, bytes.toString('utf8'))
      : null;
  const allowed = allowSpec(home, workspace.root, spec.sha256, pins);
  if (!allowed.ok) return fail(allowed.error);
  // Only bytes that hash to what was allowed are kept (the file may have changed since it was read).
  if (sameBytes) writeSpecCopy(home, workspace.root, bytes);
  // The person accepts the workspace as it is: sessions gated here compare their protected files and wiring with now.
  const renewed = await rebaselineWorkspace(home, workspace, spec.protect, cli.io.env);
  const unresolved = Object.entries(pins.executables).filter(([, pin]) => pin.path === null);
  if (values.json) {
    json(cli, {
      ok: true,
      workspace: workspace.root,
      spec_sha256: spec.sha256,
      previously: before.value.kind,
      executables: Object.fromEntries(Object.entries(pins.executables).map(([id, pin]) => [id, { command: pin.command, path: pin.path, sha256: pin.sha256 }])),
      inputs: Object.fromEntries(Object.entries(pins.inputs).map(([id, pin]) => [id, { globs: pin.globs, files: pin.files }])),
      sessions_rebaselined: renewed,
      changes: {
        spec:
          diff === null
            ? null
            : { added: diff.filter((l) => l.kind === '+').map((l) => l.text), removed: diff.filter((l) => l.kind === '-').map((l) => l.text) },
        pins: moved,
      },
    });
  } else {
    // "(already allowed)" only when neither the spec nor any pin moved.
    const was =
      before.value.kind === 'allowed'
        ? moved.length === 0
          ? ' (already allowed)'
          : ' (spec unchanged; pins moved)'
        : before.value.kind === 'changed'
          ? ' (replacing an earlier version)'
          : '';
    const lines = [
      `allowed ${spec.path}${was}`,
      `  sha256 ${spec.sha256}`,
      `  ${spec.checks.length} check${spec.checks.length === 1 ? '' : 's'}: ${spec.checks.map((c) => c.id).join(', ')}`,
    ];
    lines.push(...allowChangeLines(before.value.kind === 'changed', diff, moved));
    const commands = [...new Map(Object.values(pins.executables).map((pin) => [pin.command, pin.path])).entries()];
    lines.push(`  runs: ${commands.map(([command, path]) => `${command} -> ${path ?? 'NOT FOUND'}`).join(', ')}`);
    for (const [id, pin] of Object.entries(pins.inputs)) {
      const files = Object.keys(pin.files);
      lines.push(
        `  ${id} inputs: ${files.length === 0 ? 'none present yet' : files.slice(0, 5).join(', ') + (files.length > 5 ? ` and ${files.length - 5} more` : '')} (a change is UNKNOWN until allowed again)`,
      );
    }
    if (renewed > 0)
      lines.push(
        `  ${renewed} agent session${renewed === 1 ? '' : 's'} gated here now compare${renewed === 1 ? 's' : ''} protected files and hook wiring with what they are now`,
      );
    out(cli, visible(lines.join('\n')));
    for (const warning of venvWarnings(moved)) err(cli, warning);
    if (unresolved.length > 0)
      err(
        cli,
        `vouch: warning: ${unresolved.map(([id, pin]) => `${id}'s command ${pin.command}`).join(', ')} is not found on PATH: the check will be UNKNOWN (spawn_error) until it is installed and allowed again`,
      );
  }
  return EXIT.ok;
}
