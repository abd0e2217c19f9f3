import { DomainError } from './errors.js';

export class NoReportError extends DomainError {
  constructor() {
    super('no_report', 'No impact report has been published yet.');
  }
}

export interface ImpactMetric {
  key: string;
  label: string;
  value: number;
  unit: string | null;
}

export interface ImpactReport {
  id: string;
  title: string;
  periodStart: string;
  periodEnd: string;
  summary: string;
  metrics: ImpactMetric[];
  publishedAt: string;
}

export interface NewImpactReportInput {
  title: string;
  periodStart: string;
  periodEnd: string;
  summary: string;
  metrics: { key: string; label: string; value: number; unit?: string }[];
}

export function newImpactReport(id: string, input: NewImpactReportInput, now: Date): ImpactReport {
  return {
    id,
    title: input.title,
    periodStart: input.periodStart,
    periodEnd: input.periodEnd,
    summary: input.summary,
    metrics: input.metrics.map((metric) => ({ ...metric, unit: metric.unit ?? null })),
    publishedAt: now.toISOString(),
  };
}
