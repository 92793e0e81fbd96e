import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteLedger } from '../ledger/sqlite/sqlite-ledger.js';
import { draftOf, manifestOf } from '../../test/helpers/drafts.js';
import { actsDuringSession } from './person-acts.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function ledger() {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-acts-'));
  dirs.push(dir);
  return openSqliteLedger(join(dir, 'ledger.db'), { create: true })!;
}

describe("a gc recorded during a session is a person's act, and says which", () => {
  it("the automatic gc of a person's verify reads as such; `vouch gc` as itself", async () => {
    const l = ledger();
    const since = new Date(Date.now() - 1000);
    for (let i = 0; i < 4; i++) await l.appendReceipt(draftOf('t', manifestOf(`m${i}`)), manifestOf(`m${i}`));
    await l.gc({ now: new Date(), keepPerCheck: 3, auto: true });
    await l.gc({ now: new Date(), keepPerCheck: 2 });
    const acts = await actsDuringSession(l, 'some-session', since);
    expect(acts.map((act) => act.command)).toEqual(['vouch verify (its automatic gc)', 'vouch gc']);
    await l.close();
  });
});
