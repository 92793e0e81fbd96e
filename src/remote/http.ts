/** What the verifier answered: a JSON body, a refusal it explained, or nothing usable. */
export type Reply =
  | { readonly kind: 'ok'; readonly status: number; readonly body: Record<string, unknown> }
  | {
      readonly kind: 'refused';
      readonly status: number;
      readonly code: string;
      readonly message: string;
      readonly hint: string | null;
      readonly limit: unknown;
      readonly found: unknown;
    }
  /** `transient`: a 5xx or a network failure (refused, reset, no answer in time), worth trying again; a redirect or a body that is not JSON is not. */
  | { readonly kind: 'unavailable'; readonly detail: string; readonly transient: boolean };

export interface Request {
  readonly method: 'GET' | 'POST';
  /** Path and query under the base URL, e.g. "v1/jobs?check=t". */
  readonly path: string;
  readonly token: string;
  readonly body?: Buffer;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/**
 * One call to the verifier. Redirects are never followed (a redirect could
 * replay the upload and the token to another origin, or downgrade to
 * http); any 3xx is an unusable answer. A 4xx is the server's refusal, with
 * its reason; a 5xx, a network error, a timeout or a body that is not JSON
 * is "unavailable" (the first three transient).
 */
export async function call(base: URL, request: Request): Promise<Reply> {
  const url = new URL(request.path, base.href.endsWith('/') ? base : new URL(`${base.href}/`));
  const timeout = AbortSignal.timeout(request.timeoutMs ?? 60_000);
  let response: Response;
  try {
    response = await fetch(url, {
      method: request.method,
      redirect: 'manual',
      headers: {
        authorization: `Bearer ${request.token}`,
        accept: 'application/json',
        ...(request.body && { 'content-type': 'application/gzip' }),
      },
      ...(request.body && { body: request.body }),
      signal: request.signal ? AbortSignal.any([timeout, request.signal]) : timeout,
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = (error as Error).name === 'TimeoutError' ? 'no answer in time' : (cause?.code ?? cause?.message ?? (error as Error).message);
    if (request.signal?.aborted) return { kind: 'unavailable', detail: `${request.method} ${url.pathname}: stopped`, transient: false };
    return { kind: 'unavailable', detail: `${request.method} ${url.pathname}: ${reason}`, transient: true };
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    return {
      kind: 'unavailable',
      detail: `the server answered with a redirect (${response.status} to ${response.headers.get('location') ?? 'nowhere'}), which vouch never follows`,
      transient: false,
    };
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    return {
      kind: 'unavailable',
      detail: `${request.method} ${url.pathname}: ${response.status}, and the answer is not JSON`,
      transient: response.status >= 500,
    };
  }
  if (response.status >= 500 || typeof body !== 'object' || body === null) {
    const said = (body as { error?: { message?: unknown } } | null)?.error?.message;
    return {
      kind: 'unavailable',
      detail: `${request.method} ${url.pathname}: the server failed (${response.status})${typeof said === 'string' ? `: ${said}` : ''}`,
      transient: response.status >= 500,
    };
  }
  if (response.status >= 400) {
    const error: Record<string, unknown> = (body as { error?: Record<string, unknown> }).error ?? {};
    return {
      kind: 'refused',
      status: response.status,
      code: typeof error.code === 'string' ? error.code : `http_${response.status}`,
      message: typeof error.message === 'string' ? error.message : `HTTP ${response.status}`,
      hint: typeof error.hint === 'string' ? error.hint : null,
      limit: error.limit,
      found: error.found,
    };
  }
  return { kind: 'ok', status: response.status, body: body as Record<string, unknown> };
}
