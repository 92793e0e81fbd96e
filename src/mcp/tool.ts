import type * as z from 'zod';
import type { WorkspaceCall } from './workspace-call.js';

/**
 * One MCP tool. Tools translate between the protocol and the engine; they
 * hold no verification logic. Adding a tool is one file exporting one of
 * these and one line in tools/index.ts.
 *
 * `input` must be a strict object of ids only: the agent names what the
 * operator configured and never supplies a command, a directory, an
 * environment, a path or a glob.
 */
export interface VouchTool<Input extends z.ZodObject = z.ZodObject, Output extends z.ZodObject = z.ZodObject> {
  readonly name: `vouch_${string}`;
  readonly title: string;
  /** What the tool answers and what it never does; shown to the model. */
  readonly description: string;
  readonly input: Input;
  readonly output: Output;
  /** True when the tool only reads: it neither runs a check nor writes the ledger. */
  readonly readOnly: boolean;
  run(args: z.output<Input>, call: WorkspaceCall): Promise<ToolAnswer<z.output<Output>>>;
}

/**
 * What a tool hands back: the structured result and a short text rendering
 * of it. Expected problems (an unknown id, an invalid spec) are thrown as
 * VouchProblem, as in the CLI, and become error results in handle.ts.
 */
export interface ToolAnswer<T> {
  readonly data: T;
  readonly text: string;
}

export const answer = <T>(data: T, text: string): ToolAnswer<T> => ({ data, text });

/** Keeps each tool's input and output types tied together, then erases them for the registry. */
export function defineTool<Input extends z.ZodObject, Output extends z.ZodObject>(tool: VouchTool<Input, Output>): VouchTool {
  return tool;
}
