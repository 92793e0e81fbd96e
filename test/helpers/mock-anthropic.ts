import type { ServerResponse } from 'node:http';
import { LocalApi } from './local-api.js';

/** One content block the scripted model answers with. */
export type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

/** A request to POST /v1/messages, as the client sent it. */
export interface MessagesRequest {
  model: string;
  system?: unknown;
  messages: { role: string; content: unknown }[];
  tools?: { name: string }[];
  stream?: boolean;
}

/** Decides the scripted answer to one agent request (one that offers tools); it may wait (to order concurrent agents). */
export type Script = (request: MessagesRequest, index: number) => Block[] | Promise<Block[]>;

/**
 * A local stand-in for the Anthropic Messages API: POST /v1/messages only,
 * answered as a server-sent event stream (message_start, content_block_*,
 * message_delta with the stop reason, message_stop). Requests that offer
 * tools are the agent's turns and are answered by the script; any other
 * (a title or summary the client asks for on the side) gets a short text.
 * It listens on 127.0.0.1 only.
 */
export class MockAnthropic extends LocalApi<MessagesRequest> {
  /** The agent turns received, in order. */
  readonly turns: MessagesRequest[] = [];

  constructor(private readonly script: Script) {
    super('/v1/messages', '', (message) => ({ type: 'error', error: { type: 'not_found_error', message } }));
  }

  protected async answer(request: MessagesRequest, res: ServerResponse): Promise<void> {
    let blocks: Block[];
    if (request.tools && request.tools.length > 0) {
      this.turns.push(request);
      try {
        blocks = await this.script(request, this.turns.length - 1);
      } catch (error) {
        blocks = [{ type: 'text', text: `mock script error: ${(error as Error).message}` }];
      }
    } else {
      blocks = [{ type: 'text', text: 'ok' }];
    }
    stream(res, request.model, blocks);
  }
}

function stream(res: ServerResponse, model: string, blocks: Block[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  send('message_start', {
    type: 'message_start',
    message: {
      id: `msg_${Date.now()}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  });
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
    } else {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    }
    send('content_block_stop', { type: 'content_block_stop', index });
  });
  const usesTool = blocks.some((block) => block.type === 'tool_use');
  send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: usesTool ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  send('message_stop', { type: 'message_stop' });
  res.end();
}

/** Everything the client sent in a request's last user message, as text (tool results and hook feedback included). */
export function lastUserText(request: MessagesRequest): string {
  const last = [...request.messages].reverse().find((message) => message.role === 'user');
  return last ? textOf(last.content) : '';
}

/** All text of a request's messages. */
export function allText(request: MessagesRequest): string {
  return request.messages.map((message) => textOf(message.content)).join('\n');
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => textOf(part)).join('\n');
  if (typeof content === 'object' && content !== null) {
    const record = content as Record<string, unknown>;
    return [record.text, record.content].map((value) => (value === undefined ? '' : textOf(value))).join('\n');
  }
  return '';
}
