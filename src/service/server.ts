import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Pool } from 'pg';
import { ID_PATTERN } from '../core/ids.js';
import { isSha256, sha256 } from '../core/digest.js';
import { decodeManifest } from '../ledger/postgres/codec.js';
import { CHECK_ID_PATTERN } from '../spec/fields.js';
import { apiStatus, type ApiError } from './errors.js';
import { jobView, receiptForClient, submitJob } from './jobs.js';
import { allowedServiceSpec } from './server-trust.js';
import { clientOf } from './tokens.js';

/** What one server enforces per request and per client. */
export interface ServiceLimits {
  /** Bytes of one uploaded archive. */
  readonly maxUploadBytes: number;
  /** Seconds one job may take: the sum of its checks' timeouts must fit. */
  readonly maxJobSeconds: number;
  /** Jobs one client may have queued or running at once. */
  readonly maxOpenJobs: number;
}

export interface ServerOptions {
  readonly pool: Pool;
  /** The server's VOUCH_HOME: its trust list of allowed specs. */
  readonly home: string;
  readonly limits: ServiceLimits;
  readonly version: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated client's name. */
    client?: string;
  }
}

/** The only bodies the API reads; any other Content-Type (JSON, text, none) is 415, never parsed. */
const ARCHIVE_TYPES = ['application/gzip', 'application/x-gzip'];
const HEALTHZ = '/v1/healthz';

/**
 * The verifier service's HTTP API, JSON, versioned under /v1. Every route
 * but healthz needs a client's bearer token; the token is checked before
 * the body is read, so nobody without one can make the server read an
 * upload. The server never runs anything: workers do.
 */
export async function buildServer(options: ServerOptions): Promise<FastifyInstance> {
  const { default: fastify } = await import('fastify');
  const app = fastify({ logger: false, bodyLimit: options.limits.maxUploadBytes, return503OnClosing: true, forceCloseConnections: true });
  const { pool, limits } = options;
  const send = (reply: FastifyReply, error: ApiError) => reply.code(apiStatus(error.code)).send({ error });
  const unsupported = (reply: FastifyReply, request: FastifyRequest) =>
    send(reply, {
      code: 'unsupported_media_type',
      message: `the body must be the tree as a gzip'd tar`,
      found: request.headers['content-type'] ?? '(none)',
      limit: ARCHIVE_TYPES.join(', '),
      hint: 'send the archive with Content-Type: application/gzip',
    });

  // fastify parses JSON and text by default; this API takes neither, so they must meet the same 415 as any other type.
  app.removeAllContentTypeParsers();
  for (const type of ARCHIVE_TYPES) app.addContentTypeParser(type, { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.addHook('onRequest', async (request, reply) => {
    // The matched route, not the raw URL: `/v1/healthz?x=1` is still healthz.
    if (request.routeOptions.url === HEALTHZ) return;
    const header = request.headers.authorization ?? '';
    const token = /^Bearer (\S+)$/.exec(header)?.[1];
    const client = token ? await clientOf(pool, token) : undefined;
    if (!client) {
      reply.header('www-authenticate', 'Bearer realm="vouch"');
      return send(reply, {
        code: 'unauthorized',
        message: token ? 'the bearer token is unknown or revoked' : 'no bearer token: every request but /v1/healthz needs one',
        hint: 'ask the operator for a token (`vouch serve token add NAME`) and send it as "Authorization: Bearer TOKEN"',
      });
    }
    request.client = client;
  });

  app.setErrorHandler((error: { code?: string; statusCode?: number; message: string }, request, reply) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return send(reply, {
        code: 'upload_too_large',
        message: 'the uploaded archive is larger than this server accepts',
        limit: limits.maxUploadBytes,
        found: Number(request.headers['content-length'] ?? Number.NaN) || 'more',
        hint: 'send less: only git-tracked files and declared scopes are packed; or ask the operator to raise --max-upload-mb',
      });
    }
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return unsupported(reply, request);
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return send(reply, { code: 'bad_request', message: error.message });
    }
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
    const archive = request.body;
    const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!ARCHIVE_TYPES.includes(type)) return unsupported(reply, request);
    if (!Buffer.isBuffer(archive) || archive.length === 0) {
      return send(reply, { code: 'bad_request', message: `the body must be the tree as a gzip'd tar`, hint: 'send it with Content-Type: application/gzip' });
    }
    const specSha = request.query.spec_sha256;
    if (typeof specSha !== 'string' || !isSha256(specSha)) {
      return send(reply, { code: 'bad_request', message: 'spec_sha256 must be the SHA-256 of the tree\'s vouch.yaml, 64 lowercase hex characters', found: String(specSha ?? '(none)') });
    }
    const given = request.query.check;
    const checks = [...new Set(typeof given === 'string' ? [given] : (given ?? []))];
    if (checks.length === 0 || checks.some((id) => !CHECK_ID_PATTERN.test(id))) {
      return send(reply, { code: 'bad_request', message: 'name one or more checks to run: ?check=ID (repeatable), ids as in vouch.yaml', found: checks.join(',') || '(none)' });
    }
    const spec = allowedServiceSpec(options.home, specSha);
    if (!spec) {
      return send(reply, {
        code: 'spec_not_allowed',
        message: `spec ${specSha} is not allowed on this server: it runs only specs its operator allowed, byte for byte`,
        found: specSha,
        hint: 'the operator reads your vouch.yaml and runs `vouch serve allow vouch.yaml` on the server',
      });
    }
    const unknown = checks.filter((id) => !spec.checks.some((check) => check.id === id));
    if (unknown.length > 0) {
      return send(reply, { code: 'check_not_found', message: `no check ${unknown.join(', ')} in spec ${specSha.slice(0, 12)}`, found: unknown.join(','), limit: spec.checks.map((c) => c.id).join(',') });
    }
    const seconds = spec.checks.filter((check) => checks.includes(check.id)).reduce((sum, check) => sum + check.timeout, 0);
    if (seconds > limits.maxJobSeconds) {
      return send(reply, {
        code: 'job_time_limit',
        message: `these checks may run ${seconds} s in all (the sum of their timeouts), longer than one job may take here`,
        limit: limits.maxJobSeconds,
        found: seconds,
        hint: 'submit fewer checks per job, lower their timeouts in vouch.yaml, or ask the operator to raise --max-job-seconds',
      });
    }
    const submitted = await submitJob(pool, { client, specSha256: specSha, checks, archive, archiveSha256: sha256(archive), timeLimitSeconds: seconds }, limits.maxOpenJobs);
    if (submitted.kind === 'busy') {
      reply.header('retry-after', '5');
      return send(reply, {
        code: 'too_many_jobs',
        message: `client "${client}" already has ${submitted.open} jobs queued or running`,
        limit: limits.maxOpenJobs,
        found: submitted.open,
        hint: 'wait for one to finish (GET /v1/jobs/ID) and submit again',
      });
    }
    return reply.code(202).send({ job: { id: submitted.id, state: 'queued', url: `/v1/jobs/${submitted.id}` } });
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
