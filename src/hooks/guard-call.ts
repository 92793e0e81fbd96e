import { guardToolUse, type ToolUse } from '../guard/guard.js';
import type { GuardRole } from '../guard/role.js';
import { locateForHook } from '../gate/locate.js';
import { protectListOf } from '../guard/protect-list.js';
import { ProtectedPaths } from '../guard/protected.js';
import { configWiring, gitHookWiring } from '../guard/wiring.js';
import { renderDenial } from '../render/gate.js';
import type { HookContext } from './context.js';
import type { ClientProtocol, HookReply } from './protocol.js';

/**
 * PreToolUse: deny a write to what proves the work or wires the gate, or a
 * person's act; say nothing otherwise (or, given `onAllow`, answer that:
 * the call rewritten into `vouch exec`). Outside every workspace the user's
 * wiring, VOUCH_HOME and the person's acts are still guarded: a user-scope
 * gate serves every workspace.
 */
export async function guardCall(
  protocol: ClientProtocol,
  use: ToolUse,
  cwd: string,
  ctx: HookContext,
  role: GuardRole,
  onAllow?: () => HookReply,
): Promise<HookReply> {
  const place = locateForHook(cwd);
  const root = place.kind === 'none' ? null : place.workspace.root;
  const list = place.kind === 'none' ? { globs: [], note: null } : await protectListOf(place.workspace, place.kind === 'spec', ctx.home);
  const answer = guardToolUse(use, {
    root,
    cwd,
    home: ctx.env.HOME,
    protect: new ProtectedPaths(list.globs, role),
    wiring: { config: () => configWiring(root, ctx.env), gitHook: () => gitHookWiring(root) },
  });
  if (answer.kind !== 'allow') return { ...protocol.denyTool(renderDenial(answer)), stderr: list.note ? `vouch: ${list.note}\n` : '' };
  if (onAllow) return { ...onAllow(), stderr: list.note ? `vouch: ${list.note}\n` : '' };
  return protocol.pass(list.note ? `vouch: ${list.note}` : null);
}
