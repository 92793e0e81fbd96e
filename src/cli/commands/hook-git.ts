import { fail } from '../../core/problem.js';
import type { CheckStatus } from '../../engine/status.js';
import { checkStatuses } from '../../engine/status.js';
import { revisionStatuses, type RevisionStatusResult } from '../../engine/revision-status.js';
import { hookIndexFile, type Revision } from '../../engine/revision-tree.js';
import { paint, type Paint } from '../../render/color.js';
import { allPass } from '../../engine/outcome.js';
import { renderStatusTable, renderSummary } from '../../render/status.js';
import { EXIT } from '../exit.js';
import { err, readInput, type Cli } from '../io.js';

/** The hooks `vouch hook git` answers. */
export const GIT_HOOK_EVENTS = ['pre-push', 'pre-commit'] as const;

/** A ref line of git's pre-push stdin: `<local ref> <local sha> <remote ref> <remote sha>`. */
interface PushedRef {
  readonly localRef: string;
  readonly localSha: string;
  readonly remoteRef: string;
}

/**
 * git's hooks. pre-push: each commit being pushed is judged on its own
 * files (engine/revision-status.ts), not the work tree's; a ref being
 * deleted is let through. pre-commit: the index being committed. Either
 * goes ahead only while every blocking check is a PASS for those files;
 * anything else (FAIL, STALE, UNKNOWN, no spec, a spec not allowed)
 * refuses, with the reason on stderr. `--no-verify` skips both, as it skips
 * every git hook.
 */
export async function gitHook(cli: Cli, event: string | undefined): Promise<number> {
  switch (event) {
    case 'pre-push':
      return prePush(cli);
    case 'pre-commit':
      return preCommit(cli);
    default:
      return fail({
        code: 'usage',
        message: `unknown git hook "${event ?? ''}"`,
        where: 'vouch hook git',
        expected: GIT_HOOK_EVENTS.join(' or '),
        hint: 'run `vouch hook --help`',
      });
  }
}

async function prePush(cli: Cli): Promise<number> {
  const refs = parseRefs(await readInput(cli.io));
  const p = paint(cli.color && cli.io.stderrIsTTY);
  // Run by hand, with nothing on stdin: the work tree is what is judged, as `vouch status` would.
  if (refs.length === 0) return judgeWorkTree(cli, p);
  const pushed = refs.filter((ref) => !/^0+$/.test(ref.localSha));
  for (const ref of refs) if (!pushed.includes(ref)) err(cli, `vouch: ${ref.remoteRef}: deleted, nothing to judge`);
  let refused = false;
  for (const sha of [...new Set(pushed.map((ref) => ref.localSha))]) {
    const names = pushed.filter((ref) => ref.localSha === sha).map((ref) => ref.localRef);
    const ok = await judgeRevision(cli, p, { kind: 'commit', sha }, `${names.join(', ')} (${sha.slice(0, 12)})`, 'push');
    refused ||= !ok;
  }
  if (refused) err(cli, `${p.cyan('hint:')} \`git push --no-verify\` skips this hook, and every other`);
  return refused ? EXIT.notOk : EXIT.ok;
}

async function preCommit(cli: Cli): Promise<number> {
  const p = paint(cli.color && cli.io.stderrIsTTY);
  const ok = await judgeRevision(cli, p, { kind: 'index', indexFile: hookIndexFile(cli.io.env, cli.io.cwd) }, 'the staged files', 'commit');
  if (!ok) err(cli, `${p.cyan('hint:')} \`git commit --no-verify\` skips this hook, and every other`);
  return ok ? EXIT.ok : EXIT.notOk;
}

function parseRefs(stdin: string): PushedRef[] {
  const refs: PushedRef[] = [];
  for (const [i, line] of stdin.split('\n').entries()) {
    if (line.trim() === '') continue;
    const fields = line.trim().split(/\s+/);
    if (fields.length !== 4 || !fields.every((field, j) => j % 2 === 0 || /^[0-9a-f]{40,64}$/.test(field))) {
      return fail({
        code: 'usage',
        message: 'git pre-push stdin line is not "<local ref> <local sha> <remote ref> <remote sha>"',
        where: `vouch hook git pre-push: stdin line ${i + 1}`,
        expected: 'four fields, the second and fourth object names',
        found: line,
        hint: 'git writes these lines itself; run the hook through `git push`, or with empty stdin to judge the work tree',
      });
    }
    refs.push({ localRef: fields[0]!, localSha: fields[1]!, remoteRef: fields[2]! });
  }
  return refs;
}

/** The work tree, as the hook judged it before it read what was pushed: `vouch hook git pre-push < /dev/null`. */
async function judgeWorkTree(cli: Cli, p: Paint): Promise<number> {
  const session = cli.session;
  const workspace = session.workspace();
  const spec = await session.spec(workspace);
  const blocking = spec.checks.filter((check) => check.block);
  const result = await checkStatuses(session.engine(workspace, spec, 'hook'), blocking, { openLedger: () => session.read(workspace) });
  if (result.kind === 'trust_error') return fail(result.problem);
  return verdict(cli, p, 'the work tree', 'push', blocking.length, result.statuses) ? EXIT.ok : EXIT.notOk;
}

/** One revision judged and said; true when it may go. */
async function judgeRevision(cli: Cli, p: Paint, revision: Revision, what: string, act: 'push' | 'commit'): Promise<boolean> {
  const session = cli.session;
  const workspace = session.workspace();
  const spec = await session.spec(workspace);
  const blocking = spec.checks.filter((check) => check.block);
  const result: RevisionStatusResult = await revisionStatuses(session.engine(workspace, spec, 'hook'), blocking, revision, {
    openLedger: () => session.read(workspace),
  });
  switch (result.kind) {
    case 'trust_error':
      return fail(result.problem);
    case 'no_git':
      err(cli, `${p.red(`vouch: ${act} refused:`)} ${workspace.root} is not in a git work tree (or git is not installed), so ${what} cannot be read`);
      return false;
    case 'unreadable':
      err(cli, `${p.red(`vouch: ${act} refused:`)} ${what}: ${result.detail}`);
      return false;
    case 'ok':
      return verdict(cli, p, what, act, blocking.length, result.statuses);
  }
}

function verdict(cli: Cli, p: Paint, what: string, act: 'push' | 'commit', blocking: number, statuses: readonly CheckStatus[]): boolean {
  if (blocking > 0 && allPass(statuses)) {
    err(cli, `vouch: ${act} allowed: ${what}: ${renderSummary(statuses, p)}`);
    return true;
  }
  err(
    cli,
    `${p.red(`vouch: ${act} refused:`)} ${what}: ${blocking === 0 ? `vouch.yaml declares no blocking check, so nothing proves this ${act}` : 'not every blocking check is a PASS for its files'}`,
  );
  if (blocking > 0) {
    err(cli, renderStatusTable(statuses, p));
    err(cli, renderSummary(statuses, p));
  }
  const next = statuses.some((s) => s.reason === 'work_tree_differs')
    ? act === 'push'
      ? 'the work tree is not what is pushed: `git stash -u`, `vouch verify`, push again, then `git stash pop`'
      : 'the work tree is not what is staged: `git stash -u --keep-index`, `vouch verify`, commit again, then `git stash pop`'
    : `run \`vouch verify\`, then ${act} again`;
  err(cli, `${p.cyan('hint:')} ${next}`);
  return false;
}
