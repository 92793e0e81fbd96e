import type { BaseContext } from '../core/context.js';
import { fail, type Problem } from '../core/problem.js';
import type { Result } from '../core/result.js';
import { entrySigner } from '../crypto/entry-signer.js';
import { engineContext, type EngineContext } from '../engine/context.js';
import type { AppendOptions, Ledger } from '../ledger/ledger.js';
import { ledgerLocation, type LedgerLocation } from '../ledger/location.js';
import type { LedgerSource } from '../ledger/source.js';
import type { Actor } from '../receipt/receipt.js';
import type { Spec } from '../spec/model.js';
import type { SpecSource } from '../spec/source.js';
import { findWorkspace, type Workspace } from '../workspace/find.js';
import { vouchHome } from '../workspace/home.js';
import { LedgerPool } from './ledger-pool.js';
import { readSpec } from './spec-reader.js';
import { Trace } from './trace.js';

/** What a front end knows when an invocation starts. */
export interface SessionInit {
  readonly env: NodeJS.ProcessEnv;
  /** The caller's directory: where the workspace is searched from, and what spec errors name paths relative to. */
  readonly cwd: string;
  /** An explicit workspace directory (`-C DIR`): only that directory is considered. */
  readonly dir?: string | undefined;
  readonly signal?: AbortSignal;
  readonly now?: () => Date;
  readonly hashWorker?: URL;
}

/**
 * One invocation of vouch (a CLI command, a hook call, an MCP tool call, a
 * verifier job), and everything it holds: the workspace, the environment,
 * VOUCH_HOME, the stop signal and the clock; each workspace's spec, read
 * once (through the spec cache); each ledger, opened once at its first use
 * and closed once by `close`; the signer. Front ends build one and derive
 * the engine's, the gate's and the card engine's contexts from it, so no
 * command opens, parses or closes anything on its own.
 */
export class Session implements BaseContext, LedgerSource, SpecSource {
  readonly env: NodeJS.ProcessEnv;
  readonly home: string;
  readonly cwd: string;
  readonly signal?: AbortSignal;
  readonly now?: () => Date;
  readonly hashWorker?: URL;
  readonly trace = new Trace();
  private readonly dir: string | undefined;
  private readonly pool = new LedgerPool(this.trace);
  private readonly specs = new Map<string, Promise<Result<Spec, Problem>>>();
  private found: Workspace | undefined;

  constructor(init: SessionInit) {
    this.env = init.env;
    this.home = vouchHome(init.env);
    this.cwd = init.cwd;
    this.dir = init.dir;
    if (init.signal) this.signal = init.signal;
    if (init.now) this.now = init.now;
    if (init.hashWorker) this.hashWorker = init.hashWorker;
  }

  /** The workspace this invocation is about: `-C DIR`, else the nearest vouch.yaml upwards; a problem when there is none. */
  workspace(): Workspace {
    if (this.found) return this.found;
    const found = findWorkspace(this.dir ?? this.cwd, this.dir !== undefined);
    this.found = found.ok ? found.value : fail(found.error);
    return this.found;
  }

  /** The workspace's spec, or why it cannot be used: read once per invocation. */
  load(workspace: Workspace = this.workspace()): Promise<Result<Spec, Problem>> {
    let loading = this.specs.get(workspace.root);
    if (!loading) {
      this.trace.count('spec_reads');
      loading = readSpec(workspace, this.home, this.cwd);
      this.specs.set(workspace.root, loading);
    }
    return loading;
  }

  /** The workspace's valid spec; a problem ends the invocation. */
  async spec(workspace: Workspace = this.workspace()): Promise<Spec> {
    const loaded = await this.load(workspace);
    return loaded.ok ? loaded.value : fail(loaded.error);
  }

  /** The valid spec, or null (reading records needs only what a valid spec adds, and works without one). */
  async specIfValid(workspace: Workspace = this.workspace()): Promise<Spec | null> {
    const loaded = await this.load(workspace);
    return loaded.ok ? loaded.value : null;
  }

  /** Where a workspace's ledger is: VOUCH_LEDGER, else `ledger:` of its spec when valid, else `.vouch/ledger.db`. */
  async ledgerAt(workspace: Workspace = this.workspace()): Promise<LedgerLocation> {
    const spec = this.env.VOUCH_LEDGER ? null : await this.specIfValid(workspace);
    const at = ledgerLocation(this.env, workspace.stateDir, spec?.ledger ?? null);
    // A malformed URL is the caller's mistake (a usage error), not a ledger that failed.
    if (!at.ok) fail(at.error);
    return at.value;
  }

  /** The workspace's ledger if anything was recorded there; owned by this session. */
  async read(workspace: Workspace = this.workspace()): Promise<Ledger | undefined> {
    return this.pool.read(await this.ledgerAt(workspace));
  }

  /** The workspace's ledger, created if needed; owned by this session. */
  async write(workspace: Workspace = this.workspace()): Promise<Ledger> {
    return this.pool.write(await this.ledgerAt(workspace));
  }

  /** A ledger named by location rather than by workspace (`--ledger URL`); owned by this session. */
  ledgerFor(at: LedgerLocation, create: boolean): Promise<Ledger | undefined> {
    return create ? this.pool.write(at) : this.pool.read(at);
  }

  /**
   * How new chain entries are signed here: with the key the spec selects
   * (VOUCH_SIGNING_KEY overrides it), unsigned when none is; a selected key
   * that cannot be used is the caller's to refuse (a command) or to record
   * around (a hook, where `vouch audit` then reports the unsigned entry).
   */
  async signer(workspace: Workspace, spec: Spec | null): Promise<Result<AppendOptions, Problem>> {
    return entrySigner(this.home, this.env, spec, workspace.root);
  }

  /** The engine's context for this workspace and spec. */
  engine(workspace: Workspace, spec: Spec, actor: Actor, extra: Pick<EngineContext, 'cwdIsRoot' | 'gate'> = {}): EngineContext {
    return engineContext(this, workspace, spec, actor, extra);
  }

  /** Ends the invocation: every ledger it opened is closed. Returns the trace line, when VOUCH_TRACE=1. */
  async close(): Promise<string | null> {
    await this.pool.close();
    return this.trace.line(this.env);
  }
}
