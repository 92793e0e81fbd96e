import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalize } from './jcs.js';

// The official vectors of RFC 8785's author (see test/fixtures/jcs/README.md).
const VECTORS = join(import.meta.dirname, '../../test/fixtures/jcs');
const vectorNames = readdirSync(join(VECTORS, 'output')).filter((name) => name.endsWith('.json'));

describe('canonicalize against the cyberphone/json-canonicalization test vectors', () => {
  it('has the vectors to run', () => {
    expect(vectorNames.length).toBeGreaterThanOrEqual(6);
  });

  it.each(vectorNames)('%s: byte-exact output', (name) => {
    const input = readFileSync(join(VECTORS, 'input', name), 'utf8');
    const expected = readFileSync(join(VECTORS, 'output', name));
    expect(Buffer.from(canonicalize(JSON.parse(input)), 'utf8').equals(expected)).toBe(true);
    expect(canonicalize(JSON.parse(input))).toBe(expected.toString('utf8'));
  });
});

describe('canonicalize (RFC 8785)', () => {
  it.each([
    ['sorts keys by UTF-16 code units', { b: 1, a: 2, A: 3, é: 4, '\u{1F600}': 5, '\uFB33': 6 }, '{"A":3,"a":2,"b":1,"\u00e9":4,"\u{1F600}":5,"\uFB33":6}'],
    ['serialises numbers as ECMAScript does', [1e21, 1e-7, -0, 0.1, 100, 1.5e300], '[1e+21,1e-7,0,0.1,100,1.5e+300]'],
    ['escapes only what JSON requires', 'a"\\\n\u0001\u2028/', '"a\\"\\\\\\n\\u0001\u2028/"'],
    ['keeps array order and nests', { z: [3, { y: null, x: true }], a: [] }, '{"a":[],"z":[3,{"x":true,"y":null}]}'],
    ['drops undefined members like JSON.stringify', { a: undefined, b: 1 }, '{"b":1}'],
  ])('%s', (_name, value, expected) => {
    expect(canonicalize(value)).toBe(expected);
  });

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a function', () => 1],
    ['a bigint', 1n],
  ])('refuses %s', (_name, value) => {
    expect(() => canonicalize({ value })).toThrow(/JCS/);
  });
});
