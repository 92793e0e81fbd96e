import type { SectionEntry } from '../section.js';
import { chartSection } from './chart.js';
import { checksSection } from './checks.js';
import { integritySection } from './integrity.js';
import { runsSection } from './runs.js';
import { summarySection } from './summary.js';

/**
 * The report, in order. Task cards (with their decisions) will be one more
 * entry here, defined over the cards read API, once cards exist.
 */
export const SECTIONS: readonly SectionEntry[] = [summarySection, chartSection, checksSection, runsSection, integritySection];
