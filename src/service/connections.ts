import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { rawAnswer } from './raw-answer.js';

/** How many connections the API holds at once. */
export interface ConnectionLimits {
  /** From one remote address (behind a proxy, every client is the proxy's address: raise it to `total`). */
  readonly perAddress: number;
  /** In all; lowered, when the process may open fewer descriptors, to leave room for the database and files. */
  readonly total: number;
}

/** Descriptors kept free for the database pool, the workers' files and Node's own. */
const RESERVED_FDS = 64;

/** The connections the API may hold given this process's descriptor limit (its soft RLIMIT_NOFILE, from /proc), never above `wanted`. */
export function connectionRoom(wanted: number, limits: string = readLimits()): number {
  const soft = /^Max open files\s+(\d+)/m.exec(limits)?.[1];
  if (soft === undefined) return wanted;
  return Math.max(1, Math.min(wanted, Number(soft) - RESERVED_FDS));
}

/** What a refusal counts, for the operator's log. */
export type ConnectionRefusal = { readonly kind: 'per_address'; readonly address: string } | { readonly kind: 'total' };

/**
 * Caps the connections the server holds, from one address and in all, as
 * they are accepted: one over a cap is answered `503 unavailable` (best
 * effort: it may not be read) and closed before anything of it is read,
 * so idle connections cannot take the server to its descriptor limit and
 * a healthz from elsewhere is still answered. A connection counts until it
 * closes (the server's idle and header timeouts close the idle ones).
 */
export function capConnections(server: Server, limits: ConnectionLimits, onRefused?: (refusal: ConnectionRefusal) => void): void {
  const byAddress = new Map<string, number>();
  let total = 0;
  server.on('connection', (socket: Socket) => {
    const address = (socket.remoteAddress ?? 'unknown').replace(/^::ffff:/, '');
    const fromThere = byAddress.get(address) ?? 0;
    const refusal: ConnectionRefusal | undefined =
      fromThere >= limits.perAddress ? { kind: 'per_address', address } : total >= limits.total ? { kind: 'total' } : undefined;
    if (refusal) {
      onRefused?.(refusal);
      refuse(socket, refusal, limits);
      return;
    }
    byAddress.set(address, fromThere + 1);
    total++;
    socket.once('close', () => {
      total--;
      const left = (byAddress.get(address) ?? 1) - 1;
      if (left === 0) byAddress.delete(address);
      else byAddress.set(address, left);
    });
  });
}

function refuse(socket: Socket, refusal: ConnectionRefusal, limits: ConnectionLimits): void {
  const perAddress = refusal.kind === 'per_address';
  const answer = rawAnswer(
    {
      code: 'unavailable',
      message: perAddress ? `too many connections from ${refusal.address}` : 'the server holds as many connections as it may',
      limit: perAddress ? limits.perAddress : limits.total,
      hint: perAddress
        ? 'close idle connections, or send fewer requests at once; behind a proxy the operator raises --max-connections-per-address'
        : 'try again in a moment',
    },
    { 'retry-after': '5' },
  );
  socket.on('error', () => undefined);
  socket.end(answer, () => socket.destroy());
  // A peer that reads nothing does not keep the descriptor either.
  setTimeout(() => socket.destroy(), 1000).unref();
}

function readLimits(): string {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return '';
  }
}
