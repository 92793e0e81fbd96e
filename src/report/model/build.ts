import { noteLoaded } from '../../core/start.js';
import { VERSION } from '../../version.js';
import { RECEIPT_WINDOW, SESSION_WINDOW, type ReportSource } from '../source.js';
import { cardEntries } from './cards.js';
import { checkEntries } from './checks.js';
import { dispatchEntry } from './dispatches.js';
import { integrityEntry } from './integrity.js';
import { REPORT_VERSION } from './version.js';
import { sessionEntry } from './sessions.js';
import { summarize } from './summary.js';
import type { ReportModel, ReportSpec } from './types.js';

noteLoaded('report');

function specEntry(source: ReportSource): ReportSpec {
  const spec = source.spec;
  if (spec.kind === 'invalid') return { valid: false, sha256: null, trust: null, problem: spec.message };
  return { valid: true, sha256: spec.spec.sha256, trust: spec.trust, problem: null };
}

/**
 * The report as data: every piece read once from the source, then put in
 * the model's shape. Nothing here formats text; the renderers
 * (report/html, report/markdown, report/json) only read the model.
 */
export async function buildModel(source: ReportSource): Promise<ReportModel> {
  const [checks, statuses, receipts, dispatches, sessions, cards, audit] = await Promise.all([
    checkEntries(source),
    source.statuses(),
    source.receipts(),
    source.dispatches(),
    source.sessions(),
    cardEntries(source.ledger, source.home),
    source.audit(),
  ]);
  const spec = specEntry(source);
  const requireSignature = source.spec.kind === 'valid' && source.spec.spec.requireSignature;
  // Drift is judged against the vouch.yaml in force now: none valid is a drift from any pin.
  const specNow = source.spec.kind === 'valid' ? source.spec.spec.sha256 : null;
  const dispatchEntries = dispatches.map((d) => dispatchEntry(d, specNow, source.now));
  const sessionEntries = sessions.map(sessionEntry);
  const integrity = integrityEntry(audit, requireSignature);
  return {
    kind: 'vouch-report',
    version: REPORT_VERSION,
    generated_at: source.now.toISOString(),
    vouch: VERSION,
    workspace: source.workspace.root,
    spec,
    summary: summarize({ checks, judged: statuses !== null, dispatches: dispatchEntries, sessions: sessionEntries, cards, integrity }),
    checks,
    sessions: sessionEntries,
    dispatches: dispatchEntries,
    cards,
    integrity,
    window: { receipts: receipts.length, receipt_limit: RECEIPT_WINDOW, sessions: sessions.length, session_limit: SESSION_WINDOW },
  };
}
