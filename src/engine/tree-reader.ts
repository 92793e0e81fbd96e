import { existsSync } from 'node:fs';
import { cacheKey } from '../cache/key.js';
import { StatCache } from '../cache/stat-cache.js';
import { Snapshot } from '../scope/snapshot.js';
import type { Workspace } from '../workspace/find.js';

/** What reading a workspace needs from the command doing it (an EngineContext has all of it). */
export interface TreeReaderContext {
  readonly workspace: Pick<Workspace, 'root' | 'stateDir'>;
  /** VOUCH_HOME, where the cache key lives; absent (the verifier service's job trees), nothing is cached. */
  readonly home?: string;
  /** The built hash worker script (dist/hash-worker.js); absent, files are hashed on the main thread only. */
  readonly hashWorker?: URL;
  /** The workspace root is the process's working directory for the whole command (see EngineContext). */
  readonly cwdIsRoot?: boolean;
  /** Links in the tree are refused, never resolved (the verifier service: SnapshotOptions.refuseLinks). */
  readonly refuseLinks?: boolean;
}

/**
 * How one command reads the workspace: the stat cache is loaded once (when
 * first needed), every snapshot reads through it, and it is saved once at
 * the end. Without a key in VOUCH_HOME (or no VOUCH_HOME), or without a
 * state directory, the reader works uncached.
 */
export class TreeReader {
  private cache: StatCache | undefined | null = null;

  constructor(private readonly ctx: TreeReaderContext) {}

  /** A fresh pass over the tree, as it is from now on. */
  snapshot(): Snapshot {
    // Taken before anything is read: the reference of the racy rule. The
    // real clock always; an injected test clock must not decide what is
    // trusted.
    const readStart = new Date();
    const cache = this.openCache();
    return new Snapshot(this.ctx.workspace.root, {
      readStart,
      ...(cache && { cache }),
      ...(this.ctx.hashWorker && { hashWorker: this.ctx.hashWorker }),
      relative: this.ctx.cwdIsRoot === true,
      ...(this.ctx.refuseLinks === true && { refuseLinks: true }),
    });
  }

  /** Saves what was learnt. */
  close(): void {
    this.cache?.save();
  }

  private openCache(): StatCache | undefined {
    if (this.cache !== null) return this.cache;
    const { workspace, home } = this.ctx;
    // Status never creates state: no state directory, no cache.
    const key = home !== undefined && existsSync(workspace.stateDir) ? cacheKey(home) : undefined;
    this.cache = key ? StatCache.open(workspace.stateDir, workspace.root, key) : undefined;
    return this.cache;
  }
}
