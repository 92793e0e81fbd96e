import type { ToolUse } from './tool-use.js';

/** What a hook process answers: its stdout, its stderr and its exit code. */
export interface HookReply {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

/**
 * One agent client's hook protocol. Front ends translate only: the tool
 * names a client uses into a ToolUse, and the gate's answers into the JSON
 * and exit code the client understands.
 */
export interface HookProtocol {
  /** The tool call in a PreToolUse / PostToolUse payload. */
  readonly toolUse: (toolName: string | null, toolInput: unknown) => ToolUse | null;
  /**
   * Let the agent stop. `notice` goes to stderr; `shout`, when set, is also
   * put in front of the person watching where the client can (an escape).
   */
  readonly allowStop: (notice: string | null, shout: boolean) => HookReply;
  /** Keep the agent working; `reason` is what it reads next. */
  readonly blockStop: (reason: string, notice: string | null) => HookReply;
  /** Refuse a tool call before it runs; `reason` is what the agent reads. */
  readonly denyTool: (reason: string) => HookReply;
  /** Nothing to say: the call goes ahead as the client would have it. */
  readonly pass: (notice: string | null) => HookReply;
  /**
   * Add a line for the person to a Stop's reply, whatever it decided
   * (Claude Code's systemMessage); absent where the client has no such place.
   */
  readonly tell?: (reply: HookReply, message: string) => HookReply;
  /**
   * Where the cards' one-line answers reach the asking session: in its
   * Stop's reply (the default), or at the end of its turn, a `TurnEnd`
   * call of its own (Hermes: its stop hook can hold a turn but not speak
   * on one it lets end; its plugin adds the line to the reply instead).
   */
  readonly answersAt?: 'stop' | 'turn_end';
  /** Run this shell call as `command` instead, the rest of its input kept (Claude Code's updatedInput); absent where the client cannot. */
  readonly rewriteShell?: (toolInput: unknown, command: string) => HookReply;
}

export const lines = (text: string | null) => (text ? `${text}\n` : '');
