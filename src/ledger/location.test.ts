import { describe, expect, it } from 'vitest';
import { ledgerLocation } from './location.js';

const URL_A = 'postgres://vouch@127.0.0.1:5432/a';
const URL_B = 'postgres://vouch@127.0.0.1:5432/b';
const URL_C = 'postgres://vouch@127.0.0.1:5432/c';

/** The source that chose, or the kind when SQLite did. */
function chosen(result: ReturnType<typeof ledgerLocation>): string {
  if (result === null) return 'none';
  if (!result.ok) return `error:${result.error.code}`;
  return result.value.kind === 'postgres' ? result.value.source : 'sqlite';
}

describe('ledgerLocation: the one order of where the ledger is', () => {
  it("--ledger, then VOUCH_LEDGER, then the spec's ledger:, then .vouch/ledger.db", () => {
    expect(chosen(ledgerLocation({ VOUCH_LEDGER: URL_B }, '/ws/.vouch', URL_C, URL_A))).toBe('flag');
    expect(chosen(ledgerLocation({ VOUCH_LEDGER: URL_B }, '/ws/.vouch', URL_C))).toBe('VOUCH_LEDGER');
    expect(chosen(ledgerLocation({}, '/ws/.vouch', URL_C))).toBe('ledger');
    expect(chosen(ledgerLocation({ VOUCH_LEDGER: '' }, '/ws/.vouch', null))).toBe('sqlite');
  });

  it('with no state directory (the server commands) nothing named is none, never SQLite; the spec is read only when asked', () => {
    expect(chosen(ledgerLocation({}, null, () => null))).toBe('none');
    let read = 0;
    const spec = () => {
      read += 1;
      return URL_C;
    };
    expect(chosen(ledgerLocation({ VOUCH_LEDGER: URL_B }, null, spec))).toBe('VOUCH_LEDGER');
    expect(read).toBe(0);
    expect(chosen(ledgerLocation({}, null, spec))).toBe('ledger');
    expect(read).toBe(1);
  });

  it('a URL that is not a PostgreSQL one is an error naming its source, wherever it came from', () => {
    expect(chosen(ledgerLocation({}, null, null, 'mysql://x'))).toBe('error:usage');
    expect(chosen(ledgerLocation({ VOUCH_LEDGER: 'not a url' }, '/ws/.vouch', null))).toBe('error:usage');
  });
});
