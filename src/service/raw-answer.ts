import { STATUS_CODES } from 'node:http';
import { apiStatus, type ApiError } from './errors.js';

/**
 * An error answer written straight to a socket, for what is refused below
 * the HTTP server (a connection over the cap, a request Node's parser
 * rejects: headers too large, a malformed request line, a header timeout):
 * the same `{"error": {...}}` as every other answer, and the connection
 * closes after it.
 */
export function rawAnswer(error: ApiError, headers: Readonly<Record<string, string>> = {}): string {
  const status = apiStatus(error.code);
  const body = JSON.stringify({ error });
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}
