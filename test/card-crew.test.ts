import { describe, expect, it } from 'vitest';
import { as, card, IN_CLAUDE_CODE, kinds, opened, refused } from './helpers/cards.js';
import { Rig } from './helpers/rig.js';

/*
 * Crew's coordinator, through the real CLI: one writer per card, the
 * coordinator's decisions, budgets that stop a worker, and a close that
 * only the gate's run of the frozen proof makes.
 */

const SPEC = `version: 1
checks:
  - id: tests
    run: ["sh", "-c", "grep -q good src/a.txt"]
    sources: ["src/**"]
`;

async function workspace(): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.txt': 'good\n' });
  await rig.spec(SPEC);
  return rig;
}

describe('one writer per card', () => {
  it('attack: a second worker claims a card another holds, and is refused with who holds it and how to reassign', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    const first = await card(rig, ['claim', id, '--as', 'alice'], as('worker'));
    expect(first.code, first.stderr).toBe(0);
    expect(first.json().holder).toMatchObject({ name: 'alice' });
    const second = await card(rig, ['claim', id, '--as', 'bob'], as('worker'));
    refused(second, 'card_claimed');
    expect(second.json().error.message).toContain('held by "alice"');
    expect(second.json().error.hint).toContain(`vouch card claim ${id} --as bob --reassign --why`);
    // The default holder is the role and the agent client: a worker in Claude Code is not alice either.
    refused(await card(rig, ['claim', id], IN_CLAUDE_CODE), 'card_claimed');
    // The holder's own claim again is a new start, not a second writer.
    expect((await card(rig, ['claim', id, '--as', 'alice'], as('worker'))).code).toBe(0);
    expect(await kinds(rig, id)).toEqual(['opened', 'claimed', 'claimed']);
  });

  it('attack: a worker reassigns the card to itself, and is refused; the owner reassigns with a reason, recorded', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    await card(rig, ['claim', id, '--as', 'alice'], as('worker'));
    refused(await card(rig, ['claim', id, '--as', 'bob', '--reassign', '--why', 'mine now'], as('worker')), 'card_role_refused');
    refused(await card(rig, ['claim', id, '--as', 'bob', '--reassign'], {}), 'usage', 2);
    const moved = await card(rig, ['claim', id, '--as', 'bob', '--reassign', '--why', 'alice is stuck'], {});
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.json().holder).toMatchObject({ name: 'bob' });
    const claim = moved.json().events.at(-1);
    expect(claim).toMatchObject({ kind: 'claimed', holder: 'bob', reassigned_from: 'alice', why: 'alice is stuck', by: { role: 'owner' } });
    // Now alice is the second writer.
    refused(await card(rig, ['claim', id, '--as', 'alice'], as('worker')), 'card_claimed');
  });

  it('frees the card when it closes: nobody holds a done card', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    await card(rig, ['claim', id, '--as', 'alice'], as('worker'));
    expect((await card(rig, ['verify', id])).json().verdict).toBe('PASS');
    const done = await card(rig, ['complete', id]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.json().holder).toBeNull();
  });

  it('refuses a holder name that is not a name', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    refused(await card(rig, ['claim', id, '--as', 'a b; rm -rf'], as('worker')), 'usage', 2);
  });
});
