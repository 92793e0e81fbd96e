import type { SectionEntry } from '../section.js';
import { cardsSection } from './cards.js';
import { chartSection } from './chart.js';
import { checksSection } from './checks.js';
import { integritySection } from './integrity.js';
import { runsSection } from './runs.js';
import { summarySection } from './summary.js';

/** The report, in order. */
export const SECTIONS: readonly SectionEntry[] = [summarySection, chartSection, checksSection, runsSection, cardsSection, integritySection];
