import { describe, expect, it } from 'vitest';
import { redact } from './redact.js';

describe('redact', () => {
  it.each([
    ['GitHub classic token', 'push with ghp_0123456789abcdefghijABCDEFGHIJ012345 now', 'ghp_0123456789'],
    ['GitHub fine-grained token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz', 'github_pat_11'],
    ['OpenAI key', 'OPENAI=sk-proj-abcdefghijklmnop1234567890', 'sk-proj-abcdef'],
    ['Anthropic key', 'key sk-ant-api03-abcdefghijklmnopqrstuv', 'sk-ant-api03'],
    ['AWS access key id', 'id AKIAIOSFODNN7EXAMPLE end', 'AKIAIOSFODNN7EXAMPLE'],
    ['AWS secret key', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'wJalrXUtnFEMI'],
    ['Bearer header', 'Authorization: Bearer abcdef0123456789.token', 'abcdef0123456789'],
    ['private key block', '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----', 'b3BlbnNzaC1rZXk'],
    ['Slack token', 'xoxb-123456789012-abcdefghij', 'xoxb-1234'],
    ['password assignment', 'password="hunter2hunter2"', 'hunter2'],
    ['JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnop', 'eyJzdWIi'],
  ])('removes a %s', (_name, input, secret) => {
    const out = redact(input);
    expect(out).not.toContain(secret);
    expect(out).toContain('[REDACTED]');
  });

  it('leaves ordinary test output alone', () => {
    const text = ' ✓ src/a.test.ts (3 tests) 12ms\n Test Files  1 passed (1)\n exit 0\n';
    expect(redact(text)).toBe(text);
  });

  it('keeps the name of an assigned secret readable', () => {
    expect(redact('token: abcdefghijkl')).toBe('token: [REDACTED]');
  });
});
