import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import type { Pool } from 'pg';
import { ID_PATTERN } from '../core/ids.js';
import { isSha256 } from '../core/digest.js';
import { decodeManifest } from '../ledger/postgres/codec.js';
import { CHECK_ID_PATTERN } from '../spec/fields.js';
import { capConnections, type ConnectionLimits, type ConnectionRefusal } from './connections.js';
import { apiStatus, type ApiError } from './errors.js';
import { rawAnswer } from './raw-answer.js';
import { jobView, receiptForClient } from './jobs.js';
import { receiveUpload } from './receive.js';
import { abandonUpload, beginJob, finishUpload, type JobRequest } from './upload.js';
import { allowedServiceSpec } from './server-trust.js';
import { clientOf } from './tokens.js';

/** What one server enforces per request and per client. */
export interface ServiceLimits {
  /** Bytes of one uploaded archive. */
  readonly maxUploadBytes: number;
  /** Seconds one job may take: the sum of its checks' timeouts must fit. */
  readonly maxJobSeconds: number;
  /** Jobs one client may have receiving, queued or running at once. */
  readonly maxOpenJobs: number;
  /** Milliseconds one upload may take to arrive. */
  readonly uploadMs: number;
}

export interface ServerOptions {
  readonly pool: Pool;
  /** The server's VOUCH_HOME: its trust list of allowed specs. */
  readonly home: string;
  readonly limits: ServiceLimits;
  /** Connections held at once, from one address and in all. */
  readonly connections: ConnectionLimits;
  readonly version: string;
  /** Told what went wrong when a request fails on the server's side (the 500s), for the operator's log. */
  readonly log?: (line: string) => void;
  /** Told of each connection refused at a cap (the operator's log says so once in a while). */
  readonly onConnectionRefused?: (refusal: ConnectionRefusal) => void;
}

/**
 * How long a connection may take, in milliseconds: to send a request's
 * headers (from its first byte), to send nothing at all (a connection that
 * never sends a byte, or stalls mid-request), to send its next request
 * (keep-alive), and a whole request (an upload has its own limit,
 * ServiceLimits.uploadMs, and a little more here).
 */
export const TIMEOUTS = { headersMs: 10_000, idleMs: 30_000, keepAliveMs: 5_000 } as const;
/** Largest request head (request line and headers), Node's default: 431 above it. */
export const MAX_HEADER_BYTES = 16 * 1024;

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated client's name. */
    client?: string;
  }
}

/** The only bodies the API reads; any other Content-Type (JSON, text, none) is 415, never parsed. */
const ARCHIVE_TYPES = ['application/gzip', 'application/x-gzip'];
const HEALTHZ = '/v1/healthz';
/** A client's nonce: fresh random bytes, hex, at least 128 bits. */
const NONCE_PATTERN = /^[0-9a-f]{32,128}$/;
/** A git object name (SHA-1 or SHA-256). */
const COMMIT_PATTERN = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * The verifier service's HTTP API, JSON, versioned under /v1. Every route
 * but healthz needs a client's bearer token, checked before the body is
 * read; every limit that can be checked before the body is read is
 * (media type, declared size, spec, checks, time, the client's open jobs),
 * then the body is streamed into the database a part at a time. Every
 * answer that is not a success, on any route, is {"error": {...}}. The
 * server never runs anything: workers do.
 */
export async function buildServer(options: ServerOptions): Promise<FastifyInstance> {
  const { default: fastify } = await import('fastify');
  const { pool, limits } = options;
  const app = fastify({
    logger: false,
    return503OnClosing: false,
    forceCloseConnections: true,
    connectionTimeout: TIMEOUTS.idleMs,
    keepAliveTimeout: TIMEOUTS.keepAliveMs,
    requestTimeout: limits.uploadMs + 10_000,
    // The header timeout is checked every second (Node's default: every 30 s).
    http: { headersTimeout: TIMEOUTS.headersMs, connectionsCheckingInterval: 1000, maxHeaderSize: MAX_HEADER_BYTES },
    // What fastify refuses before any route or hook runs: the same error shape as every other answer.
    frameworkErrors: (error, request, reply) => {
      void send(reply, frameworkError(error.code, request.raw.url ?? ''));
      if (error.code !== 'FST_ERR_MAX_PARAM_LENGTH' && error.code !== 'FST_ERR_BAD_URL')
        options.log?.(`${request.method} ${(request.raw.url ?? '').split('?')[0]!.slice(0, 200)}: ${error.message}`);
    },
    // What Node's parser refuses (headers too large, a malformed request, a header timeout), answered on the socket itself.
    clientErrorHandler: (error: NodeJS.ErrnoException, socket) => {
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      if (socket.writable) socket.write(rawAnswer(clientError(error)));
      socket.destroy();
    },
  });
  capConnections(app.server, options.connections, options.onConnectionRefused);
  let closing = false;
  app.addHook('onClose', async () => {
    closing = true;
  });
  const send = (reply: FastifyReply, error: ApiError) => reply.code(apiStatus(error.code)).send({ error });
  const unsupported = (reply: FastifyReply, request: FastifyRequest) =>
    send(reply, {
      code: 'unsupported_media_type',
      message: `the body must be the tree as a gzip'd tar`,
      found: request.headers['content-type'] ?? '(none)',
      limit: ARCHIVE_TYPES.join(', '),
      hint: 'send the archive with Content-Type: application/gzip',
    });
  /** An answer given while the client may still be sending: the rest of its body is never read, and the connection closes once the answer is out. */
  const leaveUnread = (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('connection', 'close');
    reply.raw.once('finish', () => request.raw.destroy());
    return reply;
  };
  const refuseUpload = (request: FastifyRequest, reply: FastifyReply, error: ApiError) => send(leaveUnread(request, reply), error);

  // fastify parses JSON and text by default; this API takes neither, so they must meet the same 415 as any other type.
  // The archive parser hands the body over unread: the route decides whether and how to read it.
  app.removeAllContentTypeParsers();
  for (const type of ARCHIVE_TYPES) app.addContentTypeParser(type, (_request, payload, done) => done(null, payload));

  app.addHook('onRequest', async (request, reply) => {
    if (closing) {
      reply.header('retry-after', '5');
      return send(reply, {
        code: 'unavailable',
        message: 'the server is shutting down',
        hint: 'submit again in a moment (to this server once it is back, or another)',
      });
    }
    // The matched route, not the raw URL: `/v1/healthz?x=1` is still healthz.
    if (request.routeOptions.url === HEALTHZ) return;
    const header = request.headers.authorization ?? '';
    const token = /^Bearer (\S+)$/.exec(header)?.[1];
    const client = token ? await clientOf(pool, token) : undefined;
    if (!client) {
      reply.header('www-authenticate', 'Bearer realm="vouch"');
      return refuseUpload(request, reply, {
        code: 'unauthorized',
        message: token ? 'the bearer token is unknown or revoked' : 'no bearer token: every request but /v1/healthz needs one',
        hint: 'ask the operator for a token (`vouch serve token add NAME`) and send it as "Authorization: Bearer TOKEN"',
      });
    }
    request.client = client;
  });

  app.setNotFoundHandler((request, reply) =>
    send(reply, {
      code: 'not_found',
      message: `no route ${request.method} ${request.url.split('?')[0]}`,
      hint: 'the API is POST /v1/jobs, GET /v1/jobs/ID, GET /v1/receipts/ID and GET /v1/healthz',
    }),
  );

  app.setErrorHandler((error: { code?: string; statusCode?: number; message: string }, request, reply) => {
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return unsupported(reply, request);
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return send(reply, { code: 'bad_request', message: error.message });
    }
    options.log?.(`${request.method} ${request.url.split('?')[0]}: ${error.message}`);
    return send(reply, { code: 'internal', message: 'the server failed to handle this request; its operator can see why in its log' });
  });

  app.get(HEALTHZ, async (_request, reply) => {
    try {
      await pool.query('SELECT 1');
      return { ok: true, version: options.version, database: 'ok' };
    } catch {
      return reply.code(503).send({ ok: false, version: options.version, database: 'unreachable' });
    }
  });

  app.post('/v1/jobs', async (request: FastifyRequest<{ Querystring: Record<string, string | string[] | undefined> }>, reply) => {
    const client = request.client!;
    const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!ARCHIVE_TYPES.includes(type)) return unsupported(reply, request);
    const declared = Number(request.headers['content-length'] ?? Number.NaN);
    const tooLarge = (found: number | string): ApiError => ({
      code: 'upload_too_large',
      message: 'the uploaded archive is larger than this server accepts',
      limit: limits.maxUploadBytes,
      found,
      hint: 'send less: only git-tracked files and declared scopes are packed; or ask the operator to raise --max-upload-mb',
    });
    if (declared > limits.maxUploadBytes) return refuseUpload(request, reply, tooLarge(declared));
    // fastify hands no stream over for an empty body.
    const body = request.body as Readable | undefined;
    if (typeof body?.pipe !== 'function' || declared === 0) {
      return send(reply, {
        code: 'bad_request',
        message: `the body must be the tree as a gzip'd tar, and it is empty`,
        hint: 'send it with Content-Type: application/gzip',
      });
    }
    const asked = jobRequest(request.query, client, options.home, limits);
    if ('code' in asked) return refuseUpload(request, reply, asked);

    const begun = await beginJob(pool, asked, limits.maxOpenJobs);
    if (begun.kind === 'existing') {
      // A retried submission (same nonce): the job it made, and its body is not read again.
      if (begun.state === 'receiving') {
        reply.header('retry-after', '2');
        return refuseUpload(request, reply, {
          code: 'unavailable',
          message: `job ${begun.id} with this nonce is still being received`,
          hint: 'retry in a moment',
        });
      }
      return leaveUnread(request, reply)
        .code(202)
        .send({ job: { id: begun.id, state: begun.state, url: `/v1/jobs/${begun.id}` } });
    }
    if (begun.kind === 'busy') {
      reply.header('retry-after', '5');
      return refuseUpload(request, reply, {
        code: 'too_many_jobs',
        message: `client "${client}" already has ${begun.open} jobs receiving, queued or running`,
        limit: limits.maxOpenJobs,
        found: begun.open,
        hint: 'wait for one to finish (GET /v1/jobs/ID) and submit again',
      });
    }
    const received = await receiveUpload(body, pool, begun.id, limits.maxUploadBytes, limits.uploadMs).catch(async (error: unknown) => {
      await abandonUpload(pool, begun.id).catch(() => undefined);
      throw error;
    });
    if (!received.ok || received.bytes === 0) {
      await abandonUpload(pool, begun.id);
      if (!received.ok && received.why === 'too_large') return refuseUpload(request, reply, tooLarge(`more than ${limits.maxUploadBytes}`));
      if (!received.ok && received.why === 'too_slow') {
        return refuseUpload(request, reply, {
          code: 'bad_request',
          message: `the upload did not arrive in time: ${received.detail}`,
          limit: limits.uploadMs / 1000,
          hint: 'send a smaller tree, or over a faster link',
        });
      }
      if (!received.ok)
        return refuseUpload(request, reply, { code: 'bad_request', message: `the upload broke off after ${received.bytes} bytes: ${received.detail}` });
      return send(reply, { code: 'bad_request', message: `the body must be the tree as a gzip'd tar`, hint: 'send it with Content-Type: application/gzip' });
    }
    await finishUpload(pool, begun.id, received.parts, received.bytes, received.sha256);
    return reply.code(202).send({ job: { id: begun.id, state: 'queued', url: `/v1/jobs/${begun.id}` } });
  });

  app.get('/v1/jobs/:id', async (request: FastifyRequest<{ Params: { id: string } }>, reply) => {
    const id = request.params.id;
    const job = ID_PATTERN.test(id) ? await jobView(pool, id, request.client!) : undefined;
    if (!job) return send(reply, { code: 'not_found', message: `no job ${id} for this client` });
    return { job };
  });

  app.get('/v1/receipts/:id', async (request: FastifyRequest<{ Params: { id: string } }>, reply) => {
    const id = request.params.id;
    const row = ID_PATTERN.test(id) ? await receiptForClient(pool, id, request.client!) : undefined;
    if (!row) return send(reply, { code: 'not_found', message: `no receipt ${id} among this client's jobs` });
    const manifest = row.manifest ? decodeManifest(row.manifest) : undefined;
    return { receipt: { id, seq: row.seq, hash: row.hash, job: row.job, body: row.body, signature: row.signature }, manifest: manifest ?? null };
  });

  return app;
}

/** A request fastify refused before any route ran, as an API error. */
function frameworkError(code: string, url: string): ApiError {
  switch (code) {
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { code: 'not_found', message: 'no job or receipt with an id that long: ids are 26 characters', hint: 'use the id a submission answered with' };
    case 'FST_ERR_BAD_URL':
      return { code: 'bad_request', message: 'the URL is not valid: a % must start an escape of two hex digits', found: url.slice(0, 200) };
    default:
      return { code: 'internal', message: 'the server failed to handle this request; its operator can see why in its log' };
  }
}

/** A request Node's HTTP parser refused, as an API error. */
function clientError(error: NodeJS.ErrnoException): ApiError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        code: 'headers_too_large',
        message: 'the request line and headers are larger than this server reads',
        limit: MAX_HEADER_BYTES,
        hint: 'send fewer or shorter headers',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        code: 'request_timeout',
        message: 'the request did not arrive in time',
        limit: TIMEOUTS.headersMs / 1000,
        hint: 'send the whole request head at once',
      };
    default:
      return {
        code: 'bad_request',
        message: `the request is not HTTP/1.1 this server can read (${error.code ?? 'parse error'})`,
        hint: 'send a well-formed request',
      };
  }
}

type Query = Record<string, string | string[] | undefined>;

/** What a submission asks for, checked against this server before its body is read; or the refusal. */
function jobRequest(query: Query, client: string, home: string, limits: ServiceLimits): JobRequest | ApiError {
  const one = (name: string) => (typeof query[name] === 'string' ? query[name] : undefined);
  const specSha = one('spec_sha256');
  if (specSha === undefined || !isSha256(specSha)) {
    return {
      code: 'bad_request',
      message: "spec_sha256 must be the SHA-256 of the tree's vouch.yaml, 64 lowercase hex characters",
      found: String(query.spec_sha256 ?? '(none)'),
    };
  }
  const given = query.check;
  const checks = [...new Set(typeof given === 'string' ? [given] : (given ?? []))];
  if (checks.length === 0 || checks.some((id) => !CHECK_ID_PATTERN.test(id))) {
    return {
      code: 'bad_request',
      message: 'name one or more checks to run: ?check=ID (repeatable), ids as in vouch.yaml',
      found: checks.join(',') || '(none)',
    };
  }
  const nonce = one('nonce');
  if (nonce === undefined || !NONCE_PATTERN.test(nonce)) {
    return {
      code: 'bad_request',
      message: 'nonce must be fresh random bytes for this job, 32 to 128 lowercase hex characters: every receipt of the job carries it',
      found: String(query.nonce ?? '(none)'),
      hint: 'vouch verify --remote sends one; a client of its own sends 32 random bytes as hex',
    };
  }
  const head = one('git_head');
  const dirty = one('git_dirty');
  if (
    (head !== undefined && !COMMIT_PATTERN.test(head)) ||
    (dirty !== undefined && dirty !== '0' && dirty !== '1') ||
    (head !== undefined && dirty === undefined)
  ) {
    return {
      code: 'bad_request',
      message: 'git_head must be a commit id (40 or 64 hex) given with git_dirty=0 or 1; both absent when the client is not in a git work tree',
      found: `${head ?? '(none)'} ${dirty ?? '(none)'}`,
    };
  }
  const clientGit = dirty === undefined ? null : { head: head ?? null, dirty: dirty === '1' };
  const spec = allowedServiceSpec(home, specSha);
  if (!spec) {
    return {
      code: 'spec_not_allowed',
      message: `spec ${specSha} is not allowed on this server: it runs only specs its operator allowed, byte for byte`,
      found: specSha,
      hint: 'the operator reads your vouch.yaml and runs `vouch serve allow vouch.yaml` on the server',
    };
  }
  const unknown = checks.filter((id) => !spec.checks.some((check) => check.id === id));
  if (unknown.length > 0) {
    return {
      code: 'check_not_found',
      message: `no check ${unknown.join(', ')} in spec ${specSha.slice(0, 12)}`,
      found: unknown.join(','),
      limit: spec.checks.map((c) => c.id).join(','),
    };
  }
  const seconds = spec.checks.filter((check) => checks.includes(check.id)).reduce((sum, check) => sum + check.timeout, 0);
  if (seconds > limits.maxJobSeconds) {
    return {
      code: 'job_time_limit',
      message: `these checks may run ${seconds} s in all (the sum of their timeouts), longer than one job may take here`,
      limit: limits.maxJobSeconds,
      found: seconds,
      hint: 'submit fewer checks per job, lower their timeouts in vouch.yaml, or ask the operator to raise --max-job-seconds',
    };
  }
  return { client, specSha256: specSha, checks, timeLimitSeconds: seconds, nonce, clientGit };
}
