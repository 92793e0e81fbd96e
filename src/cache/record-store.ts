import { nodeCrypto } from '../core/builtins.js';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeRecord, encodeRecord, type ScopeRecord } from './scope-record.js';

const DIR = 'scopes';
/** Records of scopes no check has asked about for a while are removed past this many. */
const KEEP = 64;
const KEY = /^[0-9a-f]{32}$/;

/**
 * The scope records of a workspace (`.vouch/scopes/<key>`, scope-record.ts):
 * read one at a time, only for the scopes asked about; written, each
 * atomically, when a scan made a new one; removed when a scan could not
 * make one (something racy, a link), so a stale one is never asked again.
 */
export class RecordStore {
  private readonly memory = new Map<string, ScopeRecord | null>();
  private readonly pending = new Map<string, ScopeRecord | null>();

  constructor(
    private readonly stateDir: string | undefined,
    private readonly root: string,
    private readonly key: Buffer,
  ) {}

  /** A scope's record, or undefined when there is none (or it does not check out). */
  get(scope: string): ScopeRecord | undefined {
    if (!KEY.test(scope)) return undefined;
    let record = this.memory.get(scope);
    if (record === undefined) {
      record = this.read(scope) ?? null;
      this.memory.set(scope, record);
    }
    return record ?? undefined;
  }

  put(record: ScopeRecord): void {
    this.memory.set(record.key, record);
    this.pending.set(record.key, record);
  }

  drop(scope: string): void {
    if (this.get(scope) === undefined && !this.pending.has(scope)) return;
    this.memory.set(scope, null);
    this.pending.set(scope, null);
  }

  /** Writes the records made (and removes those dropped) in this process. Best effort, as the stat cache. */
  save(): void {
    if (this.stateDir === undefined || this.pending.size === 0 || !existsSync(this.stateDir)) return;
    const dir = join(this.stateDir, DIR);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch {
      return;
    }
    for (const [scope, record] of this.pending) {
      const file = join(dir, scope);
      if (record === null) {
        rmSync(file, { force: true });
        continue;
      }
      const temp = `${file}.${process.pid}.${nodeCrypto().randomBytes(6).toString('hex')}.tmp`;
      try {
        writeFileSync(temp, encodeRecord(record, this.root, this.key), { mode: 0o600 });
        renameSync(temp, file);
      } catch {
        rmSync(temp, { force: true });
      }
    }
    this.pending.clear();
    this.prune(dir);
  }

  private read(scope: string): ScopeRecord | undefined {
    if (this.stateDir === undefined) return undefined;
    let blob: Buffer;
    try {
      blob = readFileSync(join(this.stateDir, DIR, scope));
    } catch {
      return undefined;
    }
    return decodeRecord(blob, this.key, this.root, scope);
  }

  /** Keeps the most recently written records (scopes a spec no longer has stop being written). */
  private prune(dir: string): void {
    let names: string[];
    try {
      names = readdirSync(dir).filter((name) => KEY.test(name));
    } catch {
      return;
    }
    if (names.length <= KEEP) return;
    const dated = names.map((name) => ({ name, at: statSync(join(dir, name), { throwIfNoEntry: false })?.mtimeMs ?? 0 }));
    dated.sort((a, b) => b.at - a.at);
    for (const { name } of dated.slice(KEEP)) rmSync(join(dir, name), { force: true });
  }
}
