import { Readable } from 'node:stream';
import type { Pool } from 'pg';

/**
 * A job's upload, read back part by part as unpacking asks for more: a
 * worker holds one part (at most 1 MiB) at a time, never the archive.
 * Stops without reading further when the consumer stops (a refused
 * archive, a bomb stopped at its end marker).
 */
export function archiveStream(pool: Pool, jobId: string, parts: number): Readable {
  let next = 0;
  return new Readable({
    read() {
      if (next >= parts) {
        this.push(null);
        return;
      }
      const part = next++;
      pool
        .query<{ bytes: Buffer }>('SELECT bytes FROM job_archive_parts WHERE job_id = $1 AND part = $2', [jobId, part])
        .then((result) => {
          const row = result.rows[0];
          if (!row) this.destroy(new Error(`part ${part} of the upload is missing`));
          else this.push(row.bytes);
        })
        .catch((error: unknown) => this.destroy(error instanceof Error ? error : new Error(String(error))));
    },
  });
}
