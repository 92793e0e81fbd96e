import * as z from 'zod/mini';
import { specSchema } from './schema.js';

/** The JSON Schema of vouch.yaml, published at schema/vouch.schema.json. */
export function specJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(specSchema, { target: 'draft-2020-12', unrepresentable: 'throw' });
  return {
    ...schema,
    title: 'vouch.yaml',
    description: 'Checks an operator declares for vouch: what runs, what files it covers, and what a PASS proves.',
  };
}
