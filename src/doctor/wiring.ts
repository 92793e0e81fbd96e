import type { Scope } from '../clients/descriptor.js';
import { intentState } from '../install/edit.js';
import type { EditIntent } from '../install/intent.js';
import { listRecords } from '../install/store.js';
import type { SelfCommand } from '../install/targets/agent-hooks.js';
import { INSTALL_TARGETS, type InstallTarget } from '../install/targets/index.js';
import type { DoctorLine } from './line.js';

/** What the wiring lines need: the workspace (null: none), the spec's protect: and programs, and vouch's own command. */
export interface WiringInput {
  readonly root: string | null;
  readonly env: NodeJS.ProcessEnv;
  readonly home: string;
  readonly self: SelfCommand;
  readonly protect: readonly string[];
  readonly programs: readonly string[];
  readonly requireBox: boolean;
}

/** A target at one scope, as it stands: its line, and whether the client's box is in force there. */
interface TargetState {
  readonly line: DoctorLine;
  readonly boxOn: boolean;
}

const same = (a: EditIntent, b: EditIntent) => a.path === b.path && JSON.stringify(a.changes) === JSON.stringify(b.changes);

/**
 * One line per install target and scope (every hooked client of the
 * registry, then git's hooks): the intents `vouch install` would state now,
 * each read against its file. A line fails when vouch's install record
 * promises an edit that is no longer in force, or when only part of a
 * target is; a target never installed is `off`.
 */
export function targetLines(input: WiringInput): { lines: DoctorLine[]; boxOn: boolean } {
  const lines: DoctorLine[] = [];
  let boxOn = false;
  for (const [name, target] of Object.entries(INSTALL_TARGETS)) {
    for (const scope of target.scopes) {
      if (target.needsWorkspace(scope) && input.root === null) continue;
      const state = targetState(name, target, scope, input);
      lines.push(state.line);
      boxOn ||= state.boxOn;
    }
  }
  return { lines, boxOn };
}

function targetState(name: string, target: InstallTarget, scope: Scope, input: WiringInput): TargetState {
  const area = target.scopes.length > 1 ? `${name} (${scope})` : name;
  const context = { scope, root: input.root, env: input.env, self: input.self, mode: 'install' as const, protect: input.protect, programs: input.programs };
  // A client installed with --no-sandbox --exec has the rewriting form of its exec event's hook: judged by whichever form is there.
  const plain = target.intents({ ...context, box: false, exec: false });
  const rewriting = target.canExec ? target.intents({ ...context, box: false, exec: true }) : null;
  const inForceOf = (intents: typeof plain) =>
    intents.ok ? intents.intents.filter((intent) => intentState(intent, input.home).state === 'in_force').length : -1;
  const hooks = rewriting !== null && inForceOf(rewriting) > inForceOf(plain) ? rewriting : plain;
  if (!hooks.ok) return { line: { area, status: 'off', reason: 'not_applicable', detail: hooks.why }, boxOn: false };
  const all = target.intents({ ...context, box: true, exec: hooks === rewriting });
  const box = all.ok ? all.intents.filter((intent) => !hooks.intents.some((hook) => same(hook, intent))) : [];
  const hookStates = hooks.intents.map((intent) => ({ intent, ...intentState(intent, input.home) }));
  const boxStates = box.map((intent) => ({ intent, ...intentState(intent, input.home) }));
  const where = [...new Set(hooks.intents.map((intent) => intent.path))].join(', ');
  const lost = [...hookStates, ...boxStates].filter((s) => s.promised && s.state !== 'in_force');
  if (lost.length > 0) {
    const why = lost.map((s) => `${s.intent.path}: ${s.state === 'absent' ? 'vouch installed it and it is gone' : (s.why ?? s.state)}`).join('; ');
    return {
      line: {
        area,
        status: 'fail',
        reason: 'wiring_lost',
        detail: `installed, no longer in force: ${why}; run \`vouch install ${name}${scope === target.scopes[0] ? '' : ` --scope ${scope}`}\``,
      },
      boxOn: false,
    };
  }
  const unreadable = hookStates.find((s) => s.state === 'unreadable');
  if (unreadable)
    return {
      line: { area, status: 'fail', reason: 'wiring_unreadable', detail: `${unreadable.intent.path}: ${unreadable.why ?? 'cannot be read'}` },
      boxOn: false,
    };
  const inForce = hookStates.filter((s) => s.state === 'in_force').length;
  if (inForce === 0) {
    const other = hookStates.find((s) => s.state === 'other');
    return other
      ? {
          line: {
            area,
            status: 'off',
            reason: 'wired_other',
            detail: `${other.intent.path} holds another vouch entry than this vouch would write (${other.why ?? 'a different command'})`,
          },
          boxOn: false,
        }
      : { line: { area, status: 'off', reason: 'not_wired', detail: `nothing in ${where}` }, boxOn: false };
  }
  if (inForce < hookStates.length) {
    const missing = hookStates.filter((s) => s.state !== 'in_force').map((s) => s.intent.summary);
    return { line: { area, status: 'fail', reason: 'partly_wired', detail: `in ${where}, missing: ${missing.join('; ')}` }, boxOn: false };
  }
  const boxOn = boxStates.length > 0 && boxStates.every((s) => s.state === 'in_force');
  if (boxStates.length > 0 && !boxOn) {
    return {
      line: {
        area,
        status: input.requireBox ? 'fail' : 'ok',
        reason: 'wired_no_box',
        detail: `the gate in ${where}; the box is off (gate.require_box ${input.requireBox ? 'is true: every stop is blocked, box_off' : 'is false'})`,
      },
      boxOn,
    };
  }
  return { line: { area, status: 'ok', reason: 'wired', detail: `the gate in ${where}${boxOn ? '; the box on' : ''}` }, boxOn };
}

/** The key an MCP entry sits under, in each client's format. */
const MCP_KEYS = new Set(['mcpServers', 'mcp_servers']);

/**
 * The MCP entries vouch wrote (`install mcp --write`), from its install
 * records: one line each, failing when the entry is no longer there. Only
 * entries in this workspace or in a user-wide file are this workspace's.
 */
export function mcpLines(input: WiringInput): DoctorLine[] {
  const lines: DoctorLine[] = [];
  for (const record of listRecords(input.home)) {
    const first = record.changes[0];
    if (first === undefined || first.kind === 'file' || !MCP_KEYS.has(first.at[0] ?? '')) continue;
    const local = input.root !== null && record.path.startsWith(`${input.root}/`);
    const name = first.at[first.at.length - 1] ?? '';
    const state = intentState({ path: record.path, format: record.format, summary: record.summary, changes: record.changes, manual: [] }, input.home);
    if (!local && input.root !== null && !record.summary.includes(input.root)) continue;
    lines.push(
      state.state === 'in_force'
        ? { area: 'mcp', status: 'ok', reason: 'wired', detail: `the server "${name}" in ${record.path}` }
        : {
            area: 'mcp',
            status: 'fail',
            reason: 'wiring_lost',
            detail: `the server "${name}" vouch wrote in ${record.path} is ${state.state === 'absent' ? 'gone' : `changed (${state.why ?? state.state})`}`,
          },
    );
  }
  if (lines.length === 0)
    lines.push({ area: 'mcp', status: 'off', reason: 'not_wired', detail: 'no entry written by `vouch install mcp --write` for this workspace' });
  return lines;
}
