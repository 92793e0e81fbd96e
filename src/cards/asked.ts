import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sha256 } from '../core/digest.js';
import type { AskingSession } from './model.js';

/*
 * Which cards a session opened, per workspace, kept in VOUCH_HOME (read-only
 * inside the agent's box): so a Stop finds the answers it is owed with one
 * read, and a session that opened no card pays one missing file. Only a
 * hint of where to look: what the session asked and what it was shown are
 * the card's own events (asked_from, answered).
 */

interface AskedFile {
  readonly cards: readonly { readonly workspace: string; readonly card: string }[];
}

function askedPath(home: string, asker: AskingSession): string {
  return join(home, 'crew', 'asked', `${sha256(`${asker.client}\0${asker.session}`).slice(0, 32)}.json`);
}

function readAsked(path: string): AskedFile['cards'] {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as { cards?: unknown };
    if (!Array.isArray(value.cards)) return [];
    return value.cards.flatMap((entry: unknown) => {
      const c = entry as { workspace?: unknown; card?: unknown } | null;
      return c && typeof c.workspace === 'string' && typeof c.card === 'string' ? [{ workspace: c.workspace, card: c.card }] : [];
    });
  } catch {
    return [];
  }
}

function writeAsked(path: string, cards: AskedFile['cards']): void {
  if (cards.length === 0) {
    rmSync(path, { force: true });
    return;
  }
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ cards })}\n`, { mode: 0o600 });
  renameSync(temp, path);
}

/** The session opened this card: its Stop will look at it. Best effort: a home that cannot be written leaves the answer unsent, never the card unopened. */
export function noteAsked(home: string, asker: AskingSession, workspace: string, card: string): void {
  try {
    const path = askedPath(home, asker);
    writeAsked(path, [...readAsked(path), { workspace, card }]);
  } catch {
    // Nothing to undo: the card is open, only its answer will not be delivered.
  }
}

/** The cards this session opened in this workspace that may still owe it an answer. */
export function askedCards(home: string, asker: AskingSession, workspace: string): string[] {
  return readAsked(askedPath(home, asker))
    .filter((c) => c.workspace === workspace)
    .map((c) => c.card);
}

/** These cards owe the session nothing more (closed and answered, or gone). */
export function forgetAsked(home: string, asker: AskingSession, workspace: string, cards: readonly string[]): void {
  if (cards.length === 0) return;
  const path = askedPath(home, asker);
  writeAsked(
    path,
    readAsked(path).filter((c) => c.workspace !== workspace || !cards.includes(c.card)),
  );
}
