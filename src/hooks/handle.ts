import { shellLine } from '../core/quote.js';
import type { GateDecision } from '../gate/decision.js';
import type { HookContext } from './context.js';
import { parsePayload, type HookPayload } from './payload.js';
import type { ClientProtocol, HookReply } from './protocol.js';
import type { ToolUse } from '../guard/guard.js';

/** How a hook event fails when vouch itself fails: closed where it guards, open where it only records. */
type Failure = 'block_stop' | 'deny_tool' | 'pass';

function failureOf(event: string): Failure {
  if (event === 'Stop' || event === 'SubagentStop') return 'block_stop';
  if (event === 'PreToolUse') return 'deny_tool';
  return 'pass';
}

/**
 * Answers one hook call: stdin text in, the client's reply out. Never
 * throws. A failure of vouch blocks a stop and denies a guarded tool call
 * (fail closed), and lets a PostToolUse record go (fail open), saying so.
 */
export async function runHook(protocol: ClientProtocol, eventArg: string | undefined, stdin: string, ctx: HookContext): Promise<HookReply> {
  const parsed = parsePayload(stdin);
  const event = eventArg ?? (parsed.ok ? parsed.payload.event : null) ?? 'unknown';
  try {
    if (!parsed.ok) throw new HookInputError(parsed.why);
    return await handle(protocol, event, parsed.payload, ctx);
  } catch (error) {
    const message = error instanceof HookInputError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
    const short = message.split('\n')[0] ?? message;
    switch (failureOf(event)) {
      case 'block_stop': {
        const { renderBlockReason } = await import('../render/gate.js');
        const decision: GateDecision = {
          kind: 'block',
          reason: 'hook_error',
          workspace: null,
          findings: [],
          onStop: null,
          budgetSeconds: null,
          blocks: 0,
          maxBlocks: null,
          detail: short,
          entry: null,
          dispatches: [],
          dispatch: null,
        };
        const { visible } = await import('../render/visible.js');
        return protocol.blockStop(renderBlockReason(decision, ctx.self), `vouch: hook error (the stop is blocked): ${visible(message)}`);
      }
      case 'deny_tool': {
        // The error can quote the payload (a path, a session id): shown, never played.
        const { oneLine, visible } = await import('../render/visible.js');
        return {
          ...protocol.denyTool(
            `vouch could not check this tool call, so it is denied: ${oneLine(short)}. Tell a person; this is a problem in vouch or its installation.`,
          ),
          stderr: `vouch: hook error (the call is denied): ${visible(message)}\n`,
        };
      }
      case 'pass': {
        const { visible } = await import('../render/visible.js');
        return protocol.pass(`vouch: hook error (nothing recorded; the call goes ahead): ${visible(message)}`);
      }
    }
  }
}

class HookInputError extends Error {}

async function handle(protocol: ClientProtocol, event: string, payload: HookPayload, ctx: HookContext): Promise<HookReply> {
  const cwd = payload.cwd ?? ctx.fallbackCwd;
  const session = payload.session ?? 'unknown-session';
  // Every hook call records the session in its workspace (once: one stat after the first), with the
  // baseline the gate compares at its stops. The stop does it itself.
  if (payload.session !== null && event !== 'Stop' && event !== 'SubagentStop') {
    const { watchCall } = await import('./watch-call.js');
    await watchCall(protocol.client, payload.session, cwd, ctx);
  }
  switch (event) {
    case 'Stop':
    case 'SubagentStop': {
      const [{ decideStop }, { renderBlockReason, renderGateNotice }] = await Promise.all([import('../stop/decide.js'), import('../render/gate.js')]);
      const decision = await decideStop(
        {
          client: protocol.client,
          event,
          session,
          agentId: payload.agentId,
          cwd,
          stopHookActive: payload.stopHookActive,
          claim: payload.lastMessage,
          agentType: payload.agentType,
          transcriptPath: payload.agentTranscriptPath,
          runningAgents: payload.runningAgents,
        },
        ctx,
      );
      const notice = renderGateNotice(decision);
      if (event === 'SubagentStop') await (await import('./worker-budget.js')).noteWorkerCall(protocol.client, event, payload, ctx);
      const reply =
        decision.kind === 'block' ? protocol.blockStop(renderBlockReason(decision, ctx.self), notice) : protocol.allowStop(notice, decision.kind === 'escaped');
      return event === 'Stop' ? await withAnswers(protocol, reply, payload, ctx) : reply;
    }
    case 'PreToolUse': {
      const use = protocol.toolUse(payload.toolName, payload.toolInput);
      const { stoppedWorker } = await import('./worker-budget.js');
      const stopped = await stoppedWorker(protocol.client, payload, ctx);
      if (stopped !== null) return protocol.denyTool(stopped);
      if (use === null || use.kind === 'other' || use.kind === 'read') return protocol.pass(null);
      const [{ guardCall }, { guardRole }] = await Promise.all([import('./guard-call.js'), import('../guard/role.js')]);
      const rewrite =
        ctx.exec === true && use.kind === 'shell' && protocol.rewriteShell
          ? execRewrite(protocol.rewriteShell, payload.toolInput, use.command, ctx.self.argv)
          : undefined;
      return guardCall(protocol, use, cwd, ctx, guardRole(payload.agentType, ctx.env), rewrite);
    }
    case 'SubagentStart': {
      // Before it does any work, the subagent goes on the ledger as a dispatch.
      const { recordSubagentStart } = await import('./subagent-start.js');
      const notice =
        payload.agentId === null
          ? null
          : await recordSubagentStart(protocol.client, { session, agentId: payload.agentId, agentType: payload.agentType, cwd }, ctx);
      await recordToolReport(protocol, event, session, cwd, payload, null, ctx);
      return protocol.pass(notice);
    }
    case 'PostToolUse':
    case 'PostToolUseFailure': {
      // A call that failed may still have written what its input names (`echo x > src/a.js && false`): on the trail too.
      // A reading tool (Read, Grep, Task...) is not: it names no write, so it could not change what a Stop judges, and
      // the session's history a Stop loads stays as long as its writes. It counts for a card worker's budget below.
      const use = protocol.toolUse(payload.toolName, payload.toolInput);
      if (use?.kind !== 'read') await recordToolReport(protocol, event, session, cwd, payload, use, ctx);
      await (await import('./worker-budget.js')).noteWorkerCall(protocol.client, event, payload, ctx);
      return protocol.pass(null);
    }
    case 'TurnEnd': {
      // The asking session's turn ended (a host that speaks there, not at its stop): the cards' lines, once each.
      if (protocol.answersAt !== 'turn_end' || !protocol.tell) return protocol.pass(null);
      const lines = await (await import('./answer-back.js')).answersFor(protocol.client, payload, ctx);
      return lines.length === 0 ? protocol.pass(null) : protocol.tell(protocol.pass(null), lines.join('\n'));
    }
    default:
      return protocol.pass(null);
  }
}

/**
 * The one-line answers of the cards this session opened, added to its
 * Stop's reply. Never decides the stop: the reply's decision is kept, and a
 * failure here leaves the reply as it was (the answers wait for the next Stop).
 */
async function withAnswers(protocol: ClientProtocol, reply: HookReply, payload: HookPayload, ctx: HookContext): Promise<HookReply> {
  if (!protocol.tell || protocol.answersAt === 'turn_end') return reply;
  try {
    const lines = await (await import('./answer-back.js')).answersFor(protocol.client, payload, ctx);
    return lines.length === 0 ? reply : protocol.tell(reply, lines.join('\n'));
  } catch (error) {
    const { visible } = await import('../render/visible.js');
    return { ...reply, stderr: `${reply.stderr}vouch: could not deliver the cards' answers (they wait for the next stop): ${visible(String(error))}\n` };
  }
}

/** The session's own (untrusted) trail: a finished tool call (succeeded or failed) and what it used, or a subagent start. */
async function recordToolReport(
  protocol: ClientProtocol,
  event: string,
  session: string,
  cwd: string,
  payload: HookPayload,
  use: ToolUse | null,
  ctx: HookContext,
): Promise<void> {
  const { recordTrail } = await import('../gate/trail.js');
  await recordTrail(
    {
      client: protocol.client,
      event,
      session,
      agentId: payload.agentId,
      cwd,
      use,
      toolUseId: payload.toolUseId,
      input: payload.toolInput,
      response: payload.toolResponse,
      durationMs: payload.durationMs,
    },
    ctx,
  );
}

/**
 * The reply that runs a shell call through `vouch exec -- /bin/sh -c CMD`
 * (this very vouch, by absolute path), for a host whose own sandbox is off;
 * undefined for a call that already is one (the agent's, or a rewrite seen
 * again), so nothing is wrapped twice.
 */
function execRewrite(
  rewriteShell: NonNullable<ClientProtocol['rewriteShell']>,
  toolInput: unknown,
  command: string,
  self: readonly string[],
): (() => HookReply) | undefined {
  const prefix = `${shellLine([...self, 'exec', '--'])} `;
  if (command.startsWith(prefix)) return undefined;
  return () => rewriteShell(toolInput, `${prefix}${shellLine(['/bin/sh', '-c', command])}`);
}
