import { describe, expect, it } from 'vitest';
import { isLoopback, remoteBase } from './url.js';

describe('the verifier URL policy', () => {
  it.each([
    ['https://verify.example.internal', false],
    ['https://verify.example.internal:8443/vouch', false],
    ['http://127.0.0.1:8787', true],
    ['http://[::1]:8787', true],
    ['http://localhost:8787', true],
  ])('accepts %s (--insecure-loopback: %s)', (url, insecure) => {
    expect(remoteBase(url, insecure).ok).toBe(true);
  });

  it.each([
    ['plain http to loopback without the flag', 'http://127.0.0.1:8787', false, 'refused unless asked for'],
    ['plain http to another host, even with the flag', 'http://verify.example.internal', true, 'not on this machine'],
    ['plain http to a name that only starts like loopback', 'http://127.0.0.1.example.com', true, 'not on this machine'],
    ['credentials in the URL', 'https://user:pw@verify.example.internal', false, 'carries credentials'],
    ['a query', 'https://verify.example.internal/?token=x', false, 'query or fragment'],
    ['another scheme', 'ftp://verify.example.internal', false, 'not https'],
    ['garbage', 'not a url', false, 'cannot be parsed'],
  ])('refuses %s', (_name, url, insecure, why) => {
    const result = remoteBase(url, insecure);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.message).toContain(why);
  });

  it('knows loopback from look-alikes', () => {
    expect(['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'LOCALHOST'].every(isLoopback)).toBe(true);
    expect(['128.0.0.1', '127.0.0.1.nip.io', 'localhost.example', '0.0.0.0'].some(isLoopback)).toBe(false);
  });
});
