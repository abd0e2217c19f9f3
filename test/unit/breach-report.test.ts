import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { csvCell, REGISTER_COLUMNS, registerCsv, registerRow } from '../../shared/domain/breach-register.js';
import { breachReport, REPORT_SECTION_KEYS } from '../../shared/domain/breach-report.js';
import { breachReportHtml, REPORT_PAGE_CSP } from '../../shared/domain/breach-report-html.js';
import { declareIncident, moveIncident } from '../../shared/domain/incident.js';
import { negotiate } from '../../shared/http/accept.js';

const now = new Date('2026-11-22T10:00:00Z');
const incident = moveIncident(
  declareIncident(
    'a3f1c0de-0000-4000-8000-000000000004',
    'org-1',
    {
      severity: 'critical',
      category: 'confidentiality',
      detectedAt: '2026-11-18T08:00:00Z',
      title: '=HYPERLINK("http://evil.example","x")',
      description: '<script>alert(1)</script>, "quoted"\r\nsecond line',
      personalData: { categories: ['health'], approximateRecords: 40 },
      contact: { name: 'DPO', email: 'dpo@example.org' },
    },
    't',
    new Date('2026-11-18T09:00:00Z'),
  ),
  'notify',
  { notifiedAt: '2026-11-22T09:00:00Z', delayReason: '-1 day: forensics', authorityReference: '@ref' },
  't',
  now,
);

describe('the authority report', () => {
  it('has one section per Art. 33(3) item, then the notification and Art. 34, and a timeline in order', () => {
    const report = breachReport(incident, now);
    expect(report.sections.map((s) => s.key)).toEqual([...REPORT_SECTION_KEYS]);
    expect(report.sections.find((s) => s.key === 'notification')?.content).toMatch(
      /Reasons for the delay: -1 day: forensics/,
    );
    const times = report.timeline.map((t) => Date.parse(t.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('renders the same model as a page that escapes the record and allows no script', () => {
    const html = breachReportHtml(breachReport(incident, now));
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toMatch(/https?:\/\/(?!evil\.example)/);
    expect(REPORT_PAGE_CSP).toMatch(/default-src 'none'/);
    expect(REPORT_PAGE_CSP).not.toMatch(/script-src|unsafe-inline/);
  });
});

describe('the breach register as CSV', () => {
  it('neutralises formula-leading cells and quotes as RFC 4180 says', () => {
    expect(['=1+1', '+1', '-1', '@SUM(A1)', '\tx', 'plain'].map(csvCell)).toEqual([
      "'=1+1",
      "'+1",
      "'-1",
      "'@SUM(A1)",
      "'\tx",
      'plain',
    ]);
    expect(csvCell('a,"b"\r\nc')).toBe('"a,""b""\r\nc"');
    expect(csvCell(null)).toBe('');
    expect(csvCell(['members', 'minors'])).toBe('members minors');
  });

  it('has a header row and one CRLF-ended row per incident, every column of the row', () => {
    const row = registerRow(incident, now);
    expect(Object.keys(row).sort()).toEqual([...REGISTER_COLUMNS].sort());
    const csv = registerCsv([row]);
    expect(csv.startsWith(`${REGISTER_COLUMNS.join(',')}\r\n`)).toBe(true);
    expect(csv.endsWith('\r\n')).toBe(true);
    expect(csv).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    expect(csv).toContain("'-1 day: forensics");
    expect(csv).toContain("'@ref");
  });
});

describe('content negotiation', () => {
  const accept = (value?: string) =>
    ({ headers: value === undefined ? {} : { Accept: value } }) as unknown as APIGatewayProxyEvent;
  it.each([
    [undefined, 'application/json'],
    ['*/*', 'application/json'],
    ['text/html', 'text/html'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'text/html'],
    ['application/json;q=0.5, text/html', 'text/html'],
    ['text/html;q=0, */*', 'application/json'],
    ['image/png', 'application/json'],
  ])('Accept %s gives %s', (header, type) => {
    expect(negotiate(accept(header), ['application/json', 'text/html'])).toBe(type);
  });
});
