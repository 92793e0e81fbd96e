import type { ReportModel } from '../model/types.js';
import type { Html } from './escape.js';

/**
 * One part of the HTML page: how it shows its part of the model. The page
 * is the list in sections/index.ts; what a section shows is in the model
 * first (report/model/), so the JSON and Markdown reports carry it too.
 */
export interface Section {
  readonly id: string;
  readonly title: string;
  /** Null leaves the section out. */
  render(model: ReportModel): Html | null;
}
