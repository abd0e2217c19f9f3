import * as z from 'zod/mini';
import { calendarDate, decimalNumber, described, instant, MAX_SAFE_NUMBER, text, uuid } from './common.js';

const METRIC_KEY = /^[a-z][a-z0-9_]{0,63}$/;
/** Enough for any figure a report shows (a share to a ten-thousandth of a percent), and exact in a double. */
const METRIC_VALUE_PLACES = 6;

const metricInput = described(
  z.strictObject({
    key: described(
      z
        .string()
        .check(z.regex(METRIC_KEY, 'Use 1 to 64 lowercase letters, digits or _, starting with a letter.')),
      {
        description: 'Machine name, unique within the report: lowercase letters, digits and `_`.',
        examples: ['volunteer_hours'],
      },
    ),
    label: text('Name for people to read.', 200, 'Volunteer hours'),
    value: decimalNumber({
      min: -MAX_SAFE_NUMBER,
      max: MAX_SAFE_NUMBER,
      places: METRIC_VALUE_PLACES,
      description: `The figure: a number from −(2^53 − 1) to 2^53 − 1 with at most ${METRIC_VALUE_PLACES} decimal places.`,
      example: 1280,
      rangeMessage: `Use a number from ${-MAX_SAFE_NUMBER} to ${MAX_SAFE_NUMBER}.`,
      placesMessage: `Use at most ${METRIC_VALUE_PLACES} decimal places.`,
    }),
    unit: z.optional(text('Unit of the value.', 32, 'h')),
  }),
  { id: 'NewImpactMetric' },
);

export const newImpactReportBody = described(
  z
    .strictObject({
      title: text('The report title.', 200, 'Impact report 2026'),
      periodStart: calendarDate('First day of the period reported on.'),
      periodEnd: calendarDate('Last day of the period reported on; not before `periodStart`.'),
      summary: text(
        'What the organisation achieved, in prose.',
        10_000,
        'A year of growth in our community work.',
      ),
      metrics: described(z.array(metricInput).check(z.maxLength(100)), {
        description: 'Up to 100 metrics, each `key` once.',
      }),
    })
    .check(
      z.refine((r) => r.periodEnd >= r.periodStart, {
        message: 'periodEnd may not precede periodStart.',
        path: ['periodEnd'],
      }),
      z.superRefine((r, ctx) => {
        const seen = new Set<string>();
        for (const [i, metric] of r.metrics.entries()) {
          if (seen.has(metric.key)) {
            ctx.issues.push({
              code: 'custom',
              message: `Duplicate key "${metric.key}".`,
              path: ['metrics', i, 'key'],
              input: metric.key,
            });
          }
          seen.add(metric.key);
        }
      }),
    ),
  { id: 'NewImpactReport', description: 'A social-impact report to publish; it becomes the latest.' },
);

export const impactReportSchema = described(
  z.strictObject({
    id: uuid('The report id.'),
    title: z.string(),
    periodStart: calendarDate('First day of the period.'),
    periodEnd: calendarDate('Last day of the period.'),
    publishedAt: instant('When the report was published.'),
    summary: z.string(),
    metrics: z.array(
      described(
        z.strictObject({
          key: z.string(),
          label: z.string(),
          value: z.number().check(z.gte(-MAX_SAFE_NUMBER), z.lte(MAX_SAFE_NUMBER)),
          unit: z.nullable(z.string()),
        }),
        { id: 'ImpactMetric', description: 'One figure of the report; `unit` is null when none was given.' },
      ),
    ),
  }),
  { id: 'ImpactReport', description: 'A published social-impact report.' },
);
