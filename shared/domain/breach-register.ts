import { type Incident, incidentView } from './incident.js';

/**
 * The register of breaches every organisation keeps, notified or not (GDPR Art. 33(5)): one row per
 * incident with the facts, effects and remedial action, as JSON pages or as one CSV file.
 */
export interface RegisterRow {
  id: string;
  status: Incident['status'];
  severity: Incident['severity'];
  category: Incident['category'];
  title: string | null;
  occurredAt: string | null;
  detectedAt: string;
  declaredAt: string;
  notificationDeadline: string;
  riskLevel: string | null;
  specialCategories: boolean;
  dataSubjectCategories: string[];
  approximateDataSubjects: number | null;
  personalDataCategories: string[];
  approximateRecords: number | null;
  likelyConsequences: string | null;
  measuresTaken: string | null;
  authorityNotification: string;
  overdue: boolean;
  notifiedAt: string | null;
  authorityReference: string | null;
  delayReason: string | null;
  followUps: number;
  dataSubjectCommunication: string | null;
  closedAt: string | null;
}

export function registerRow(incident: Incident, now: Date): RegisterRow {
  const view = incidentView(incident, now);
  const initial = incident.authorityNotifications?.find((n) => n.phase === 'initial');
  return {
    id: incident.id,
    status: incident.status,
    severity: incident.severity,
    category: incident.category,
    title: incident.title ?? null,
    occurredAt: incident.occurredAt ?? null,
    detectedAt: incident.detectedAt,
    declaredAt: incident.declaredAt,
    notificationDeadline: view.notificationDeadline,
    riskLevel: incident.risk?.level ?? null,
    specialCategories: view.specialCategories,
    dataSubjectCategories: incident.dataSubjects?.categories ?? [],
    approximateDataSubjects: incident.dataSubjects?.approximateCount ?? null,
    personalDataCategories: incident.personalData?.categories ?? [],
    approximateRecords: incident.personalData?.approximateRecords ?? null,
    likelyConsequences: incident.likelyConsequences ?? null,
    measuresTaken: incident.measuresTaken ?? null,
    authorityNotification: view.obligations.authorityNotification,
    overdue: view.obligations.overdue,
    notifiedAt: incident.notifiedAt ?? null,
    authorityReference: incident.authorityReference ?? null,
    delayReason: initial?.delayReason ?? null,
    followUps: (incident.authorityNotifications ?? []).filter((n) => n.phase === 'follow_up').length,
    dataSubjectCommunication: incident.dataSubjectCommunication?.decision ?? null,
    closedAt: incident.closedAt ?? null,
  };
}

/** The CSV columns, in order: the row's keys, so a new field cannot be left out of the file. */
export const REGISTER_COLUMNS = [
  'id',
  'status',
  'severity',
  'category',
  'title',
  'occurredAt',
  'detectedAt',
  'declaredAt',
  'notificationDeadline',
  'riskLevel',
  'specialCategories',
  'dataSubjectCategories',
  'approximateDataSubjects',
  'personalDataCategories',
  'approximateRecords',
  'likelyConsequences',
  'measuresTaken',
  'authorityNotification',
  'overdue',
  'notifiedAt',
  'authorityReference',
  'delayReason',
  'followUps',
  'dataSubjectCommunication',
  'closedAt',
] as const satisfies readonly (keyof RegisterRow)[];

/**
 * A spreadsheet runs a cell that starts with one of these as a formula (CSV injection): such a cell
 * is prefixed with an apostrophe, which spreadsheets show as text and do not run.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: unknown): string {
  const text =
    value === null || value === undefined ? '' : Array.isArray(value) ? value.join(' ') : String(value);
  const safe = FORMULA_START.test(text) ? `'${text}` : text;
  // RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled.
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** RFC 4180: a header row, then one record per row, each line ended by CRLF. */
export function registerCsv(rows: readonly RegisterRow[]): string {
  const lines = [
    REGISTER_COLUMNS.join(','),
    ...rows.map((row) => REGISTER_COLUMNS.map((column) => csvCell(row[column])).join(',')),
  ];
  return `${lines.map((line) => `${line}\r\n`).join('')}`;
}
