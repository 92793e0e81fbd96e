import type { Problem } from '../core/problem.js';
import { err, ok, type Result } from '../core/result.js';

/** Hosts that never leave this machine. */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * The verifier's base URL: https, or http only to a loopback address and
 * only when asked for (--insecure-loopback). No credentials, query or
 * fragment in it: the token travels in a header, from the environment.
 */
export function remoteBase(value: string, insecureLoopback: boolean): Result<URL, Problem> {
  const bad = (message: string, hint: string): Result<never, Problem> =>
    err({
      code: 'usage',
      message,
      where: '--remote',
      expected: 'https://HOST[:PORT][/PATH], or http://127.0.0.1:PORT with --insecure-loopback',
      found: value,
      hint,
    });
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return bad('the verifier URL cannot be parsed', 'give the base URL of `vouch serve`, e.g. https://verify.example.internal');
  }
  if (url.username !== '' || url.password !== '')
    return bad('the verifier URL carries credentials', 'put the token in VOUCH_TOKEN (or --token-env NAME), never in the URL');
  if (url.search !== '' || url.hash !== '') return bad('the verifier URL has a query or fragment', 'give the base URL only');
  if (url.protocol === 'https:') return ok(url);
  if (url.protocol !== 'http:') return bad(`the verifier URL uses ${url.protocol}, not https:`, 'use https://');
  if (!isLoopback(url.hostname)) {
    return bad(
      'plain http:// is refused for a verifier that is not on this machine: the job, the token and the receipts would cross the network in clear',
      'use https://',
    );
  }
  if (!insecureLoopback)
    return bad('plain http:// is refused unless asked for, even on loopback', 'add --insecure-loopback to use http:// to 127.0.0.1, ::1 or localhost');
  return ok(url);
}
