import { auditLedger } from '../audit/audit.js';
import type { AuditReport } from '../audit/finding.js';
import { homeKeyring } from '../crypto/keyring.js';
import { checkStatuses, type CheckStatus } from '../engine/status.js';
import type { Dispatch } from '../fleet/model.js';
import { Dispatches } from '../fleet/store.js';
import { summarizeSession, type SessionSummary } from '../gate/session-summary.js';
import type { Ledger } from '../ledger/ledger.js';
import type { StoredReceipt } from '../receipt/receipt.js';
import type { Spec } from '../spec/model.js';
import { trustState, type TrustState } from '../trust/trust.js';
import type { Workspace } from '../workspace/find.js';

/** How many receipts (newest first) and sessions the report reads: enough history to read, bounded in size. */
export const RECEIPT_WINDOW = 2000;
export const SESSION_WINDOW = 200;

/** The spec as the report found it. */
export type SpecState =
  { readonly kind: 'valid'; readonly spec: Spec; readonly trust: TrustState['kind'] | 'unreadable' } | { readonly kind: 'invalid'; readonly message: string };

/**
 * What sections read, each piece loaded once and only when a section asks
 * for it. A new section (task cards, when they exist) is one file that
 * reads what it needs from here, or from its own read API over `ledger`.
 */
export class ReportSource {
  private readonly cache = new Map<string, Promise<unknown>>();

  constructor(
    readonly workspace: Workspace,
    readonly spec: SpecState,
    /** Undefined when nothing was ever recorded. */
    readonly ledger: Ledger | undefined,
    readonly home: string,
    readonly env: NodeJS.ProcessEnv,
    readonly now: Date,
  ) {}

  private once<T>(key: string, load: () => Promise<T>): Promise<T> {
    let value = this.cache.get(key) as Promise<T> | undefined;
    if (!value) this.cache.set(key, (value = load()));
    return value;
  }

  /** The newest receipts of the ledger, newest first. */
  receipts(): Promise<StoredReceipt[]> {
    return this.once('receipts', async () => (this.ledger ? this.ledger.listReceipts({ limit: RECEIPT_WINDOW }) : []));
  }

  /** Each check's current status, when the spec can be read. */
  statuses(): Promise<CheckStatus[] | null> {
    return this.once('statuses', async () => {
      if (this.spec.kind !== 'valid') return null;
      const ctx = { workspace: this.workspace, spec: this.spec.spec, home: this.home, actor: 'cli' as const, env: this.env };
      const result = await checkStatuses(ctx, this.spec.spec.checks, { openLedger: async () => this.ledger, explain: false });
      return result.kind === 'ok' ? result.statuses : null;
    });
  }

  dispatches(): Promise<Dispatch[]> {
    const requireSignature = this.spec.kind === 'valid' && this.spec.spec.requireSignature;
    return this.once('dispatches', async () => (this.ledger ? new Dispatches(this.ledger, { home: this.home, requireSignature }).all() : []));
  }

  sessions(): Promise<SessionSummary[]> {
    return this.once('sessions', async () => {
      const ledger = this.ledger;
      if (!ledger) return [];
      const ids = await ledger.recentSessions(SESSION_WINDOW);
      return Promise.all(ids.map(async (id) => summarizeSession(id, await ledger.sessionEntries(id))));
    });
  }

  audit(): Promise<AuditReport | null> {
    return this.once('audit', async () => {
      if (!this.ledger) return null;
      const requireSignature = this.spec.kind === 'valid' && this.spec.spec.requireSignature;
      return auditLedger(this.ledger, { keyring: homeKeyring(this.home), requireSignature });
    });
  }
}

export function specTrust(home: string, root: string, spec: Spec): SpecState {
  const trust = trustState(home, root, spec.sha256);
  return { kind: 'valid', spec, trust: trust.ok ? trust.value.kind : 'unreadable' };
}
