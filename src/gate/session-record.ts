import { nodeCrypto } from '../core/builtins.js';
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '../core/digest.js';
import type { Workspace } from '../workspace/find.js';
import { workspaceAt } from '../workspace/find.js';
import type { Baseline } from './baseline.js';
import type { BoxState } from './box.js';

/**
 * What vouch remembers of an agent session in one workspace, outside the
 * workspace (under VOUCH_HOME/sessions): that the session worked there, from
 * when, and what the protected files and the gate's own wiring were at its
 * first hook. A session vouch has gated keeps being gated: a stop whose cwd
 * left the workspace, or after the spec and the ledger vanished, is still
 * judged in the workspaces recorded here, and a protected file or a piece
 * of wiring that changed since the first hook holds the stop, whatever
 * wrote it.
 */
export interface SessionWatch extends Baseline {
  readonly v: 1;
  readonly client: string;
  readonly session: string;
  /** Canonical workspace root. */
  readonly workspace: string;
  /** The session's first hook call in this workspace: receipts recorded since were made during it. */
  readonly since: string;
  /** Whether the agent worked in the box at that first hook (absent in records of an earlier vouch: not known, so not on). */
  readonly box?: BoxState;
  /**
   * When a person last accepted the workspace as it is (`vouch allow`,
   * which renews the baseline): a person's act the ledger recorded before
   * then no longer holds the session (stop/person-acts.ts). Absent until then.
   */
  readonly accepted?: string;
}

function sessionDir(home: string, client: string, session: string): string {
  return join(home, 'sessions', sha256(`${client}\0${session}`).slice(0, 32));
}

function watchPath(home: string, client: string, session: string, root: string): string {
  return join(sessionDir(home, client, session), `${sha256(root).slice(0, 32)}.json`);
}

/**
 * Records the session in this workspace at its first hook call there, with
 * the baseline of what it must not change. One stat when it is already
 * recorded (this runs on every hook call). The first record wins: two hook
 * calls racing both compute a baseline of the same files, and link() keeps
 * one of them whole.
 */
export async function watchSession(
  home: string,
  client: string,
  session: string,
  workspace: Workspace,
  globs: readonly string[],
  env: NodeJS.ProcessEnv,
  now = new Date(),
): Promise<void> {
  const path = watchPath(home, client, session, workspace.root);
  if (existsSync(path)) return;
  const [{ takeBaseline }, { boxState }] = await Promise.all([import('./baseline.js'), import('./box.js')]);
  const baseline = await takeBaseline(home, workspace, globs, env);
  const box = boxState(client, workspace.root, env, globs);
  const watch: SessionWatch = { v: 1, client, session, workspace: workspace.root, since: now.toISOString(), ...baseline, box };
  writeOnce(path, watch);
}

/** Whether the session is recorded in this workspace already: one stat. */
export function isWatched(home: string, client: string, session: string, root: string): boolean {
  return existsSync(watchPath(home, client, session, root));
}

/** Every workspace this session was seen in, oldest first; records that cannot be read are returned as damaged. */
export function sessionWatches(home: string, client: string, session: string): { readonly watches: SessionWatch[]; readonly damaged: string[] } {
  const dir = sessionDir(home, client, session);
  const watches: SessionWatch[] = [];
  const damaged: string[] = [];
  for (const name of listing(dir)) {
    if (!name.endsWith('.json')) continue;
    const watch = parseWatch(join(dir, name));
    if (watch && watch.client === client && watch.session === session) watches.push(watch);
    else damaged.push(join(dir, name));
  }
  watches.sort((a, b) => a.since.localeCompare(b.since));
  return { watches, damaged };
}

/** The workspaces of this session, as Workspace values. */
export function watchedWorkspaces(watches: readonly SessionWatch[]): Workspace[] {
  return watches.map((watch) => workspaceAt(watch.workspace));
}

/**
 * A person accepted the workspace as it is (`vouch allow`): every session
 * recorded in it takes a new baseline now, so a change they made or approved
 * mid-session no longer holds the agent. Returns how many were renewed.
 */
export async function rebaselineWorkspace(home: string, workspace: Workspace, globs: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const file = `${sha256(workspace.root).slice(0, 32)}.json`;
  const { takeBaseline } = await import('./baseline.js');
  let renewed = 0;
  for (const dir of listing(join(home, 'sessions'))) {
    const path = join(home, 'sessions', dir, file);
    const watch = parseWatch(path);
    if (!watch || watch.workspace !== workspace.root) continue;
    const baseline = await takeBaseline(home, workspace, globs, env);
    replace(path, { ...watch, ...baseline, accepted: new Date().toISOString() });
    renewed++;
  }
  return renewed;
}

function parseWatch(path: string): SessionWatch | undefined {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as SessionWatch;
    const shaped =
      value?.v === 1 &&
      typeof value.workspace === 'string' &&
      typeof value.since === 'string' &&
      Array.isArray(value.globs) &&
      typeof value.protected === 'object' &&
      typeof value.wiring === 'object';
    return shaped ? value : undefined;
  } catch {
    return undefined;
  }
}

function writeOnce(path: string, value: SessionWatch): void {
  const temp = tempFor(path, value);
  try {
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(temp, { force: true });
  }
}

function replace(path: string, value: SessionWatch): void {
  renameSync(tempFor(path, value), path);
}

function tempFor(path: string, value: SessionWatch): string {
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.${nodeCrypto().randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temp, `${JSON.stringify(value)}\n`, { mode: 0o600, flag: 'wx' });
  return temp;
}

function listing(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
