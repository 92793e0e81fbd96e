import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { VouchProblem, type Problem } from '../core/problem.js';
import { ledgerProblem } from '../render/ledger-problem.js';
import { LedgerError } from '../ledger/ledger.js';
import { VERSION } from '../version.js';
import { Progress } from './progress.js';
import type { VouchTool } from './tool.js';
import { workspaceCall, type ServerScope } from './workspace-call.js';
import { problemText, withFooter } from './text.js';

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
export type Log = (line: string) => void;

/**
 * One tool call, start to finish: the same role as the CLI's top-level catch.
 * Expected problems (an unknown check id, an invalid spec, a damaged ledger)
 * become error results with their stable code; anything else is a bug, logged
 * to stderr with its stack and answered as an internal error. The server
 * keeps serving either way.
 */
export async function handleCall(tool: VouchTool, args: Record<string, unknown>, extra: Extra, scope: ServerScope, log: Log): Promise<CallToolResult> {
  const token = extra._meta?.progressToken;
  const progress = new Progress(
    token === undefined
      ? undefined
      : (value, message) => extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: value, message } }),
    (error) => log(`cannot send progress: ${String(error)}`),
  );
  const call = workspaceCall(scope, extra.signal, progress);
  try {
    const result = await tool.run(args, call);
    log(`${tool.name} ${JSON.stringify(args)}: answered`);
    return { content: [{ type: 'text', text: withFooter(result.text) }], structuredContent: result.data };
  } catch (error) {
    const expected = error instanceof VouchProblem ? error.problem : error instanceof LedgerError ? ledgerProblem(error) : undefined;
    if (expected) return failed(tool, args, expected, log);
    log(`internal error in ${tool.name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return {
      isError: true,
      content: [
        {
          type: 'text',
          text: withFooter(
            `vouch: internal error: ${error instanceof Error ? error.message : String(error)}\nThis is a bug in vouch ${VERSION}; nothing was vouched for by this call. The server keeps serving.\n  code: internal`,
          ),
        },
      ],
    };
  } finally {
    progress.stop();
    await call.session.close();
  }
}

function failed(tool: VouchTool, args: Record<string, unknown>, problem: Problem, log: Log): CallToolResult {
  log(`${tool.name} ${JSON.stringify(args)}: ${problem.code}: ${problem.message}`);
  return { isError: true, content: [{ type: 'text', text: withFooter(problemText(problem)) }] };
}
