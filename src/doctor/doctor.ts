import { existsSync } from 'node:fs';
import { auditLedger } from '../audit/audit.js';
import { homeKeyring } from '../crypto/keyring.js';
import { listKeys } from '../crypto/keystore.js';
import { missingPrerequisites } from '../install/box/prerequisites.js';
import type { SelfCommand } from '../install/targets/agent-hooks.js';
import type { Ledger } from '../ledger/ledger.js';
import { BWRAP } from '../sandbox/system.js';
import type { Spec } from '../spec/model.js';
import { executableDrift, toolConfigDrift } from '../trust/pins.js';
import { notAllowedWords, trustState } from '../trust/trust.js';
import type { DoctorLine, DoctorReport } from './line.js';
import { mcpLines, targetLines } from './wiring.js';

/** What `vouch doctor` looks at: the workspace (if any) and its spec, VOUCH_HOME, and how to open the ledger read-only. */
export interface DoctorInput {
  readonly root: string | null;
  /** The spec, or why it cannot be used (null with no workspace). */
  readonly spec: { readonly ok: true; readonly value: Spec } | { readonly ok: false; readonly why: string } | null;
  readonly env: NodeJS.ProcessEnv;
  readonly home: string;
  readonly self: SelfCommand;
  /** The ledger, read-only; undefined when nothing was recorded yet. */
  readonly openLedger: () => Promise<Ledger | undefined>;
  /** Where that ledger is, in words. */
  readonly ledgerName: string;
}

/**
 * What is wired here and whether it holds, one line each: the workspace and
 * its spec, trust and pins, every client's wiring (from the registry), the
 * MCP entries, the box, keys, the ledger and its audit, the sandbox's
 * programs. Reads only: it writes nothing, runs no check.
 */
export async function doctor(input: DoctorInput): Promise<DoctorReport> {
  const lines: DoctorLine[] = [];
  const spec = input.spec?.ok ? input.spec.value : null;
  if (input.root === null)
    lines.push({ area: 'workspace', status: 'off', reason: 'no_workspace', detail: 'no vouch.yaml here or above: only the user-wide wiring is shown' });
  else if (input.spec && !input.spec.ok) lines.push({ area: 'workspace', status: 'fail', reason: 'spec_invalid', detail: `${input.root}: ${input.spec.why}` });
  else lines.push({ area: 'workspace', status: 'ok', reason: 'workspace_found', detail: `${input.root} (${spec?.checks.length ?? 0} checks)` });

  if (input.root !== null && spec) lines.push(...trustLines(input.home, input.root, spec, input.env));

  const wiring = {
    root: input.root,
    env: input.env,
    home: input.home,
    self: input.self,
    protect: spec?.protect ?? [],
    programs: spec?.checks.map((check) => check.run[0] ?? '') ?? [],
    requireBox: spec?.gate.requireBox ?? false,
  };
  const targets = targetLines(wiring);
  lines.push(...targets.lines, ...mcpLines(wiring));
  if (spec?.gate.requireBox && !targets.boxOn) {
    lines.push({
      area: 'box',
      status: 'fail',
      reason: 'box_required_off',
      detail:
        'gate.require_box is true and no client here runs its commands in its box: every stop is blocked (box_off); run `vouch install claude-code` or `vouch install codex`',
    });
  }

  lines.push(keysLine(input.home, spec));
  if (input.root !== null && spec) lines.push(await ledgerLine(input, spec));
  lines.push(sandboxLine(input.env, targets.boxOn, spec));
  return { ok: lines.every((line) => line.status !== 'fail'), workspace: input.root, lines };
}

function trustLines(home: string, root: string, spec: Spec, env: NodeJS.ProcessEnv): DoctorLine[] {
  const trust = trustState(home, root, spec.sha256);
  if (!trust.ok) return [{ area: 'trust', status: 'fail', reason: 'not_trusted', detail: trust.error.message }];
  if (trust.value.kind !== 'allowed')
    return [
      {
        area: 'trust',
        status: 'fail',
        reason: 'not_trusted',
        detail: `${notAllowedWords(trust.value.kind)}: nothing runs and no stop passes until a person runs \`vouch allow\``,
      },
    ];
  const pins = trust.value.record.pins;
  const drift: string[] = [];
  for (const check of spec.checks) {
    const moved = executableDrift(pins, check, root);
    if (moved) drift.push(`${check.id}: ${moved}`);
  }
  for (const [id, paths] of toolConfigDrift(pins, spec.checks, root, spec.toolConfigs, env)) drift.push(`${id}: ${paths.join(', ')} changed`);
  return [
    { area: 'trust', status: 'ok', reason: 'trusted', detail: `vouch.yaml allowed ${trust.value.record.allowed_at}` },
    drift.length > 0
      ? { area: 'pins', status: 'fail', reason: 'pins_drift', detail: `not as allowed (those checks are UNKNOWN until \`vouch allow\`): ${drift.join('; ')}` }
      : { area: 'pins', status: 'ok', reason: 'pins_held', detail: `every check's program and tool configs as allowed (${spec.checks.length} checks)` },
  ];
}

function keysLine(home: string, spec: Spec | null): DoctorLine {
  const keys = listKeys(home).flatMap((listing) => (listing.ok ? [listing.key] : []));
  if (spec?.signingKey && !keys.some((key) => key.name === spec.signingKey && key.hasPrivate)) {
    return {
      area: 'keys',
      status: 'fail',
      reason: 'signing_key_missing',
      detail: `signing_key: ${spec.signingKey} has no private key in ${home}/keys: receipts cannot be signed`,
    };
  }
  if (keys.length === 0)
    return { area: 'keys', status: 'off', reason: 'no_keys', detail: `no key in ${home}/keys (receipts unsigned; \`vouch keys generate\`)` };
  return {
    area: 'keys',
    status: 'ok',
    reason: 'keys_present',
    detail: keys.map((key) => `${key.name}${key.hasPrivate ? ' (signs)' : ' (public)'}`).join(', '),
  };
}

async function ledgerLine(input: DoctorInput, spec: Spec): Promise<DoctorLine> {
  let ledger: Ledger | undefined;
  try {
    ledger = await input.openLedger();
    if (!ledger) return { area: 'ledger', status: 'off', reason: 'ledger_empty', detail: `${input.ledgerName}: nothing recorded yet` };
    const report = await auditLedger(ledger, { keyring: homeKeyring(input.home), requireSignature: spec.requireSignature });
    const first = report.findings[0];
    if (first)
      return {
        area: 'ledger',
        status: 'fail',
        reason: 'ledger_findings',
        detail: `${input.ledgerName}: ${report.findings.length} audit finding(s), first: ${first.code}${first.seq === null ? '' : ` at #${first.seq}`} (${first.detail}); run \`vouch audit\``,
      };
    return {
      area: 'ledger',
      status: 'ok',
      reason: 'ledger_intact',
      detail: `${input.ledgerName}: ${report.entries} entries, ${report.receipts} receipts, the chain intact`,
    };
  } catch (error) {
    return { area: 'ledger', status: 'fail', reason: 'ledger_unreadable', detail: `${input.ledgerName}: ${(error as Error).message}` };
  }
}

/** bubblewrap and socat: what the box needs (Claude Code's sandbox), and bwrap what hermetic checks need. */
function sandboxLine(env: NodeJS.ProcessEnv, boxOn: boolean, spec: Spec | null): DoctorLine {
  const missing = missingPrerequisites(env);
  const hermetic = spec?.checks.some((check) => check.hermetic) ?? false;
  const programs = [...missing.programs, ...(hermetic && !existsSync(BWRAP) && !missing.programs.includes('bwrap') ? [BWRAP] : [])];
  const needed = [...(boxOn ? ['the box'] : []), ...(hermetic ? ['hermetic checks'] : [])];
  if (missing.unsupported)
    return {
      area: 'sandbox',
      status: needed.length > 0 ? 'fail' : 'off',
      reason: 'sandbox_missing',
      detail: `no sandbox vouch can use on ${process.platform}`,
    };
  if (programs.length === 0)
    return {
      area: 'sandbox',
      status: 'ok',
      reason: 'sandbox_ready',
      detail: `bwrap and socat found${needed.length > 0 ? ` (for ${needed.join(' and ')})` : ''}`,
    };
  return {
    area: 'sandbox',
    status: needed.length > 0 ? 'fail' : 'off',
    reason: 'sandbox_missing',
    detail: `${programs.join(' and ')} not found${needed.length > 0 ? `, and ${needed.join(' and ')} need${needed.length === 1 ? 's' : ''} them` : ''} (Debian: apt-get install bubblewrap socat)`,
  };
}
