import { describe, expect, it } from 'vitest';
import {
  notificationDeadline,
  type ObligationInput,
  obligationsOf,
  type PersonalDataCategory,
  type RiskLevel,
} from '../../shared/domain/breach-record.js';

/**
 * The obligations as a table: risk level × special categories × status × time, after the EDPB's
 * guidelines 9/2022 on breach notification and their examples (cited per row). The clock starts at
 * detection (Art. 33(1)); `hours` is how long after it `now` is.
 */
const DETECTED = '2026-11-20T08:00:00.000Z';
const hoursAfter = (hours: number) => new Date(Date.parse(DETECTED) + hours * 3600_000);

type Status = ObligationInput['status'];
interface Row {
  example: string;
  risk: RiskLevel | null;
  data: PersonalDataCategory[];
  status: Status;
  hours: number;
  authority: string;
  subjects: string;
  overdue: boolean;
  warnings: string[];
}

const record = (row: Row): ObligationInput => ({
  detectedAt: DETECTED,
  status: row.status,
  ...(row.status === 'notified' ? { notifiedAt: hoursAfter(row.hours - 1).toISOString() } : {}),
  ...(row.risk ? { risk: { level: row.risk, rationale: 'assessed' } } : {}),
  personalData: { categories: row.data },
  dataSubjects: { categories: ['members'] },
  contact: { name: 'DPO', email: 'dpo@example.org' },
});

const rows: Row[] = [
  // Not yet assessed: notify when in doubt (guidelines §2.3); the clock runs.
  {
    example: 'unassessed, day 1',
    risk: null,
    data: ['contact'],
    status: 'declared',
    hours: 10,
    authority: 'required',
    subjects: 'not_required',
    overdue: false,
    warnings: ['risk_not_assessed'],
  },
  {
    example: 'unassessed, after 72 h',
    risk: null,
    data: ['contact'],
    status: 'contained',
    hours: 73,
    authority: 'required',
    subjects: 'not_required',
    overdue: true,
    warnings: ['risk_not_assessed'],
  },
  // Example 1 (ransomware, encrypted backup, no exfiltration): unlikely → documented only.
  {
    example: 'unlikely, ordinary data',
    risk: 'unlikely',
    data: ['membership'],
    status: 'contained',
    hours: 80,
    authority: 'not_required',
    subjects: 'not_required',
    overdue: false,
    warnings: [],
  },
  // Unlikely with Art. 9 data is allowed but flagged: the guidelines weigh special categories heavily.
  {
    example: 'unlikely, health data',
    risk: 'unlikely',
    data: ['health'],
    status: 'declared',
    hours: 5,
    authority: 'not_required',
    subjects: 'not_required',
    overdue: false,
    warnings: ['special_categories_assessed_unlikely'],
  },
  // Example 4 (ransomware, no backup, availability lost for days): a risk → notify the authority.
  {
    example: 'risk, in time',
    risk: 'risk',
    data: ['contact'],
    status: 'declared',
    hours: 71,
    authority: 'required',
    subjects: 'not_required',
    overdue: false,
    warnings: [],
  },
  {
    example: 'risk, exactly 72 h',
    risk: 'risk',
    data: ['contact'],
    status: 'declared',
    hours: 72,
    authority: 'required',
    subjects: 'not_required',
    overdue: false,
    warnings: [],
  },
  {
    example: 'risk, late',
    risk: 'risk',
    data: ['contact'],
    status: 'contained',
    hours: 72.01,
    authority: 'required',
    subjects: 'not_required',
    overdue: true,
    warnings: [],
  },
  {
    example: 'risk, notified late',
    risk: 'risk',
    data: ['contact'],
    status: 'notified',
    hours: 90,
    authority: 'done',
    subjects: 'not_required',
    overdue: false,
    warnings: [],
  },
  // Example 8 (hospital records exfiltrated): special categories, high → authority and people.
  {
    example: 'high, health data',
    risk: 'high',
    data: ['health', 'identity'],
    status: 'declared',
    hours: 20,
    authority: 'required',
    subjects: 'required',
    overdue: false,
    warnings: ['data_subject_communication_pending'],
  },
  {
    example: 'high, notified, people not yet told',
    risk: 'high',
    data: ['credentials'],
    status: 'notified',
    hours: 30,
    authority: 'done',
    subjects: 'required',
    overdue: false,
    warnings: ['data_subject_communication_pending'],
  },
  // Closing without notifying while notification is required leaves a gap in the record.
  {
    example: 'risk, closed unnotified',
    risk: 'risk',
    data: ['financial'],
    status: 'closed',
    hours: 100,
    authority: 'required',
    subjects: 'not_required',
    overdue: true,
    warnings: ['closed_without_notification_decision'],
  },
  {
    example: 'unlikely, closed',
    risk: 'unlikely',
    data: ['financial'],
    status: 'closed',
    hours: 100,
    authority: 'not_required',
    subjects: 'not_required',
    overdue: false,
    warnings: [],
  },
  {
    example: 'unassessed, closed',
    risk: null,
    data: ['contact'],
    status: 'closed',
    hours: 2,
    authority: 'required',
    subjects: 'not_required',
    overdue: false,
    warnings: ['risk_not_assessed', 'closed_without_notification_decision'],
  },
];

describe('breach obligations (risk × special categories × status × time)', () => {
  it.each(rows)('$example', (row) => {
    expect(obligationsOf(record(row), hoursAfter(row.hours))).toEqual({
      authorityNotification: row.authority,
      dataSubjectCommunication: row.subjects,
      overdue: row.overdue,
      warnings: row.warnings,
    });
  });

  it.each([
    ['communicated', 'done'],
    ['public_notice', 'done'],
    ['exempt_encrypted', 'exempt'],
    ['exempt_mitigated', 'exempt'],
  ] as const)('a high risk with the Art. 34 decision %s is %s', (decision, state) => {
    const input = record(rows[8] as Row);
    const decided = obligationsOf(
      { ...input, dataSubjectCommunication: { decision, at: DETECTED, note: 'why' } },
      hoursAfter(5),
    );
    expect(decided.dataSubjectCommunication).toBe(state);
    expect(decided.warnings).not.toContain('data_subject_communication_pending');
  });

  it('names what an empty record lacks', () => {
    expect(obligationsOf({ detectedAt: DETECTED, status: 'declared' }, hoursAfter(1)).warnings).toEqual([
      'risk_not_assessed',
      'data_subjects_not_described',
      'personal_data_not_described',
      'contact_missing',
    ]);
  });

  it('puts the deadline 72 hours after detection, in UTC', () => {
    expect(notificationDeadline('2026-11-20T09:00:00+01:00')).toBe('2026-11-23T08:00:00.000Z');
  });
});
