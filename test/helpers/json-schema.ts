import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/*
 * A real JSON Schema validator (draft 2020-12) without a new dependency:
 * ajv 8, as fastify (a dependency of vouch) ships it through
 * @fastify/ajv-compiler. The top-level node_modules/ajv is ajv 6 (ESLint's),
 * which knows no draft 2020-12.
 */
const fromFastify = createRequire(createRequire(import.meta.url).resolve('@fastify/ajv-compiler'));
const Ajv2020 = (fromFastify('ajv/dist/2020') as { default: new (options: object) => AjvLike }).default;

interface AjvLike {
  compile(schema: object): ((data: unknown) => boolean) & { errors?: unknown[] | null };
}

/** The published report schema (schema/report.schema.json). */
export const REPORT_SCHEMA = JSON.parse(readFileSync(new URL('../../schema/report.schema.json', import.meta.url), 'utf8')) as Record<string, unknown>;

/** Validates `data` against a schema: the errors ajv found, none when it holds. */
export function schemaErrors(schema: object, data: unknown): unknown[] {
  const validate = new Ajv2020({ strict: true, allErrors: true }).compile(schema);
  return validate(data) ? [] : (validate.errors ?? ['invalid']);
}
