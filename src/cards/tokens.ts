import { readFileSync } from 'node:fs';

/** How much of a transcript is read at most: a worker's transcript past this is over any sane budget anyway. */
const TRANSCRIPT_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Tokens a transcript shows spent: for every assistant message (counted
 * once by its id: the client writes one line per content block, each
 * repeating the message's usage), its input, cache-creation, cache-read and
 * output tokens. The client's own record, read leniently: a line that is
 * not JSON, or has no usage, counts nothing; a file that cannot be read
 * gives null, never a guess.
 */
export function transcriptTokens(path: string): number | null {
  let text: string;
  try {
    const bytes = readFileSync(path);
    text = bytes.subarray(0, TRANSCRIPT_MAX_BYTES).toString('utf8');
  } catch {
    return null;
  }
  const seen = new Set<string>();
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.includes('"usage"')) continue;
    let entry: { message?: { id?: unknown; usage?: Record<string, unknown> } } | null;
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    const message = entry?.message;
    const usage = message?.usage;
    if (!usage || typeof usage !== 'object') continue;
    if (typeof message.id === 'string') {
      if (seen.has(message.id)) continue;
      seen.add(message.id);
    }
    for (const key of ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens', 'output_tokens']) {
      const value = usage[key];
      if (typeof value === 'number' && Number.isFinite(value) && value > 0) total += value;
    }
  }
  return total;
}
