import { digestJson, sha256 } from '../core/digest.js';
import { newId } from '../core/ids.js';
import type { GateContext } from './context.js';
import type { Client, TrailBody } from '../ledger/session-entries.js';
import { workspaceRelative, type ToolUse } from '../guard/guard.js';
import { codexPatchPaths } from '../guard/shell/apply-patch.js';
import { locateForHook } from './locate.js';
import { shellWrites } from '../guard/shell/writes.js';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';

/** A finished tool call (PostToolUse) or a subagent start, as the client reported it. */
export interface ToolReport {
  readonly client: Client;
  readonly event: string;
  readonly session: string;
  readonly agentId: string | null;
  readonly cwd: string;
  readonly use: ToolUse | null;
  readonly toolUseId: string | null;
  readonly input: unknown;
  readonly response: unknown;
  readonly durationMs: number | null;
}

export type TrailResult = { readonly kind: 'recorded'; readonly entry: string } | { readonly kind: 'no_workspace' };

/**
 * Appends the agent's own account of a tool call to the ledger: which tool,
 * hashes of what went in and came out, its exit code and duration, and the
 * workspace paths its input says it wrote. Labelled untrusted: the gate uses
 * it only to see which checks a session touched, never as evidence.
 */
export async function recordTrail(report: ToolReport, ctx: GateContext): Promise<TrailResult> {
  const place = locateForHook(report.cwd);
  if (place.kind === 'none') return { kind: 'no_workspace' };
  const root = place.workspace.root;
  const written = report.use ? writtenPaths(report.use, root, report.cwd, ctx.env.HOME) : { paths: [], opaque: false };
  const now = (ctx.now ?? (() => new Date()))();
  const body: TrailBody = {
    v: 1,
    kind: 'trail',
    id: newId(now.getTime()),
    at: now.toISOString(),
    session: report.session,
    client: report.client,
    event: report.event,
    agent_id: report.agentId,
    untrusted: true,
    tool: report.use?.tool ?? null,
    tool_use_id: report.toolUseId,
    input_sha256: report.use?.kind === 'shell' ? sha256(report.use.command) : report.input === undefined ? null : digestJson(report.input),
    response_sha256: report.response === undefined ? null : digestJson(report.response),
    exit_code: exitCodeOf(report.response),
    duration_ms: report.durationMs,
    paths: written.paths,
    opaque_writes: written.opaque,
  };
  await (await ctx.ledgers.write(place.workspace)).appendSessionEntry(body);
  return { kind: 'recorded', entry: body.id };
}

function writtenPaths(use: ToolUse, root: string, cwd: string, home: string | undefined): { paths: string[]; opaque: boolean } {
  const inside = (absolute: string) => workspaceRelative(root, absolute);
  switch (use.kind) {
    case 'write': {
      const absolute = use.paths.map((path) => resolve(cwd, path));
      return { paths: unique(absolute.flatMap(inside)), opaque: absolute.some(hasOtherNames) };
    }
    case 'patch': {
      const found = use.patch === null ? null : codexPatchPaths(use.patch);
      // A patch vouch cannot read may have written anything.
      if (found === null) return { paths: [], opaque: true };
      const absolute = found.map((path) => resolve(cwd, path));
      return { paths: unique(absolute.flatMap(inside)), opaque: absolute.some(hasOtherNames) };
    }
    case 'shell': {
      // Wholesale git rewrites (checkout BRANCH, stash, reset --hard...) make the line opaque in shellWrites.
      const writes = shellWrites(use.command, cwd, home);
      const opaque = writes.opaque || writes.targets.some((t) => t.glob || t.tree || hasOtherNames(t.path));
      return { paths: unique(writes.targets.flatMap((target) => inside(target.path))), opaque };
    }
    case 'read':
      return { paths: [], opaque: false };
    case 'other':
      // A writing tool whose input vouch cannot read may have written anything.
      return { paths: [], opaque: true };
  }
}

/** A file with more than one name (a hard link): what was written under this name changed the others too, unseen. */
function hasOtherNames(path: string): boolean {
  try {
    const stat = statSync(path);
    return stat.isFile() && stat.nlink > 1;
  } catch {
    return false;
  }
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)].sort();
}

/** The exit code a tool response carries, under the names clients use. */
function exitCodeOf(response: unknown): number | null {
  if (typeof response !== 'object' || response === null) return null;
  const record = response as Record<string, unknown>;
  for (const key of ['exit_code', 'exitCode', 'returncode']) {
    const value = record[key];
    if (typeof value === 'number' && Number.isInteger(value)) return value;
  }
  return null;
}
