import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { transcriptTokens } from './tokens.js';

const line = (id: string, usage: Record<string, number>) => JSON.stringify({ type: 'assistant', message: { id, role: 'assistant', usage } });

describe('transcriptTokens', () => {
  it('counts every kind of token of each assistant message once, however many lines repeat it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-tokens-'));
    const path = join(dir, 't.jsonl');
    const first = { input_tokens: 100, cache_creation_input_tokens: 20, cache_read_input_tokens: 30, output_tokens: 7 };
    writeFileSync(
      path,
      [
        JSON.stringify({ type: 'user', message: { role: 'user', content: 'hi' } }),
        line('m1', first),
        line('m1', first),
        'not json "usage"',
        line('m2', { input_tokens: 5, output_tokens: 1 }),
        '',
      ].join('\n'),
    );
    expect(transcriptTokens(path)).toBe(157 + 6);
  });

  it('gives null for a transcript it cannot read, never a guess', () => {
    expect(transcriptTokens('/nonexistent/transcript.jsonl')).toBeNull();
  });
});
