import type { Section } from '../section.js';
import { cardsSection } from './cards.js';
import { chartSection } from './chart.js';
import { checksSection } from './checks.js';
import { integritySection } from './integrity.js';
import { runsSection } from './runs.js';
import { summarySection } from './summary.js';

/** The HTML page, in order. */
export const SECTIONS: readonly Section[] = [summarySection, chartSection, checksSection, runsSection, cardsSection, integritySection];
