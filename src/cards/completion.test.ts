import { describe, expect, it } from 'vitest';
import { sha256 } from '../core/digest.js';
import type { ReceiptQuery } from '../ledger/ledger.js';
import type { ReceiptBody, StoredReceipt } from '../receipt/receipt.js';
import { failedSince } from './completion.js';

const receipt = (seq: number, verdict: 'PASS' | 'FAIL'): StoredReceipt => ({
  seq,
  hash: sha256(String(seq)),
  intact: true,
  signature: null,
  body: { id: `r${seq}`, check_id: 'tests', verdict, definition_digest: sha256('definition') } as unknown as ReceiptBody,
});

/** Answers listReceipts as both backends do (newest first, by check, after a seq, up to the limit), from memory. */
function ledgerOf(receipts: readonly StoredReceipt[]) {
  return {
    listReceipts: (query: ReceiptQuery) =>
      Promise.resolve(
        receipts
          .filter((r) => (query.checkId === undefined || r.body.check_id === query.checkId) && (query.afterSeq === undefined || r.seq > query.afterSeq))
          .sort((a, b) => b.seq - a.seq)
          .slice(0, query.limit),
      ),
  };
}

describe('failedSince: no FAIL after the PASS', () => {
  it('finds a FAIL buried under more than 10,000 green runs after it (no window a FAIL can drown in)', async () => {
    const pass = receipt(1, 'PASS');
    const red = receipt(2, 'FAIL');
    const greens = Array.from({ length: 10_050 }, (_, i) => receipt(3 + i, 'PASS'));
    expect((await failedSince(ledgerOf([pass, red, ...greens]), pass))?.seq).toBe(2);
  });

  it('ignores a FAIL before the PASS and one of another definition', async () => {
    const red = receipt(1, 'FAIL');
    const pass = receipt(2, 'PASS');
    const other = { ...receipt(3, 'FAIL'), body: { ...receipt(3, 'FAIL').body, definition_digest: sha256('other') } };
    expect(await failedSince(ledgerOf([red, pass, other]), pass)).toBeUndefined();
  });
});
