import type * as z from 'zod/mini';
import type { reportSchema } from './schema.js';
import type { reportDispatchSchema } from './dispatch-schema.js';

/** A value that is never changed once built: every object and array of it read-only. */
type Frozen<T> = T extends readonly (infer U)[] ? readonly Frozen<U>[] : T extends object ? { readonly [K in keyof T]: Frozen<T[K]> } : T;

/**
 * The report as data (its fields are documented in model/schema.ts and
 * schema/report.schema.json): what `vouch report --format json` writes,
 * what the HTML and Markdown pages render, and what vouch_report answers.
 */
export type ReportModel = Frozen<z.output<typeof reportSchema>>;

export type ReportCheck = ReportModel['checks'][number];
export type ReportReceipt = ReportCheck['history'][number];
export type ReportSession = ReportModel['sessions'][number];
export type ReportStop = ReportSession['stops'][number];
export type ReportDispatch = Frozen<z.output<typeof reportDispatchSchema>>;
export type ReportCard = ReportModel['cards'][number];
export type ReportIntegrity = ReportModel['integrity'];
export type ReportSpec = ReportModel['spec'];
export type ReportSummary = ReportModel['summary'];
