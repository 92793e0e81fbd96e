import type { CardActor, CardEntry, CardSummary, CardView, Grade } from '../cards/index.js';
import type { AuditOutcome } from '../cards/audit.js';
import type { Problem } from '../core/problem.js';
import { unreachable } from '../core/unreachable.js';
import type { Paint } from './color.js';
import { table } from './table.js';
import { ago } from './time.js';
import { oneLine } from './visible.js';

/** A state as people read it: owner_close is spelled as recorded, never as done. */
export function stateWord(state: CardSummary['state']): string {
  switch (state) {
    case 'open':
    case 'claimed':
    case 'done':
    case 'split':
    case 'abandoned':
      return state;
    case 'owner_closed':
      return 'owner_close';
    case 'damaged':
      return 'DAMAGED';
    default:
      return unreachable(state);
  }
}

function gradeWord(grade: Grade, p: Paint): string {
  switch (grade) {
    case 'PASS':
      return p.green('PASS');
    case 'FAIL':
      return p.red('FAIL');
    case 'UNKNOWN':
      return p.yellow('UNKNOWN');
    case 'ungraded':
      return p.dim('ungraded');
    default:
      return unreachable(grade);
  }
}

/** The card board: one line per card, an ungraded card reads "ungraded", never blank. */
export function renderBoard(cards: readonly CardSummary[], p: Paint, now = new Date()): string {
  if (cards.length === 0) return 'no cards yet: `vouch card open --goal ... --artifact ... --done-when ... --proof CHECK_ID` opens one';
  const rows = cards.map((card) => {
    const notes = [
      card.over_budget ? p.red('budget spent: asks') : '',
      card.audit === 'FAIL' || card.audit === 'UNKNOWN'
        ? p.red(`audit ${card.audit}: not passing${card.follow_ups.length > 0 ? ` → ${card.follow_ups[card.follow_ups.length - 1]!}` : ''}`)
        : card.audit
          ? `audit ${card.audit}`
          : '',
      card.follow_up_of ? `follow-up of ${card.follow_up_of}` : '',
      card.damage ? p.red(card.damage) : '',
    ].filter((note) => note !== '');
    return [
      card.id,
      card.state === 'owner_closed' || card.state === 'damaged' ? p.red(stateWord(card.state)) : stateWord(card.state),
      gradeWord(card.grade, p),
      card.budget_attempts === null ? '-' : `${card.attempts}/${card.budget_attempts}`,
      card.verify ?? '-',
      `${card.goal ?? '(unreadable)'}${notes.length > 0 ? `  [${notes.join('; ')}]` : ''}`,
      card.updated_at ? p.dim(ago(card.updated_at, now)) : '',
    ];
  });
  return table([['ID', 'STATE', 'GRADE', 'TRIES', 'VERIFY', 'GOAL', ''].map((h) => p.bold(h)), ...rows], '');
}

export function actorWords(by: CardActor): string {
  if (by.role_from === 'gate') return `the gate (${by.agent ?? 'hook'}, at its worker's stop)`;
  return `${by.role}${by.agent ? ` (${by.agent}${by.via === 'mcp' ? ', mcp' : ''})` : by.via === 'mcp' ? ' (mcp)' : ''}`;
}

/** One card in full, for people. */
export function renderCard(view: CardView, completeNow: Problem | null, p: Paint): string {
  const c = view.contract;
  const proof = view.proof;
  const lines = [
    `${p.bold(`card ${view.id}`)}  ${stateWord(view.state)} · grade ${gradeWord(view.grade, p)} · attempts ${view.attempts}/${c.budget_attempts}${view.overBudget ? p.red(' (budget spent: asks for a decision)') : ''} · verify: ${view.verify}`,
    `  goal:       ${oneLine(c.goal)}`,
    `  artifact:   ${oneLine(c.artifact)}`,
    `  done when:  ${oneLine(c.done_when)}`,
    ...(c.lands_at ? [`  lands at:   ${oneLine(c.lands_at)}`] : []),
    ...(view.opened.body.follow_up_of
      ? [`  follow-up of ${view.opened.body.follow_up_of.card} (depth ${view.opened.body.depth}), opened by its failed audit`]
      : []),
    `  proof:      frozen from vouch.yaml ${proof.policy.spec_sha256.slice(0, 12)}…, digest ${proof.digest.slice(0, 12)}…`,
  ];
  if (proof.kind === 'checks') {
    for (const check of proof.checks) {
      lines.push(
        `              ${oneLine(`${check.id}: ${JSON.stringify(check.shell ? check.run[0] : check.run)} · scope ${[...check.sources, ...check.tests, ...check.artifacts].join(', ')}`)} · definition ${check.definitionDigest.slice(0, 12)}…`,
      );
    }
  } else {
    const binding = view.script.bound ? `bound to sha256 ${view.script.bound.slice(0, 16)}…` : 'not bound yet (its first run by the verifier binds it)';
    lines.push(`              script ${oneLine(proof.path)} (${binding}) · scope ${oneLine(proof.scope.join(', '))} · timeout ${proof.timeout}s`);
    if (view.script.pending)
      lines.push(`              revise-script ${view.script.pending.decision} authorises sha256 ${view.script.pending.sha256.slice(0, 16)}… (once)`);
  }
  if (view.holder) lines.push(`  holder:     ${oneLine(view.holder.name)} (since ${view.holder.at}): one writer per card`);
  if (view.question?.body.ask) {
    const ask = view.question.body.ask;
    lines.push(`  asks:       ${oneLine(ask.question)}`, ...ask.failure_lines.map((line) => `              | ${oneLine(line)}`));
  }
  if (view.state === 'open' || view.state === 'claimed') {
    lines.push(
      completeNow
        ? `  complete now: ${p.red('refused')}: ${completeNow.code}: ${oneLine(completeNow.message)}`
        : `  complete now: ${p.green('allowed')} (a fresh PASS of the frozen proof)`,
    );
  }
  lines.push('', p.bold('  events'));
  lines.push(table(view.events.map(eventRow), '  '));
  return lines.join('\n');
}

function eventRow(entry: CardEntry): string[] {
  if (!entry.intact) return [`#${entry.seq}`, '', 'DAMAGED', entry.why, ''];
  const body = entry.body;
  const head = [`#${entry.seq}`, body.at.replace('T', ' ').slice(0, 19)];
  const by = `by ${actorWords(body.by)}${entry.signed ? ' · signed' : ''}`;
  switch (body.event) {
    case 'opened':
      return [
        ...head,
        'opened',
        `${body.verify}${body.verify !== body.verify_requested ? ` (asked ${body.verify_requested}; a script proof is always independent)` : ''}, budget ${body.budget_attempts}`,
        by,
      ];
    case 'claimed':
      return [...head, 'claimed', '', by];
    case 'verdict':
      return [
        ...head,
        'verdict',
        `${body.verdict} (${body.reason}) attempt ${body.attempt} · ${body.receipts.map((r) => `${r.check_id} ${r.verdict} ${r.receipt}`).join(', ')}${body.script ? ` · script ${body.script.binding}` : ''}`,
        by,
      ];
    case 'decision':
      return [
        ...head,
        'decision',
        `${body.decision}: ${body.why}${body.changes ? ` (${Object.keys(body.changes).join(', ')})` : ''}${body.script_sha256 ? ` (authorises ${body.script_sha256.slice(0, 16)}…)` : ''}${body.into ? ` (into ${body.into.join(', ')})` : ''}${body.ask ? ` (asks: ${body.ask.question})` : ''}`,
        by,
      ];
    case 'completed':
      return [...head, 'completed', `on the PASS of verdict ${body.verdict_event}`, by];
    case 'owner_close':
      return [
        ...head,
        'owner_close',
        `NOT a pass: ${body.why}${body.last_verdict ? ` (newest verdict ${body.last_verdict.verdict})` : ' (never verified)'}`,
        by,
      ];
    case 'audit':
      return [
        ...head,
        'audit',
        `${body.verdict} (${body.reason})${body.not_run ? ` · not run: ${body.not_run.code}` : ''}${body.follow_up ? ` → follow-up ${body.follow_up}` : body.follow_up_skipped === 'depth_limit' ? ' · no follow-up: two deep already' : body.follow_up_skipped === 'open_follow_up' ? ' · a follow-up is still open' : ''}`,
        by,
      ];
    case 'follow_up':
      return [...head, 'follow_up', `${body.card} (audit ${body.audit})`, by];
    case 'stopped':
      return [...head, 'stopped', `worker stopped: ${stopWords(body)}`, by];
    case 'answered':
      return [...head, 'answered', `shown to ${body.to.client} session ${body.to.session}: ${body.line}`, by];
    default:
      return unreachable(body);
  }
}

/** The result of `card audit`, one line per card. */
export function renderAuditOutcomes(outcomes: readonly AuditOutcome[], p: Paint): string {
  if (outcomes.length === 0) return 'no done cards to audit';
  return outcomes
    .map((outcome) => {
      if (outcome.kind === 'refused')
        return `${outcome.card}  ${p.yellow('not run, nothing recorded')}: ${outcome.problem.code}: ${oneLine(outcome.problem.message)}`;
      const e = outcome.event;
      const notRun = e.not_run ? `\n    the proof could not run: ${e.not_run.code}: ${oneLine(e.not_run.message)}` : '';
      const verdict = e.verdict === 'PASS' ? p.green('PASS') : e.verdict === 'FAIL' ? p.red('FAIL') : p.yellow('UNKNOWN');
      const follow = e.follow_up
        ? `: recorded on the card, follow-up ${e.follow_up} opened`
        : e.follow_up_skipped === 'depth_limit'
          ? ': recorded; no follow-up, the chain is already two deep: a person decides'
          : e.follow_up_skipped === 'open_follow_up'
            ? ': recorded; a follow-up of it is still open'
            : e.verdict === 'PASS'
              ? ''
              : ': recorded on the card';
      return `${outcome.card}  ${verdict} (${e.reason})${follow}${notRun}`;
    })
    .join('\n');
}

/** Why a card's worker was stopped, in words. */
export function stopWords(body: {
  readonly reason: 'over_budget_tokens' | 'failed_calls';
  readonly tokens: number;
  readonly budget_tokens: number | null;
  readonly failed_in_a_row: number;
}): string {
  switch (body.reason) {
    case 'over_budget_tokens':
      return `over budget: ${body.tokens} tokens spent of ${body.budget_tokens ?? 'no'} budgeted`;
    case 'failed_calls':
      return `${body.failed_in_a_row} failed tool calls in a row`;
    default:
      return unreachable(body.reason);
  }
}
