import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import { storePart } from './upload.js';

/** An upload is stored in parts of about this size as it arrives. */
export const PART_BYTES = 1024 * 1024;

export type Received =
  | { readonly ok: true; readonly bytes: number; readonly parts: number; readonly sha256: string }
  | { readonly ok: false; readonly why: 'too_large' | 'too_slow' | 'broken'; readonly bytes: number; readonly detail: string };

/**
 * Reads an upload body into a job's parts, a part at a time: the next
 * bytes are not read until the part before them is stored, so memory holds
 * one part per upload whatever its size or speed. Stops reading at
 * `maxBytes` (the rest is never read) and after `timeoutMs`.
 */
export async function receiveUpload(
  body: AsyncIterable<Buffer> & { destroy(error?: Error): void },
  pool: Pool,
  jobId: string,
  maxBytes: number,
  timeoutMs: number,
): Promise<Received> {
  const hash = createHash('sha256');
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let bytes = 0;
  let parts = 0;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    body.destroy(new Error('upload time limit'));
  }, timeoutMs);
  const flush = async () => {
    if (pendingBytes === 0) return;
    const part = Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    try {
      await storePart(pool, jobId, parts++, part);
    } catch (error) {
      throw new StoreFailed(error);
    }
  };
  try {
    for await (const chunk of body) {
      bytes += chunk.length;
      if (bytes > maxBytes) return { ok: false, why: 'too_large', bytes, detail: `more than ${maxBytes} bytes` };
      hash.update(chunk);
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes >= PART_BYTES) await flush();
    }
    await flush();
  } catch (error) {
    // The database failing is the server's failure, not a broken upload.
    if (error instanceof StoreFailed) throw error.cause;
    if (timedOut) return { ok: false, why: 'too_slow', bytes, detail: `the upload took longer than ${timeoutMs / 1000} s` };
    return { ok: false, why: 'broken', bytes, detail: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
  return { ok: true, bytes, parts, sha256: hash.digest('hex') };
}

/** Storing a part failed: a server failure, told apart from the body breaking off. */
class StoreFailed extends Error {
  constructor(override readonly cause: unknown) {
    super('storing a part of the upload failed');
  }
}
