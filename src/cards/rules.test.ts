import { describe, expect, it } from 'vitest';
import { VouchProblem } from '../core/problem.js';
import type { CardActor, Role } from './model.js';
import { requireRole } from './rules.js';

const actor = (role: Role): CardActor => ({ role, role_from: 'VOUCH_ROLE', agent: null, via: 'cli' });

function refusal(role: Role): VouchProblem {
  try {
    requireRole(actor(role), 'complete', 'independent');
  } catch (error) {
    if (error instanceof VouchProblem) return error;
    throw error;
  }
  throw new Error(`the ${role} was not refused`);
}

describe('requireRole: who may close an independent card', () => {
  it('tells the owner the close that is theirs (--force), not that the worker never closes', () => {
    const problem = refusal('owner').problem;
    expect(problem.code).toBe('card_role_refused');
    expect(problem.message).toContain('--force');
    expect(problem.message).not.toContain('never the worker');
    expect(problem.hint).toContain('--force');
  });

  it('tells the worker that a verifier or coordinator closes', () => {
    expect(refusal('worker').problem.message).toContain('only a verifier or coordinator closes it on a PASS, never the worker');
  });

  it('lets the verifier and coordinator close', () => {
    expect(() => requireRole(actor('verifier'), 'complete', 'independent')).not.toThrow();
    expect(() => requireRole(actor('coordinator'), 'complete', 'independent')).not.toThrow();
  });
});
