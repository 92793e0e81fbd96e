import { describe, expect, it } from 'vitest';
import { looksEnvironmental } from './environment-signs.js';

describe('looksEnvironmental: when naming withheld variables is a hint, not noise', () => {
  it.each([
    ['a shell', 'sh: 1: eslint: not found'],
    ['bash', 'bash: jest: command not found'],
    ['node', "Error: Cannot find module 'left-pad'"],
    ['python', "ModuleNotFoundError: No module named 'requests'"],
    ['TLS', 'Error: self signed certificate in certificate chain'],
    ['TLS code', 'code: UNABLE_TO_GET_ISSUER_CERT_LOCALLY'],
    ['DNS', 'getaddrinfo ENOTFOUND registry.npmjs.org'],
    ['curl', 'curl: (6) Could not resolve host: example.com'],
    ['a refused connection', 'connect ECONNREFUSED 127.0.0.1:5432'],
    ['a missing variable', 'DATABASE_URL is not set'],
    ['os.environ', "KeyError: 'API_BASE'"],
  ])('says yes for %s', (_name, text) => {
    expect(looksEnvironmental(text)).toBe(true);
  });

  it.each([
    ['an assertion', 'AssertionError [ERR_ASSERTION]: -1 == 3'],
    ['TAP', 'not ok 1 - adds\n# fail 1'],
    ['pytest', 'E       assert -1 == 3\nFAILED tests/test_add.py::test_add - assert -1 == 3'],
    ['a type error', "TypeError: Cannot read properties of undefined (reading 'x')"],
    ['rustc', 'error[E0308]: mismatched types'],
  ])('says no for %s', (_name, text) => {
    expect(looksEnvironmental(text)).toBe(false);
  });
});
