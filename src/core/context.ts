/**
 * What every part of vouch may take from the invocation that runs it: where
 * user-level state lives, the caller's environment, the clock, the stop
 * signal and the hash worker. The engine, the gate and the card engine each
 * extend this with what they need (a workspace, a spec, ledgers); one
 * Session per invocation (src/session) builds them all.
 */
export interface BaseContext {
  /** VOUCH_HOME: trust, keys, caches, session records. */
  readonly home: string;
  /** The caller's environment; checks receive only an allowlist of it. */
  readonly env: NodeJS.ProcessEnv;
  readonly now?: () => Date;
  /** Aborted when the invocation is asked to stop (SIGINT, SIGTERM, a cancelled MCP call). */
  readonly signal?: AbortSignal;
  /** The built hash worker script (dist/hash-worker.js); absent, files are hashed on the main thread only. */
  readonly hashWorker?: URL;
}

/** The clock of a context: the injected one, or the real one. */
export function nowOf(ctx: Pick<BaseContext, 'now'>): Date {
  return ctx.now ? ctx.now() : new Date();
}
