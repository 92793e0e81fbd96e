import type { StoredReceipt } from '../receipt/receipt.js';

/**
 * Whether a failed run's output reads like the environment's fault rather
 * than the code's: a program or file not found, TLS trust, DNS, a refused
 * or reset connection, a variable said to be missing. Only then is naming
 * the caller's withheld variables a hint worth giving; under an assertion
 * failure it is noise that sends a person the wrong way.
 */
const SIGNS: readonly RegExp[] = [
  // A program or file the command needed.
  /command not found|: not found$|No such file or directory|\bENOENT\b|is not recognized as an internal|cannot find module|ModuleNotFoundError|\bexec format error\b/im,
  // TLS trust.
  /certificate|\bCERT_[A-Z_]+\b|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|SSLError|\bssl\b.*\bverify/i,
  // Names and connections.
  /\bENOTFOUND\b|\bEAI_AGAIN\b|getaddrinfo|Could not resolve host|Temporary failure in name resolution|Name or service not known|\bECONNREFUSED\b|\bECONNRESET\b|\bETIMEDOUT\b|Connection refused|Network is unreachable|\bEHOSTUNREACH\b/i,
  // A variable said to be missing.
  /\b(environment variable|env var)\b|\b[A-Z][A-Z0-9_]{2,}\b (is )?(not set|unset|undefined|missing|required)\b|KeyError: '[A-Z][A-Z0-9_]+'|must be set\b/i,
];

/** Does `text` carry one of the signs above? */
export function looksEnvironmental(text: string): boolean {
  return SIGNS.some((sign) => sign.test(text));
}

/**
 * A receipt that did not pass because of what its environment lacked, as
 * far as its recorded output and reason tell: a command that could not
 * start always counts; otherwise its redacted excerpts (head and tail of
 * each stream) and its detail are read for the signs.
 */
export function environmentSuspected(receipt: StoredReceipt): boolean {
  const body = receipt.body;
  if (body.verdict === 'PASS') return false;
  if (body.reason === 'spawn_error' || body.exit_code === 127 || body.exit_code === 126) return true;
  const text = [body.stdout?.excerpt ?? '', body.stderr?.excerpt ?? '', body.detail ?? ''].join('\n');
  return looksEnvironmental(text);
}
