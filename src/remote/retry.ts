import { call, type Reply, type Request } from './http.js';

/** Told before each retry: what failed, and how long until the next try. */
export type OnRetry = (detail: string, inMs: number) => void;

const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 5000;

/**
 * One call to the verifier, tried again after a transient failure (a 5xx,
 * a refused or reset connection, no answer in time) with doubling pauses,
 * until `deadline` (epoch ms). Submitting again is safe: the job carries
 * the client's nonce, and the server answers a second submission with the
 * job the first one made. Anything else (a refusal, a redirect) is
 * answered at once.
 */
export async function callWithRetry(base: URL, request: Request, deadline: number, onRetry?: OnRetry): Promise<Reply> {
  let delay = FIRST_DELAY_MS;
  let tries = 1;
  for (;;) {
    const reply = await call(base, request);
    if (reply.kind !== 'unavailable' || !reply.transient) return reply;
    if (Date.now() + delay > deadline || request.signal?.aborted) {
      return tries === 1 ? reply : { ...reply, detail: `${reply.detail} (still, after ${tries} tries within --wait)` };
    }
    onRetry?.(reply.detail, delay);
    await pause(delay, request.signal);
    tries++;
    delay = Math.min(delay * 2, MAX_DELAY_MS);
  }
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
