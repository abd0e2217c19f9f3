import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { impactReportWrites, latestImpactReport } from '../../shared/adapters/impact-store.js';
import { commitTransaction } from '../../shared/adapters/transaction.js';
import { newImpactReport } from '../../shared/domain/impact-report.js';
import { useFreshTable } from '../support/table.js';

beforeAll(async () => {
  await useFreshTable();
});

const report = (title: string, at: string) =>
  newImpactReport(
    randomUUID(),
    {
      title,
      periodStart: '2026-01-01',
      periodEnd: '2026-06-30',
      summary: 'Summary',
      metrics: [
        { key: 'members', label: 'Members', value: 120 },
        { key: 'co2', label: 'CO2 saved', value: 3.5, unit: 't' },
      ],
    },
    new Date(at),
  );

describe('impact reports', () => {
  it('has none until one is published', async () => {
    expect(await latestImpactReport(randomUUID())).toBeUndefined();
  });

  it('returns the report published last, whatever its publication time says, per organisation', async () => {
    const [org, other] = [randomUUID(), randomUUID()];
    const first = report('First', '2026-07-01T00:00:00.000Z');
    await commitTransaction(impactReportWrites(org, first));
    expect(await latestImpactReport(org)).toEqual({
      ...first,
      metrics: [
        { key: 'members', label: 'Members', value: 120, unit: null },
        { key: 'co2', label: 'CO2 saved', value: 3.5, unit: 't' },
      ],
    });
    // A function with a clock behind still publishes the latest: the last commit wins.
    const second = report('Second', '2026-06-30T23:59:59.000Z');
    await commitTransaction(impactReportWrites(org, second));
    expect((await latestImpactReport(org))?.id).toBe(second.id);
    expect(await latestImpactReport(other)).toBeUndefined();
  });
});
