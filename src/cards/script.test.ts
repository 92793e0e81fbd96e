import { describe, expect, it } from 'vitest';
import { sha256 } from '../core/digest.js';
import type { ProofSnapshot } from './model.js';
import { scriptCheck, useScript } from './script.js';

const proof = {
  kind: 'script',
  policy: { spec_sha256: sha256('spec'), excerpt_bytes: 4096, signing_key: null, require_signature: false },
  name: 'proof.sh',
  path: '.vouch/cards/c-00000000/proof.sh',
  scope: ['src/**'],
  timeout: 120,
  bound_sha256: null,
  digest: sha256('d'),
} as const satisfies ProofSnapshot;
const [a, b, c] = [sha256('a'), sha256('b'), sha256('c')];

describe('useScript: a script runs only as bound, or as the one revision a decision authorised', () => {
  it('binds on the first run', () => {
    expect(useScript(proof, { bound: null, pending: null }, a)).toEqual({ ok: true, value: { name: 'proof.sh', sha256: a, binding: 'first', decision: null } });
  });
  it('runs the bound hash', () => {
    expect(useScript(proof, { bound: a, pending: null }, a)).toMatchObject({ ok: true, value: { binding: 'same' } });
  });
  it('refuses any other hash without a decision', () => {
    expect(useScript(proof, { bound: a, pending: null }, b)).toMatchObject({ ok: false, error: { code: 'card_script_changed', found: b } });
  });
  it('runs exactly the authorised revision, and no third hash', () => {
    expect(useScript(proof, { bound: a, pending: { decision: 'd1', sha256: b } }, b)).toMatchObject({
      ok: true,
      value: { binding: 'revised', decision: 'd1' },
    });
    expect(useScript(proof, { bound: a, pending: { decision: 'd1', sha256: b } }, c)).toMatchObject({ ok: false, error: { code: 'card_script_changed' } });
  });
});

describe('scriptCheck: the definition a script proof runs as', () => {
  it('binds the script hash into the definition digest, and not where the private copy runs from', () => {
    const here = scriptCheck('c-00000000', proof, a, '/tmp/x/proof.sh');
    const there = scriptCheck('c-00000000', proof, a, '/var/y/proof.sh');
    expect(here.definitionDigest).toBe(there.definitionDigest);
    expect(here.run).toEqual(['/tmp/x/proof.sh']);
    expect(scriptCheck('c-00000000', proof, b).definitionDigest).not.toBe(here.definitionDigest);
    expect(here.id).toBe('card:c-00000000:proof.sh');
    expect(here.sources).toEqual(['src/**']);
  });
});
