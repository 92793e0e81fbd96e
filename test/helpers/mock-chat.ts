import type { ServerResponse } from 'node:http';
import { LocalApi } from './local-api.js';

/** What the scripted model answers in one turn: text, or one tool call. */
export type ChatAnswer = { readonly text: string } | { readonly tool: { readonly name: string; readonly args: Record<string, unknown> } };

/** A request to POST /v1/chat/completions, as the client sent it. */
export interface ChatRequest {
  model: string;
  stream?: boolean;
  messages: { role: string; content?: unknown; name?: string; tool_call_id?: string }[];
  tools?: { type: string; function?: { name: string } }[];
}

export type ChatScript = (request: ChatRequest, index: number) => ChatAnswer;

/**
 * A local stand-in for an OpenAI-compatible chat completions API (POST
 * /v1/chat/completions, streamed as chat.completion.chunk events or
 * answered whole), what Hermes Agent speaks to a `custom` provider. Every
 * other path (Hermes probes /v1/models, /api/tags... to learn the server)
 * is a 404. Listens on 127.0.0.1 only.
 */
export class MockChat extends LocalApi<ChatRequest> {
  readonly turns: ChatRequest[] = [];

  constructor(private readonly script: ChatScript) {
    super('/v1/chat/completions', '/v1', (message) => ({ error: { message } }));
  }

  protected answer(request: ChatRequest, res: ServerResponse): void {
    this.turns.push(request);
    let answer: ChatAnswer;
    try {
      answer = this.script(request, this.turns.length - 1);
    } catch (error) {
      answer = { text: `mock script error: ${(error as Error).message}` };
    }
    reply(res, request, this.turns.length, answer);
  }
}

function reply(res: ServerResponse, request: ChatRequest, n: number, answer: ChatAnswer): void {
  const call =
    'tool' in answer ? { id: `call_${n}`, type: 'function', function: { name: answer.tool.name, arguments: JSON.stringify(answer.tool.args) } } : null;
  const finish = call ? 'tool_calls' : 'stop';
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  const head = { id: `chatcmpl_${n}`, created: 1, model: request.model };
  if (!request.stream) {
    const message = call ? { role: 'assistant', content: null, tool_calls: [call] } : { role: 'assistant', content: 'text' in answer ? answer.text : '' };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...head, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
  const delta = call ? { role: 'assistant', tool_calls: [{ index: 0, ...call }] } : { role: 'assistant', content: 'text' in answer ? answer.text : '' };
  send({ ...head, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }] });
  send({ ...head, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: finish }], usage });
  res.write('data: [DONE]\n\n');
  res.end();
}

/** The text of the last user or tool message of a request: what the model reads next. */
export function lastText(request: ChatRequest): string {
  const last = request.messages.at(-1);
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  if (Array.isArray(last.content)) return last.content.map((part: { text?: string }) => part.text ?? '').join('\n');
  return '';
}
