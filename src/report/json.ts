import type { ReportModel } from './model/types.js';

/** The model as JSON: the same bytes whatever reads it (a file, stdout). Its schema is schema/report.schema.json. */
export function renderJson(model: ReportModel): string {
  return `${JSON.stringify(model, null, 2)}\n`;
}
