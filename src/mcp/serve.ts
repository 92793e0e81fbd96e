import { Writable, type Readable } from 'node:stream';
import type { Sink } from '../render/sink.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { VERSION } from '../version.js';
import type { Workspace } from '../workspace/find.js';
import { handleCall, type Log } from './handle.js';
import { Serial } from './serial.js';
import { CARD_TOOLS, TOOLS } from './tools/index.js';
import type { ServerScope } from './workspace-call.js';

export interface ServeOptions {
  readonly workspace: Workspace;
  /** VOUCH_HOME. */
  readonly home: string;
  /** The server's environment: checks receive only their allowlist of it. */
  readonly env: NodeJS.ProcessEnv;
  readonly stdin: Readable;
  /** The protocol, and nothing else. */
  readonly stdout: Sink;
  /** Every log line. */
  readonly stderr: Sink;
  /** Aborted on SIGINT/SIGTERM: the server stops as if the client had gone. */
  readonly signal?: AbortSignal;
  /** The built hash worker script (dist/hash-worker.js); absent, files are hashed on the main thread only. */
  readonly hashWorker?: URL;
}

const INSTRUCTIONS =
  'vouch answers whether the checks an operator declared in vouch.yaml pass, from receipts it recorded itself. ' +
  'Name checks by id (vouch_checks lists them); no tool accepts a command, a path, a directory, an environment or a glob. ' +
  'Before saying work is done, ask vouch_status; to produce fresh evidence, call vouch_verify. ' +
  'Your own statements about what you ran or saw are not evidence.';

/**
 * Serves MCP over stdio until the client closes stdin or the process is
 * told to stop. Calls are served concurrently: a long verification does
 * not hold up a status call. On the way out, running checks are stopped and
 * their receipts (UNKNOWN, interrupted) written before this resolves.
 */
export async function serveMcp(options: ServeOptions): Promise<void> {
  const log: Log = (line) => options.stderr.write(`vouch mcp: ${line}\n`);
  const scope: ServerScope = {
    workspace: options.workspace,
    home: options.home,
    env: options.env,
    verifications: new Serial(),
    ...(options.hashWorker && { hashWorker: options.hashWorker }),
  };
  const server = new McpServer({ name: 'vouch', version: VERSION }, { instructions: INSTRUCTIONS });
  const inflight = new Set<Promise<unknown>>();

  for (const tool of [...TOOLS, ...CARD_TOOLS]) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: { title: tool.title, readOnlyHint: tool.readOnly, destructiveHint: false, idempotentHint: tool.readOnly },
      },
      (args, extra) => {
        const call = handleCall(tool, args, extra, scope, log);
        inflight.add(call);
        void call.finally(() => inflight.delete(call));
        return call;
      },
    );
  }
  server.server.onerror = (error) => log(`protocol error: ${error.message}`);

  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  const stop = () => void server.close();
  options.stdin.once('end', stop);
  options.stdin.once('close', stop);
  options.signal?.addEventListener('abort', stop, { once: true });

  await server.connect(new StdioServerTransport(options.stdin, writableOf(options.stdout)));
  log(`serving ${options.workspace.root} (vouch ${VERSION}, pid ${process.pid})`);
  if (options.signal?.aborted) stop();
  await closed;
  // Closing aborted every call's signal; wait for running checks to record their receipts.
  await Promise.allSettled([...inflight]);
  log('stopped');
}

/** The SDK's transport writes to a stream: a sink behind one (a sink writes at once, so the stream never holds anything back). */
function writableOf(sink: Sink): Writable {
  return new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      sink.write(chunk);
      callback();
    },
  });
}
