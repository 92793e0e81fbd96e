import { closeSync, openSync, readSync, constants } from 'node:fs';
import { sha256, type Sha256 } from '../core/digest.js';

const HEAD_BYTES = 256 * 1024;
const PROMPT_MAX = 20_000;

/**
 * The spawn prompt of a subagent, from the client's own transcript of it
 * (Claude Code's agent_transcript_path, whose first entry is the prompt as a
 * user message). Neither subagent hook payload carries the prompt; the
 * transcript is the client's record, not the agent's. Read leniently: any
 * other shape, or a file that cannot be read, gives null, never a guess.
 */
export function readTranscriptPrompt(path: string): { text: string; sha256: Sha256; truncated: boolean } | null {
  let head: string;
  try {
    const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const buffer = Buffer.alloc(HEAD_BYTES);
      const n = readSync(fd, buffer, 0, HEAD_BYTES, 0);
      head = buffer.subarray(0, n).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
  const newline = head.indexOf('\n');
  if (newline < 0) return null;
  let entry: unknown;
  try {
    entry = JSON.parse(head.slice(0, newline));
  } catch {
    return null;
  }
  const record = entry as { type?: unknown; message?: { role?: unknown; content?: unknown } } | null;
  if (record?.type !== 'user' || record.message?.role !== 'user') return null;
  const content = record.message.content;
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.flatMap((part: { type?: unknown; text?: unknown }) => (part?.type === 'text' && typeof part.text === 'string' ? [part.text] : [])).join('\n')
        : '';
  if (text.trim() === '') return null;
  return { text: text.length > PROMPT_MAX ? text.slice(0, PROMPT_MAX) : text, sha256: sha256(text), truncated: text.length > PROMPT_MAX };
}
