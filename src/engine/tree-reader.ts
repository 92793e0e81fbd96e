import { existsSync } from 'node:fs';
import { cacheKey } from '../cache/key.js';
import { StatCache } from '../cache/stat-cache.js';
import { Snapshot } from '../scope/snapshot.js';
import type { EngineContext } from './context.js';

/**
 * How one command reads the workspace: the stat cache is loaded once (when
 * first needed), every snapshot reads through it, and it is saved once at
 * the end. Without a key in VOUCH_HOME, or without a state directory, the
 * reader works uncached.
 */
export class TreeReader {
  private cache: StatCache | undefined | null = null;

  constructor(private readonly ctx: Pick<EngineContext, 'workspace' | 'home' | 'hashWorker' | 'cwdIsRoot'>) {}

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
    const key = existsSync(workspace.stateDir) ? cacheKey(home) : undefined;
    this.cache = key ? StatCache.open(workspace.stateDir, workspace.root, key) : undefined;
    return this.cache;
  }
}
