import type { ServerResponse } from 'node:http';
import { LocalApi } from './local-api.js';

/** One output item the scripted model answers with. */
export type Item =
  | { type: 'message'; text: string }
  /** `namespace`: the tool's namespace when Codex offers it inside one (multi_agent_v1's spawn_agent, wait_agent). */
  | { type: 'function_call'; call_id: string; name: string; arguments: Record<string, unknown>; namespace?: string }
  /** A call of a freeform tool (Codex's apply_patch for models that have it): its input is raw text. */
  | { type: 'custom_tool_call'; call_id: string; name: string; input: string };

/** A request to POST /v1/responses, as the client sent it. */
export interface ResponsesRequest {
  model: string;
  input: { type: string; role?: string; content?: unknown; output?: unknown; call_id?: string }[];
  tools?: { name?: string; type: string }[];
}

export type ResponsesScript = (request: ResponsesRequest, index: number) => Item[];

/**
 * A local stand-in for the OpenAI Responses API (POST /v1/responses only),
 * answered as a server-sent event stream: response.created, one
 * response.output_item.done per item, response.completed. Listens on
 * 127.0.0.1 only.
 */
export class MockResponses extends LocalApi<ResponsesRequest> {
  readonly turns: ResponsesRequest[] = [];

  constructor(private readonly script: ResponsesScript) {
    super('/v1/responses', '/v1', (message) => ({ error: { message } }));
  }

  protected answer(request: ResponsesRequest, res: ServerResponse): void {
    this.turns.push(request);
    let items: Item[];
    try {
      items = this.script(request, this.turns.length - 1);
    } catch (error) {
      items = [{ type: 'message', text: `mock script error: ${(error as Error).message}` }];
    }
    stream(res, this.turns.length, items);
  }
}

function stream(res: ServerResponse, n: number, items: Item[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (data: { type: string } & Record<string, unknown>) => res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
  const id = `resp_${n}`;
  send({ type: 'response.created', response: { id } });
  const output = items.map((item, index) => {
    switch (item.type) {
      case 'message':
        return { type: 'message', role: 'assistant', id: `msg_${n}_${index}`, content: [{ type: 'output_text', text: item.text, annotations: [] }] };
      case 'function_call':
        return {
          type: 'function_call',
          id: `fc_${n}_${index}`,
          call_id: item.call_id,
          name: item.name,
          ...(item.namespace && { namespace: item.namespace }),
          arguments: JSON.stringify(item.arguments),
        };
      case 'custom_tool_call':
        return { type: 'custom_tool_call', id: `ctc_${n}_${index}`, call_id: item.call_id, name: item.name, input: item.input };
    }
  });
  output.forEach((item, index) => send({ type: 'response.output_item.done', output_index: index, item }));
  send({
    type: 'response.completed',
    response: { id, output, usage: { input_tokens: 10, input_tokens_details: null, output_tokens: 5, output_tokens_details: null, total_tokens: 15 } },
  });
  res.end();
}

/** All text the client sent as user messages and tool outputs in a request. */
export function inputText(request: ResponsesRequest): string {
  return request.input
    .map((item) => {
      if (typeof item.output === 'string') return item.output;
      if (Array.isArray(item.content)) return item.content.map((part: { text?: string }) => part.text ?? '').join('\n');
      return '';
    })
    .join('\n');
}
