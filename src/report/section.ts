import type { Html } from './html.js';
import type { ReportSource } from './source.js';

/**
 * One part of the report: what it reads, and how it shows it. The report is
 * the list in sections/index.ts; a new part (task cards and their
 * decisions, once cards exist) is one file defining a section over its own
 * read API, and one line there.
 */
export interface Section<T> {
  readonly id: string;
  readonly title: string;
  load(source: ReportSource): Promise<T>;
  /** Null leaves the section out. */
  render(data: T, source: ReportSource): Html | null;
}

export interface SectionEntry {
  readonly id: string;
  readonly title: string;
  build(source: ReportSource): Promise<Html | null>;
}

export function defineSection<T>(section: Section<T>): SectionEntry {
  return { id: section.id, title: section.title, build: async (source) => section.render(await section.load(source), source) };
}
