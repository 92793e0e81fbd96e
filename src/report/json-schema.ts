import * as z from 'zod/mini';
import { reportSchema } from './model/schema.js';

/** The JSON Schema of `vouch report --format json` (and of vouch_report's structured content), published at schema/report.schema.json. */
export function reportJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(reportSchema, { target: 'draft-2020-12', unrepresentable: 'throw' });
  return {
    ...schema,
    title: 'vouch report',
    description:
      'What vouch report shows, as data: checks and their history, agent sessions and their stops, dispatches with claim against grade and drift, task cards, the ledger integrity and the spec trust state.',
  };
}
