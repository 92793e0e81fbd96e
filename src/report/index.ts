import { unreachable } from '../core/unreachable.js';
import { renderHtml } from './html/page.js';
import { renderJson } from './json.js';
import { renderMarkdown } from './markdown/page.js';
import type { ReportModel } from './model/types.js';

export { buildModel } from './model/build.js';
export { renderSummaryMarkdown } from './markdown/page.js';
export { ReportSource, specTrust, type SpecState } from './source.js';
export type { ReportModel } from './model/types.js';

/** The formats `vouch report --format` writes, each a renderer of the one model. */
export const REPORT_FORMATS = ['html', 'json', 'md'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** The report in one format. */
export function renderReport(model: ReportModel, format: ReportFormat): string {
  switch (format) {
    case 'html':
      return renderHtml(model);
    case 'json':
      return renderJson(model);
    case 'md':
      return renderMarkdown(model);
    default:
      return unreachable(format);
  }
}
