import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { CardContext } from '../cards/context.js';
import type { CardActor, StopReason, StoppedEvent } from '../cards/model.js';
import { readWorker, writeWorker, type WorkerRef } from '../cards/worker.js';
import type { Client } from '../clients/registry.js';
import { locateForHook } from '../gate/locate.js';
import type { HookContext } from './context.js';
import type { HookPayload } from './payload.js';

/** Failed tool calls in a row after which a card's worker is stopped: it is spinning, not working. */
export const FAILED_CALLS_LIMIT = 5;

/**
 * `vouch card claim ID` in a shell command, by the command's name or its
 * entry (`node …/dist/cli.js card claim ID`, `npx vouch …`): the agent says
 * which card it works on. A false match binds only the agent that wrote it:
 * its budget counts, and the gate runs that card's proof at its stop.
 */
export const CLAIM = /(?:\bvouch(?:\.js|\.mjs)?|\bcli\.m?js)\b[^;&|]*\bcard\s+claim\s+(c-[0-9a-hjkmnp-tv-z]{8})\b/;

/** Whether a finished tool call failed, by what the client says: a failure event, a non-zero exit, an error flag. */
export function callFailed(event: string, response: unknown): boolean {
  if (event === 'PostToolUseFailure') return true;
  if (typeof response !== 'object' || response === null) return false;
  const r = response as Record<string, unknown>;
  for (const key of ['exit_code', 'exitCode', 'returncode']) if (typeof r[key] === 'number' && r[key] !== 0) return true;
  return r.is_error === true || r.isError === true || r.success === false;
}

/** The transcript of the agent that made the call: a subagent's own (Claude Code keeps it beside the session's), else the session's. */
function transcriptOf(payload: HookPayload): string | null {
  if (payload.agentTranscriptPath) return payload.agentTranscriptPath;
  const main = payload.transcriptPath;
  if (!main) return null;
  if (payload.agentId === null) return main;
  const own = join(dirname(main), basename(main, '.jsonl'), 'subagents', `agent-${payload.agentId}.jsonl`);
  return existsSync(own) ? own : null;
}

const HOOK_ACTOR = (client: Client): CardActor => ({ role: 'worker', role_from: 'default', agent: client, via: 'hook' });

/**
 * PostToolUse / PostToolUseFailure / SubagentStop: keeps a card's worker
 * within its budget. A successful `vouch card claim ID` binds the agent to
 * that card. For a bound agent, a failed call adds one to its failures in
 * a row (a success resets them), and its tokens are counted from its
 * transcript: over the card's --budget-tokens, or at five failures in a
 * row, the card records a `stopped` event and the guard denies the agent's
 * further calls until a decision.
 */
export async function noteWorkerCall(client: Client, event: string, payload: HookPayload, ctx: HookContext): Promise<void> {
  const place = locateForHook(payload.cwd ?? ctx.fallbackCwd);
  if (place.kind !== 'spec' || payload.session === null) return;
  const worker: WorkerRef = { client, session: payload.session, agent: payload.agentId };
  const failed = event !== 'SubagentStop' && callFailed(event, payload.toolResponse);
  const command = (payload.toolInput as { command?: unknown } | null)?.command;
  const claimed = typeof command === 'string' && !failed ? CLAIM.exec(command)?.[1] : undefined;
  const before = readWorker(ctx.home, worker);
  if (claimed !== undefined && claimed !== before?.card) {
    writeWorker(ctx.home, worker, { card: claimed, failed_in_a_row: 0 });
    return;
  }
  if (!before) return;
  const state = { card: before.card, failed_in_a_row: event === 'SubagentStop' ? before.failed_in_a_row : failed ? before.failed_in_a_row + 1 : 0 };
  writeWorker(ctx.home, worker, state);
  // The card engine loads only for an agent bound to a card: every other tool call costs one missing file.
  const [{ cardSigner, nowOf }, { everSigned, isClosed }, { loadCard }, { appendCardEvent }, { transcriptTokens }] = await Promise.all([
    import('../cards/context.js'),
    import('../cards/fold.js'),
    import('../cards/load.js'),
    import('../cards/store.js'),
    import('../cards/tokens.js'),
  ]);
  const ledger = await ctx.ledgers.write(place.workspace);
  const loaded = await loadCard(ledger, ctx.home, state.card);
  if (loaded?.kind !== 'ok' || isClosed(loaded.view.state) || loaded.view.stopped) return;
  const view = loaded.view;
  const budget = view.contract.budget_tokens;
  const transcript = transcriptOf(payload);
  const tokens = transcript === null ? 0 : (transcriptTokens(transcript) ?? 0);
  const reason: StopReason | null =
    budget !== null && tokens > budget ? 'over_budget_tokens' : state.failed_in_a_row >= FAILED_CALLS_LIMIT ? 'failed_calls' : null;
  if (reason === null) return;
  const cardCtx: CardContext = {
    home: ctx.home,
    env: ctx.env,
    ...(ctx.now && { now: ctx.now }),
    workspace: place.workspace,
    by: HOOK_ACTOR(client),
    ledgers: ctx.ledgers,
    specs: ctx.specs,
  };
  await appendCardEvent<StoppedEvent>(
    ledger,
    view.id,
    {
      event: 'stopped',
      reason,
      tokens,
      budget_tokens: budget,
      failed_in_a_row: state.failed_in_a_row,
      worker: { client, session: payload.session, agent_id: payload.agentId },
    },
    { by: cardCtx.by, now: nowOf(cardCtx), sign: await cardSigner(cardCtx, view.proof.policy, everSigned(view)) },
  );
}

/** PreToolUse: the denial for a card's worker the card stopped, or null when it may go on. */
export async function stoppedWorker(client: Client, payload: HookPayload, ctx: HookContext): Promise<string | null> {
  if (payload.session === null) return null;
  const state = readWorker(ctx.home, { client, session: payload.session, agent: payload.agentId });
  if (!state) return null;
  const place = locateForHook(payload.cwd ?? ctx.fallbackCwd);
  if (place.kind !== 'spec') return null;
  const { loadCard } = await import('../cards/load.js');
  const loaded = await loadCard(await ctx.ledgers.write(place.workspace), ctx.home, state.card);
  const stopped = loaded?.kind === 'ok' ? loaded.view.stopped : null;
  if (!stopped) return null;
  const { stopWords } = await import('../render/card.js');
  return `card ${state.card} over budget: stop and report (${stopWords(stopped.body)}). Say what you did and what failed; the coordinator decides (retry, rescope, split, abandon or ask).`;
}
