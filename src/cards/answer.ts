import type { Ledger } from '../ledger/ledger.js';
import type { CardView } from './fold.js';
import type { Question } from './model.js';

/** What a card has to tell the session that opened it: how it closed, or the one question it asks. */
export type CardAnswer =
  | {
      readonly kind: 'done';
      /** The completed event. */
      readonly event: string;
      /** Exit codes of the receipts of the PASS that closed it (null: none recorded). */
      readonly exitCodes: readonly (number | null)[];
      /** Runs of the proof in force, and how many of them failed (each a fix the worker then made). */
      readonly runs: number;
      readonly fixes: number;
    }
  | { readonly kind: 'asks'; readonly event: string; readonly question: Question }
  | { readonly kind: 'owner_closed' | 'split' | 'abandoned'; readonly event: string; readonly why: string; readonly into: readonly string[] };

/** The answer the card owes its asker now, or null: still working, or already shown. */
export async function pendingAnswer(ledger: Ledger, view: CardView): Promise<CardAnswer | null> {
  const answer = await answerOf(ledger, view);
  return answer !== null && !view.answered.includes(answer.event) ? answer : null;
}

async function answerOf(ledger: Ledger, view: CardView): Promise<CardAnswer | null> {
  switch (view.state) {
    case 'done': {
      const completed = view.completed!;
      const exitCodes = await Promise.all(
        completed.body.receipts.map(async (r) => {
          const found = await ledger.findReceipt(r.receipt);
          return found.kind === 'found' ? found.receipt.body.exit_code : null;
        }),
      );
      const upTo = view.verdicts.findIndex((v) => v.body.id === completed.body.verdict_event);
      const runs = view.verdicts.slice(0, upTo + 1);
      return { kind: 'done', event: completed.body.id, exitCodes, runs: runs.length, fixes: runs.filter((v) => v.body.verdict !== 'PASS').length };
    }
    case 'owner_closed':
      return { kind: 'owner_closed', event: view.ownerClose!.body.id, why: view.ownerClose!.body.why, into: [] };
    case 'split':
    case 'abandoned':
      return { kind: view.state, event: view.closing!.body.id, why: view.closing!.body.why, into: view.closing!.body.into ?? [] };
    case 'open':
    case 'claimed': {
      const asked = view.question;
      return asked?.body.ask ? { kind: 'asks', event: asked.body.id, question: asked.body.ask } : null;
    }
  }
}
