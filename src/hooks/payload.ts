/**
 * The JSON a client's hook writes on stdin, read leniently: clients add
 * fields between versions, so unknown ones are ignored and missing ones are
 * null. Only a payload that is not a JSON object is refused.
 */
export interface HookPayload {
  /** hook_event_name: Stop, SubagentStop, PreToolUse, PostToolUse, SubagentStart... */
  readonly event: string | null;
  readonly session: string | null;
  readonly cwd: string | null;
  readonly stopHookActive: boolean;
  readonly agentId: string | null;
  /** The subagent's type (Claude Code's agent_type: the name of a .claude/agents/ definition), null for the main agent. */
  readonly agentType: string | null;
  readonly toolName: string | null;
  readonly toolInput: unknown;
  readonly toolResponse: unknown;
  readonly toolUseId: string | null;
  readonly durationMs: number | null;
  /** last_assistant_message (Stop, SubagentStop): what the agent said last, its claim; null when absent or empty. */
  readonly lastMessage: string | null;
  /** agent_transcript_path (SubagentStop): the client's transcript of the subagent. */
  readonly agentTranscriptPath: string | null;
  /** transcript_path: the client's transcript of the session. */
  readonly transcriptPath: string | null;
  /** background_tasks (Stop): ids of the subagents the client says are still running. */
  readonly runningAgents: readonly string[];
}

export type PayloadResult = { readonly ok: true; readonly payload: HookPayload } | { readonly ok: false; readonly why: string };

export function parsePayload(text: string): PayloadResult {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { ok: false, why: `stdin is not JSON (${(error as Error).message}); expected the hook's JSON object` };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { ok: false, why: `stdin is ${Array.isArray(data) ? 'an array' : typeof data}; expected the hook's JSON object` };
  }
  const record = data as Record<string, unknown>;
  const text_ = (key: string) => (typeof record[key] === 'string' && record[key] !== '' ? record[key] : null);
  const duration = record.duration_ms;
  return {
    ok: true,
    payload: {
      event: text_('hook_event_name'),
      session: text_('session_id'),
      cwd: text_('cwd'),
      stopHookActive: record.stop_hook_active === true,
      agentId: text_('agent_id'),
      agentType: text_('agent_type'),
      toolName: text_('tool_name'),
      toolInput: record.tool_input,
      toolResponse: record.tool_response,
      toolUseId: text_('tool_use_id'),
      durationMs: typeof duration === 'number' && Number.isFinite(duration) ? duration : null,
      lastMessage: text_('last_assistant_message'),
      agentTranscriptPath: text_('agent_transcript_path'),
      transcriptPath: text_('transcript_path'),
      runningAgents: runningSubagents(record.background_tasks),
    },
  };
}

/** Claude Code lists background work in `background_tasks`: [{id, type: "subagent", status: "running", ...}]. */
function runningSubagents(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((task: unknown) => {
    const t = task as Record<string, unknown> | null;
    return t && typeof t === 'object' && t.type === 'subagent' && t.status === 'running' && typeof t.id === 'string' ? [t.id] : [];
  });
}
