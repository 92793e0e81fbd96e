import { guardToolUse, type ToolUse } from '../gate/guard.js';
import type { GuardRole } from '../gate/guard-role.js';
import { locateForHook } from '../gate/locate.js';
import { protectListOf } from '../gate/protect-list.js';
import { ProtectedPaths } from '../gate/protected.js';
import { renderDenial } from '../render/gate.js';
import type { HookContext } from './handle.js';
import type { ClientProtocol, HookReply } from './protocol.js';

/** PreToolUse: deny a write to what proves the work, or a person's act on its trust; say nothing otherwise. */
export async function guardCall(protocol: ClientProtocol, use: ToolUse, cwd: string, ctx: HookContext, role: GuardRole): Promise<HookReply> {
  const place = locateForHook(cwd);
  if (place.kind === 'none') return protocol.pass(null);
  const list = await protectListOf(place.workspace, place.kind === 'spec', ctx.home);
  const answer = guardToolUse(use, { root: place.workspace.root, cwd, home: ctx.env.HOME, protect: new ProtectedPaths(list.globs, role) });
  if (answer.kind !== 'allow') return { ...protocol.denyTool(renderDenial(answer)), stderr: list.note ? `vouch: ${list.note}\n` : '' };
  return protocol.pass(list.note ? `vouch: ${list.note}` : null);
}
