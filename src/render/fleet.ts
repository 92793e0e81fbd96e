import type { Sha256 } from '../core/digest.js';
import { pinDrift, type PinDrift } from '../fleet/drift.js';
import type { Dispatch } from '../fleet/model.js';
import { dispatchLabel } from '../fleet/label.js';
import type { Paint } from './color.js';
import { table } from './table.js';
import { ago } from './time.js';
import { oneLine } from './visible.js';

/** The state word, coloured by what it asks of a person. */
export function stateWord(state: Dispatch['state'], p: Paint): string {
  switch (state) {
    case 'dispatched':
      return p.cyan(state);
    case 'reported':
      return p.yellow(state);
    case 'verified':
      return p.green(state);
    case 'contradicted':
    case 'damaged':
      return p.red(state.toUpperCase());
    case 'terminated':
      return p.dim(state);
  }
}

export function verdictWord(verdict: Dispatch['verdict'], p: Paint): string {
  switch (verdict) {
    case 'verified':
      return p.green(verdict);
    case 'contradicted':
      return p.red('CONTRADICTED');
    case 'ungraded':
      return p.yellow('ungraded');
    case 'damaged':
      return p.red('DAMAGED');
  }
}

/** A tier, with `!` when it was declared rather than inferred. */
export function tierText(d: Dispatch): string {
  if (!d.order) return '?';
  return d.order.tier_source === 'declared' ? `${d.order.tier}!` : d.order.tier;
}

/**
 * The fleet board: one line per dispatch, newest first. Every cell says
 * something. A dispatch whose pin is not the vouch.yaml in force (`specNow`)
 * carries DRIFT beside its verdict.
 */
export function renderBoard(dispatches: readonly Dispatch[], specNow: Sha256 | null, p: Paint, now: Date = new Date()): string {
  const head = ['DISPATCH', 'STATE', 'TIER', 'AGE', 'VERDICT', 'WHAT'].map((h) => p.dim(h));
  const rows = dispatches.map((d) => [
    d.id,
    stateWord(d.state, p),
    tierText(d),
    d.createdAt ? ago(d.createdAt, now) : '?',
    `${verdictWord(d.verdict, p)}${pinDrift(d, specNow) ? ` ${p.red('DRIFT')}` : ''}`,
    dispatchLabel(d, 50),
  ]);
  return table([head, ...rows]);
}

/** The words for a drifted pin: what the spec is now, and what that means for this dispatch. */
export function driftWords(d: Dispatch, drift: PinDrift): string {
  const now = drift.now ?? '(no valid vouch.yaml)';
  const meaning =
    d.state === 'terminated'
      ? 'it was closed under the pinned spec'
      : 'it cannot be graded (pin drift): close it and dispatch the work again under the current spec';
  return `vouch.yaml is ${now} now, not its pin: ${meaning}`;
}

/**
 * One dispatch in full: the order, the claim, the grade, and every transition
 * with its writer. Prompts and claims keep their lines (indented under their
 * label); every other recorded value is one line. A pin that is not the
 * vouch.yaml in force (`specNow`) is flagged DRIFT in the heading and on
 * the pin's line.
 */
export function renderDispatch(d: Dispatch, specNow: Sha256 | null, p: Paint): string {
  const o = d.order;
  const drift = pinDrift(d, specNow);
  const lines = [`${p.bold(`dispatch ${d.id}`)}  ${stateWord(d.state, p)} · verdict ${verdictWord(d.verdict, p)}${drift ? ` · ${p.red('DRIFT')}` : ''}`];
  if (d.damage) lines.push(`  ${p.red('DAMAGED:')} ${oneLine(d.damage)}`);
  if (o) {
    lines.push(`  tier       ${tierText(d)}  (${o.tier_basis})`);
    lines.push(`  spec pin   ${o.spec_sha256 ?? '(none: no valid vouch.yaml when it was ordered)'}`);
    if (drift) lines.push(`  ${p.red('DRIFT')}      ${driftWords(d, drift)}`);
    lines.push(
      `  graded by  ${
        o.manifest.checks
          .filter((c) => c.block)
          .map((c) => c.id)
          .join(', ') || p.yellow('no blocking check at this tier: it will read ungraded')
      }`,
    );
    if (o.parent) lines.push(`  parent     ${oneLine(o.parent)}`);
    if (o.session) lines.push(`  session    ${oneLine(`${o.session}${o.agent ? ` · ${o.agent.client} ${o.agent.type ?? 'subagent'} ${o.agent.id}` : ''}`)}`);
    if (o.card) lines.push(`  card       ${oneLine(o.card)}`);
    lines.push(`  prompt     ${o.prompt === null ? p.dim('(not in the hook payload)') : indent(o.prompt)}`);
  }
  if (d.claim) {
    const c = d.claim;
    if (c.transcript_prompt) lines.push(`  prompt     ${indent(c.transcript_prompt.text)}  ${p.dim("(from the client's transcript of the subagent)")}`);
    lines.push(`  claim      ${indent(c.claim.summary)}  ${p.dim(`(its own words, via ${c.via})`)}`);
    for (const item of c.claim.deliverables)
      lines.push(`    - ${oneLine(item.what)} [${oneLine(item.evidence)}]${item.how ? ` ${p.dim(oneLine(item.how))}` : ''}`);
  }
  if (d.grade) {
    lines.push(
      `  checked    ${oneLine(d.grade.grade.checks.map((c) => `${c.id} ${c.status}${c.status === 'PASS' ? '' : ` (${c.reason})`}`).join(', '))}  ${p.dim(`tier ${d.grade.grade.tier}, ${d.grade.grade.basis === 'card_proof' ? `the frozen proof of card ${d.grade.grade.card ?? '?'}` : d.grade.grade.basis === 'own_writes' ? 'on what its agent wrote' : 'every blocking check of the tier'}`)}`,
    );
  }
  lines.push('  transitions');
  const rows = [
    ...d.transitions.map((t) => ({
      seq: t.seq,
      cells: [
        p.dim(t.at),
        `${t.from ?? '·'} → ${t.to}`,
        `pid ${t.writer.pid} (${t.writer.actor}${t.writer.client ? ` ${t.writer.client}` : ''}, parent ${t.writer.ppid}, ${t.writer.host})${t.signed ? ' signed' : ''}`,
        t.why,
      ],
    })),
    ...d.unreadable.map((u) => ({ seq: u.seq, cells: [p.red('DAMAGED'), `seq ${u.seq}`, u.id, u.why] })),
  ];
  lines.push(
    table(
      rows.sort((a, b) => a.seq - b.seq).map((r) => r.cells),
      '    ',
    ),
  );
  return lines.join('\n');
}

function indent(text: string): string {
  return text.trimEnd().split('\n').join('\n             ');
}
