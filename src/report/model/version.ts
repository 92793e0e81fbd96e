/** The report format's version: a field is removed or changes meaning only with a new one (model/schema.ts). */
export const REPORT_VERSION = 1;
