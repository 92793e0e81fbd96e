import type { Dispatch } from './model.js';

/** One line naming a dispatch for people: its prompt's first line, else what ran it. Not yet made safe for a terminal (see render/visible.ts). */
export function dispatchLabel(dispatch: Dispatch, width = 60): string {
  const prompt = dispatch.order?.prompt ?? dispatch.claim?.transcript_prompt?.text ?? null;
  if (prompt !== null) {
    const line = prompt.trim().split('\n')[0]?.trim() ?? '';
    return line.length > width ? `${line.slice(0, width - 1)}…` : line;
  }
  const agent = dispatch.order?.agent;
  if (agent) return `${agent.type ?? 'subagent'} ${agent.id} (prompt not in the hook payload)`;
  return dispatch.damage ? '(damaged record)' : '(no prompt)';
}
