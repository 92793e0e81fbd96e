import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { privateBase } from './place.js';

describe('where a private copy is made', () => {
  it('a small copy in the shared-memory tmpfs (0700, fresh); one over 256 MiB under the state directory, never in memory', () => {
    const state = mkdtempSync(join(tmpdir(), 'vouch-place-'));
    try {
      const small = privateBase(state, 1024);
      expect(statSync(small).mode & 0o777).toBe(0o700);
      rmSync(small, { recursive: true });
      const large = privateBase(state, 300 * 1024 ** 2);
      expect(large.startsWith(join(state, 'hermetic', 'run-'))).toBe(true);
      expect(statSync(large).mode & 0o777).toBe(0o700);
      // /dev/shm where it is a tmpfs (Linux); the state directory anywhere else.
      expect(small.startsWith('/dev/shm/vouch-hermetic-') || small.startsWith(join(state, 'hermetic'))).toBe(true);
    } finally {
      rmSync(state, { recursive: true, force: true });
    }
  });
});
