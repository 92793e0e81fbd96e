import type { Ledger, RecentEntry } from '../ledger/ledger.js';
import type { GateBody } from '../ledger/session-entries.js';

/** A person's act the ledger recorded while a session ran. */
export interface RecordedAct {
  /** The command that records such an entry: `vouch gc`, `vouch card reprove C`... */
  readonly command: string;
  /** When it was recorded (ISO time). */
  readonly at: string;
  readonly seq: number;
}

/** The kinds of entry a person's act leaves: a gc record, card events, dispatch transitions. */
const ACT_KINDS = ['gc', 'card', 'dispatch'] as const;

/**
 * The acts that change what vouches, recorded in this workspace's ledger
 * since the session began (or since a person last accepted the workspace as
 * it is with `vouch allow`), whoever ran them: markers can be stripped and a
 * script hides a call from the guard, so the ledger's result is what
 * counts. A gc (it erases receipts and every session's trail), a card
 * decision (rescope, revise-script, split, abandon, reprove; not a retry or an ask) or forced
 * close, and a grade of a dispatch from the command line. Not an act: a
 * grade the gate asked a person for (this session's last stop before it
 * was held on that very dispatch, reported and ungraded); the gate's own
 * grades at a subagent's stop; a dispatch closed (an agent may close one,
 * and it lets no stop through by itself).
 */
export async function actsDuringSession(ledger: Ledger, session: string, since: Date): Promise<RecordedAct[]> {
  const entries = await ledger.entriesSince(since, ACT_KINDS);
  const acts: RecordedAct[] = [];
  let awaited: ((entry: RecentEntry, dispatch: string) => boolean) | null = null;
  for (const entry of entries) {
    const command = actOf(entry);
    if (command === null) continue;
    if (command.grade !== null) {
      awaited ??= await awaitedGrades(ledger, session);
      if (awaited(entry, command.grade)) continue;
    }
    acts.push({ command: command.text, at: new Date(entry.createdAt).toISOString(), seq: entry.seq });
  }
  return acts;
}

/** The command an entry records, when it is a person's act; `grade` names the dispatch a grade was of. */
function actOf(entry: RecentEntry): { text: string; grade: string | null } | null {
  const body = entry.body;
  // An entry that does not parse is damage the audit reports; here it is something that happened.
  if (body === null) return { text: `an unreadable ${entry.kind} entry (seq ${entry.seq})`, grade: null };
  const subject = typeof body.subject === 'string' ? body.subject : '?';
  switch (entry.kind) {
    case 'gc':
      return { text: body.auto === true ? 'vouch verify (its automatic gc)' : 'vouch gc', grade: null };
    case 'card':
      if (body.event === 'owner_close') return { text: `vouch card complete ${subject} --force`, grade: null };
      if (body.event !== 'decision') return null;
      // A coordinator's retry or ask leaves what closes the card as it was: not a person's act.
      if (body.decision === 'retry' || body.decision === 'ask') return null;
      return {
        text:
          body.decision === 'reprove'
            ? `vouch card reprove ${subject}`
            : `vouch card decide ${subject} ${typeof body.decision === 'string' ? body.decision.replace('_', '-') : ''}`.trimEnd(),
        grade: null,
      };
    case 'dispatch': {
      const writer = body.writer as { actor?: unknown } | undefined;
      const graded = body.event === 'verified' || body.event === 'contradicted';
      return graded && writer?.actor !== 'hook' ? { text: `vouch dispatch grade ${subject}`, grade: subject } : null;
    }
    default:
      return null;
  }
}

/** Whether a grade was asked for: this session's last stop before it was held on that dispatch, reported and not yet graded. */
async function awaitedGrades(ledger: Ledger, session: string): Promise<(entry: RecentEntry, dispatch: string) => boolean> {
  const stops = (await ledger.sessionEntries(session)).filter((stored) => stored.intact && stored.body.kind === 'gate' && stored.body.event === 'Stop');
  return (entry, dispatch) => {
    const before = stops.filter((stored) => stored.seq < entry.seq).at(-1)?.body as GateBody | undefined;
    return before?.decision === 'block' && (before.dispatches ?? []).some((d) => d.id === dispatch && d.state === 'reported' && !d.running);
  };
}
