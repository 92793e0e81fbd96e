import type { ReceiptBody } from '../receipt/receipt.js';

const MAX_LINES = 12;
const MAX_CHARS = 1200;

/**
 * A short piece of a receipt's output for the agent to read: the last lines
 * of stderr (or stdout when stderr is empty). Receipt excerpts are redacted
 * when recorded; this only shortens them further, so a block reason stays a
 * few lines long.
 */
export function excerptOf(body: ReceiptBody): string | null {
  const stream = body.stderr?.excerpt.trim() ? body.stderr : body.stdout;
  const text = stream?.excerpt.trimEnd();
  if (!text) return null;
  let tail = text.split('\n').slice(-MAX_LINES).join('\n');
  if (tail.length > MAX_CHARS) tail = `…${tail.slice(tail.length - MAX_CHARS)}`;
  return tail;
}
