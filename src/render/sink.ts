/**
 * Where output goes: a stream (what tests pass), or one of the process's
 * own descriptors written directly (src/cli/fd-sink.ts). `destroyed` says
 * its reader is gone.
 */
export interface Sink {
  write(chunk: string | Uint8Array): unknown;
  readonly destroyed?: boolean;
}
