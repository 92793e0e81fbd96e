import { html, type Html } from '../escape.js';
import type { Section } from '../section.js';

/** The most days one chart shows: the latest ones, gaps included. */
const MAX_DAYS = 30;

interface Series {
  readonly key: string;
  readonly label: string;
  readonly color: string;
}

const RECEIPTS: readonly Series[] = [
  { key: 'PASS', label: 'PASS', color: '#1a7f37' },
  { key: 'FAIL', label: 'FAIL', color: '#cf222e' },
  { key: 'UNKNOWN', label: 'UNKNOWN', color: '#8c959f' },
];
const GRADES: readonly Series[] = [
  { key: 'verified', label: 'verified', color: '#1a7f37' },
  { key: 'contradicted', label: 'contradicted', color: '#cf222e' },
];

type Tally = Map<string, Map<string, number>>;

function tally(events: readonly { at: string; key: string }[]): Tally {
  const days: Tally = new Map();
  for (const { at, key } of events) {
    const day = /^\d{4}-\d{2}-\d{2}/.exec(at)?.[0];
    if (!day) continue;
    const counts = days.get(day) ?? new Map<string, number>();
    counts.set(key, (counts.get(key) ?? 0) + 1);
    days.set(day, counts);
  }
  return days;
}

/** Every day from the first to the last with data, at most the latest MAX_DAYS. */
function dayRange(days: Tally): string[] {
  const known = [...days.keys()].sort();
  if (known.length === 0) return [];
  const last = Date.parse(`${known[known.length - 1]}T00:00:00Z`);
  const first = Math.max(Date.parse(`${known[0]}T00:00:00Z`), last - (MAX_DAYS - 1) * 86_400_000);
  const range: string[] = [];
  for (let t = first; t <= last; t += 86_400_000) range.push(new Date(t).toISOString().slice(0, 10));
  return range;
}

/** A stacked bar chart as inline SVG: one bar per day, one segment per series, a title on each for the numbers. */
function barChart(title: string, days: Tally, series: readonly Series[]): Html {
  const range = dayRange(days);
  if (range.length === 0)
    return html`<figure>
      <figcaption>${title}</figcaption>
      <p class="note">nothing recorded yet</p>
    </figure>`;
  const bar = Math.max(6, Math.min(24, Math.floor(480 / range.length) - 2));
  const height = 120;
  const left = 34;
  const width = left + range.length * (bar + 2) + 8;
  const max = Math.max(1, ...range.map((day) => series.reduce((sum, s) => sum + (days.get(day)?.get(s.key) ?? 0), 0)));
  const y = (n: number) => Math.round((n / max) * height);
  const bars = range.map((day, i) => {
    const counts = days.get(day);
    let top = height + 10;
    const x = left + i * (bar + 2);
    const segments = series.map((s) => {
      const n = counts?.get(s.key) ?? 0;
      if (n === 0) return '';
      const h = Math.max(1, y(n));
      top -= h;
      return html`<rect x="${x}" y="${top}" width="${bar}" height="${h}" fill="${s.color}"><title>${day}: ${n} ${s.label}</title></rect>`;
    });
    return segments;
  });
  const labels = [0, Math.floor((range.length - 1) / 2), range.length - 1]
    .filter((i, k, all) => all.indexOf(i) === k)
    .map((i) => html`<text x="${left + i * (bar + 2)}" y="${height + 26}" font-size="10" fill="#5f6b7a">${range[i]!.slice(5)}</text>`);
  const total = series.map((s) => `${range.reduce((sum, day) => sum + (days.get(day)?.get(s.key) ?? 0), 0)} ${s.label}`).join(', ');
  return html`<figure>
    <figcaption>${title}</figcaption>
    <svg
      role="img"
      width="${width}"
      height="${height + 32}"
      viewBox="0 0 ${width} ${height + 32}"
      aria-label="${`${title}, ${range[0]} to ${range[range.length - 1]}: ${total}`}"
    >
      <line x1="${left - 2}" y1="10" x2="${left - 2}" y2="${height + 10}" stroke="#dfe3e8" />
      <line x1="${left - 2}" y1="${height + 10}" x2="${width}" y2="${height + 10}" stroke="#dfe3e8" />
      <text x="0" y="18" font-size="10" fill="#5f6b7a">${max}</text>
      <text x="0" y="${height + 10}" font-size="10" fill="#5f6b7a">0</text>
      ${bars}${labels}
    </svg>
    <div class="legend">${series.map((s) => html`<span style="--c: ${s.color}">${s.label}</span>`)}</div>
  </figure>`;
}

/** Verdicts over time: receipts per day by verdict, and dispatch grades per day, counted from the model's histories. */
export const chartSection: Section = {
  id: 'chart',
  title: 'Verdicts over time',
  render({ checks, dispatches }) {
    const receiptEvents = checks.flatMap((c) => c.history.flatMap((r) => (r.intact ? [{ at: r.finished_at, key: r.verdict }] : [])));
    const gradeEvents = dispatches.flatMap((d) => d.grades.map((g) => ({ at: g.at, key: g.outcome })));
    return html`<div class="chart">
        ${barChart('Receipts per day (UTC), by verdict', tally(receiptEvents), RECEIPTS)}${barChart('Dispatch grades per day (UTC)', tally(gradeEvents), GRADES)}
      </div>
      <p class="note">Damaged receipts are left out of the chart and shown in the check histories. The latest ${MAX_DAYS} days at most.</p>`;
  },
};
