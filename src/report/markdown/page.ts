import { duration } from '../../render/time.js';
import type { ReportCard, ReportCheck, ReportDispatch, ReportModel, ReportSession } from '../model/types.js';
import { mdCut, mdTable, mdText } from './escape.js';

/*
 * The report as a Markdown page a person pastes into a pull request: the
 * same model as the HTML and JSON reports, one table per part, every
 * recorded value escaped (markdown/escape.ts), vouch's own words as they
 * are. Long texts (prompts, claims) are cut: the HTML and JSON reports
 * carry them whole.
 */

/** The most characters of a prompt's first line, a claim or a why that a table cell shows. */
const CELL = 120;

/** A digest as vouch writes it, shortened in a code span; anything else a record holds there, as escaped text. */
const short = (hex: string | null) => (hex === null ? 'none' : /^[0-9a-f]{64}$/.test(hex) ? `\`${hex.slice(0, 16)}\`` : mdText(hex));
const strong = (text: string) => `**${text}**`;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/*
 * The words below come from records, so they go through mdText too: a
 * record is read as hostile, and a forged one could hold any string where
 * a state word belongs.
 */

function counts(tally: Readonly<Record<string, number>>, words: Readonly<Record<string, string>> = {}): string {
  const shown = Object.entries(tally).filter(([, n]) => n > 0);
  return shown.length === 0 ? 'none' : shown.map(([key, n]) => `${n} ${words[key] ?? mdText(key)}`).join(' · ');
}

/** Anything but a PASS is bold, so a reader's eye lands on it. */
const statusWord = (status: string) => (status === 'PASS' ? 'PASS' : strong(mdText(status)));

/** Bad news in capitals and bold, as the board shows it. */
const verdictWord = (verdict: string) => (verdict === 'contradicted' || verdict === 'damaged' ? strong(verdict.toUpperCase()) : mdText(verdict));

function sessionEnd(end: ReportSession['end']): string {
  if (end === 'escaped') return strong('ESCAPED (stopped unverified)');
  return end === 'no_stop' ? 'no stop yet' : mdText(end);
}

function header(model: ReportModel): string {
  const spec = model.spec;
  const specLine = spec.sha256
    ? `vouch.yaml ${short(spec.sha256)} (${spec.trust === 'allowed' ? 'allowed' : `not allowed: ${mdText(spec.trust ?? '')}`})`
    : `vouch.yaml is not valid: ${mdText(spec.problem ?? '')}`;
  return `# vouch report\n\nWorkspace ${mdText(model.workspace)} · generated ${mdText(model.generated_at)} by vouch ${mdText(model.vouch)} · ${specLine}`;
}

/** The drift warning, loud, above everything else; empty when nothing drifted. */
function driftCallout(model: ReportModel): string {
  const drifted = model.dispatches.filter((d) => d.drift !== null);
  if (drifted.length === 0) return '';
  const lines = drifted.map((d) => {
    const meaning = d.state === 'terminated' ? 'closed under its pin' : 'open: it cannot be graded until it is closed and dispatched again';
    return `> - ${mdText(d.id)} pins ${short(d.drift!.pinned)}, vouch.yaml is ${d.drift!.now ? short(d.drift!.now) : 'not valid'} now: ${meaning}`;
  });
  return `> ${strong('DRIFT')}: ${drifted.length === 1 ? '1 dispatch pins' : `${drifted.length} dispatches pin`} a vouch.yaml other than the one in force.\n>\n${lines.join('\n')}`;
}

/** The summary part alone: what the MCP tool answers in text, and the top of the page. */
export function renderSummaryMarkdown(model: ReportModel): string {
  const s = model.summary;
  const integrity = model.integrity;
  const ledger =
    integrity.state === 'nothing_recorded'
      ? 'nothing recorded yet'
      : `${integrity.state === 'intact' ? 'intact' : strong(`DAMAGED: ${integrity.findings.length} finding${integrity.findings.length === 1 ? '' : 's'}`)}, ${plural(integrity.entries, 'entry', 'entries')}`;
  const rows = [
    ['Checks now', s.checks ? counts(s.checks) : 'no valid vouch.yaml: no current status'],
    ['Dispatches', counts(s.dispatches, { contradicted: 'CONTRADICTED', damaged: 'DAMAGED', drift: strong('DRIFT') })],
    ['Agent sessions', counts(s.sessions, { escaped: strong('ESCAPED'), no_stop: 'no stop yet' })],
    ['Task cards', counts(s.cards)],
    ['Ledger', ledger],
  ];
  return [mdTable(['', ''], rows), driftCallout(model)].filter((part) => part !== '').join('\n\n');
}

function lastRun(c: ReportCheck): string {
  const last = c.history[0];
  if (!last) return 'never ran';
  return last.intact ? `${mdText(last.finished_at)} by ${mdText(last.actor)}, ${duration(last.duration_ms)}` : strong('DAMAGED');
}

function checks(model: ReportModel): string {
  if (model.checks.length === 0) return 'No checks declared and no receipts recorded.';
  const rows = model.checks.map((c) => [
    mdText(c.id),
    c.now ? statusWord(c.now.status) : strong('not judged'),
    c.now ? mdText(c.now.reason) : c.declared ? '' : 'no longer in vouch.yaml',
    c.blocking === null ? '' : c.blocking ? `blocking, ${c.tier ? `tier ${mdText(c.tier)}` : 'every tier'}` : 'advisory',
    String(c.runs),
    lastRun(c),
    c.proves ? mdCut(c.proves, CELL) : '',
  ]);
  return mdTable(['check', 'now', 'reason', 'gates', 'runs', 'last receipt', 'a PASS proves'], rows);
}

function label(d: ReportDispatch): string {
  const prompt = d.prompt ?? d.claim?.transcript_prompt?.text ?? null;
  if (prompt !== null) return mdCut(prompt.trim().split('\n')[0]?.trim() ?? '', CELL);
  return d.agent ? mdText(`${d.agent.type ?? 'subagent'} ${d.agent.id} (prompt not in the hook payload)`) : d.damage ? '(damaged record)' : '(no prompt)';
}

function graded(d: ReportDispatch): string {
  if (d.damage) return `${strong('DAMAGED')}: ${mdCut(d.damage, CELL)}`;
  if (!d.grade) return 'nothing graded it (not a pass)';
  return d.grade.checks.map((c) => `${mdText(c.id)} ${statusWord(c.status)}`).join(', ') || 'no check';
}

function dispatches(model: ReportModel): string {
  if (model.dispatches.length === 0) return 'No dispatch recorded.';
  const rows = model.dispatches.map((d) => [
    mdText(d.id),
    d.state === 'damaged' ? strong('DAMAGED') : mdText(d.state),
    verdictWord(d.verdict),
    d.drift ? strong('DRIFT') : 'pin in force',
    d.tier ? `${mdText(d.tier)}${d.tier_source === 'declared' ? '!' : ''}` : '?',
    d.parent ? mdText(d.parent) : d.session ? `session ${mdText(d.session)}` : 'command line',
    d.claim ? mdCut(d.claim.summary, CELL) : 'no claim',
    graded(d),
    label(d),
  ]);
  return `${mdTable(['dispatch', 'state', 'verdict', 'pin', 'tier', 'ordered by', "claimed (the agent's words)", 'independently checked', 'what'], rows)}\n\nClaims are the agents' own words, never evidence; the checked column is what vouch's checks said.`;
}

function sessions(model: ReportModel): string {
  if (model.sessions.length === 0) return 'No agent session recorded.';
  const rows = model.sessions.map((s) => {
    const last = s.stops[s.stops.length - 1];
    return [
      mdText(s.id),
      mdText(s.client ?? ''),
      sessionEnd(s.end),
      String(s.stops.length),
      String(s.blocks),
      last?.claim ? mdCut(last.claim.text, CELL) : '',
      last ? `${last.decision === 'allow' ? 'allow' : strong(mdText(last.decision))} (${mdText(last.reason)})` : '',
    ];
  });
  return mdTable(['session', 'client', 'end', 'stops', 'blocks', 'last stop: the agent said', "the gate's answer"], rows);
}

function decisions(c: ReportCard): string {
  const made = c.decisions.map((d) => `${mdText(d.decision)} by ${mdText(d.by.role)}: ${mdCut(d.why, CELL)}`);
  if (c.owner_close) made.push(`${strong('owner_close')} (never a pass): ${mdCut(c.owner_close.why, CELL)}`);
  return made.join('; ') || 'none';
}

function cards(model: ReportModel): string {
  if (model.cards.length === 0) return '';
  const rows = model.cards.map((c) => [
    mdText(c.id),
    c.state === 'damaged' ? strong('DAMAGED') : mdText(c.state),
    statusWord(c.grade),
    mdCut(c.goal ?? '', CELL),
    mdText(c.proof ?? ''),
    `${c.attempts}${c.budget_attempts !== null ? ` / ${c.budget_attempts}` : ''}${c.over_budget ? ` ${strong('over budget')}` : ''}`,
    decisions(c),
  ]);
  return `## Task cards\n\n${mdTable(['card', 'state', 'grade', 'goal', 'proof', 'attempts', 'decisions'], rows)}`;
}

function integrity(model: ReportModel): string {
  const a = model.integrity;
  if (a.state === 'nothing_recorded') return 'Nothing recorded yet: an empty ledger vouches for nothing.';
  const signed = Object.entries(a.signed_by).map(([key, n]) => `${n} by ${mdText(key)}`);
  const line = `${a.state === 'intact' ? strong('intact') : strong('DAMAGED')}: ${plural(a.entries, 'entry', 'entries')} (${plural(a.receipts, 'receipt')}), ${signed.length > 0 ? `signed: ${signed.join(', ')}; ` : ''}${a.unsigned} unsigned${a.head ? `; head seq ${a.head.seq} ${short(a.head.hash)}` : ''}`;
  if (a.findings.length === 0) return line;
  const rows = a.findings.map((f) => [String(f.seq ?? ''), mdText(f.id ?? ''), mdText(f.kind), strong(mdText(f.code)), mdCut(f.detail, CELL)]);
  return `${line}\n\n${mdTable(['seq', 'entry', 'kind', 'finding', 'detail'], rows)}`;
}

/** The whole page. */
export function renderMarkdown(model: ReportModel): string {
  const parts = [
    header(model),
    `## Summary\n\n${renderSummaryMarkdown(model)}`,
    `## Checks\n\n${checks(model)}`,
    `## Dispatches\n\n${dispatches(model)}`,
    `## Agent sessions\n\n${sessions(model)}`,
    cards(model),
    `## Ledger integrity\n\n${integrity(model)}`,
    '---\n\nA PASS proves that the configured command met its expectation on the declared files at the recorded hashes, nothing more. Local records are tamper-evident, not tamper-proof.',
  ];
  return `${parts.filter((p) => p !== '').join('\n\n')}\n`;
}
