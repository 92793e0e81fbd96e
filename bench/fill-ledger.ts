// Fills a ledger with receipts of an unchanged tree through the real write
// path (SqliteLedger.appendReceipts: canonical JSON, SHA-256 chain, compact
// bodies, one transaction per batch). Bundled and run by bench/run.mjs.
import { newId } from '../src/core/ids.js';
import { openSqliteLedger } from '../src/ledger/sqlite/sqlite-ledger.js';
import type { ReceiptDraft } from '../src/receipt/receipt.js';
import type { Manifest } from '../src/scope/manifest.js';

export interface FillResult {
  readonly receipts: number;
  readonly ms: number;
  readonly bytes: number;
}

/**
 * Appends `count` receipts modelled on `template` (a real receipt of the
 * workspace, so the last one still describes the tree): each gets its own
 * id, times and duration, as consecutive runs of one check do.
 */
export async function fillLedger(path: string, template: ReceiptDraft, manifest: Manifest, count: number, batch: number): Promise<FillResult> {
  const ledger = openSqliteLedger(path, { create: true })!;
  const start = performance.now();
  const first = Date.parse(template.started_at) - count * 1000;
  try {
    for (let done = 0; done < count; done += batch) {
      const items = [];
      for (let i = done; i < Math.min(count, done + batch); i++) {
        const at = first + i * 1000;
        const duration = 3 + (i % 17);
        const draft: ReceiptDraft = {
          ...template,
          id: newId(at),
          started_at: new Date(at).toISOString(),
          finished_at: new Date(at + duration).toISOString(),
          duration_ms: duration,
        };
        items.push({ draft, manifest });
      }
      await ledger.appendReceipts(items);
    }
    const ms = performance.now() - start;
    const stats = await ledger.stats();
    return { receipts: stats.receipts, ms, bytes: stats.bytes };
  } finally {
    await ledger.close();
  }
}
