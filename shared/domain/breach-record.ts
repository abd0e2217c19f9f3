/**
 * The record of a personal-data breach that GDPR Art. 33 and 34 ask an organisation to keep, and the
 * obligations that follow from it. Pure: the clock is a parameter, so the derived fields are computed
 * on every read and never stored stale.
 */

export const DATA_SUBJECT_CATEGORIES = [
  'members',
  'volunteers',
  'donors',
  'staff',
  'beneficiaries',
  'minors',
  'other',
] as const;

export const PERSONAL_DATA_CATEGORIES = [
  'identity',
  'contact',
  'financial',
  'membership',
  'credentials',
  'location',
  'health',
  'trade_union',
  'political_opinions',
  'religious_beliefs',
  'ethnic_origin',
  'sexual_orientation',
  'genetic',
  'biometric',
  'criminal_records',
  'other',
] as const;

/** Art. 9(1) special categories and Art. 10 criminal records: their loss weighs more in the risk assessment. */
export const SPECIAL_PERSONAL_DATA: ReadonlySet<PersonalDataCategory> = new Set([
  'health',
  'trade_union',
  'political_opinions',
  'religious_beliefs',
  'ethnic_origin',
  'sexual_orientation',
  'genetic',
  'biometric',
  'criminal_records',
]);

export const RISK_LEVELS = ['unlikely', 'risk', 'high'] as const;

/**
 * Art. 34: individual messages, a public notice when those would be disproportionate (34(3)(c)), or
 * one of the two exemptions: the data was unintelligible, e.g. encrypted (34(3)(a)), or later
 * measures mean the high risk is no longer likely (34(3)(b)).
 */
export const COMMUNICATION_DECISIONS = [
  'communicated',
  'public_notice',
  'exempt_encrypted',
  'exempt_mitigated',
] as const;
export const EXEMPTIONS: ReadonlySet<CommunicationDecision> = new Set([
  'exempt_encrypted',
  'exempt_mitigated',
]);

export type DataSubjectCategory = (typeof DATA_SUBJECT_CATEGORIES)[number];
export type PersonalDataCategory = (typeof PERSONAL_DATA_CATEGORIES)[number];
export type RiskLevel = (typeof RISK_LEVELS)[number];
export type CommunicationDecision = (typeof COMMUNICATION_DECISIONS)[number];

export interface DataSubjects {
  categories: DataSubjectCategory[];
  approximateCount?: number;
}
export interface PersonalData {
  categories: PersonalDataCategory[];
  approximateRecords?: number;
}
export interface Contact {
  name: string;
  email: string;
}
export interface Risk {
  level: RiskLevel;
  rationale?: string;
}

/** The Art. 33(3) fields a declaration or a PATCH may set. */
export interface BreachRecordFields {
  occurredAt?: string;
  dataSubjects?: DataSubjects;
  personalData?: PersonalData;
  likelyConsequences?: string;
  measuresTaken?: string;
  measuresProposed?: string;
  contact?: Contact;
  risk?: Risk;
}
export const BREACH_RECORD_FIELDS = [
  'occurredAt',
  'dataSubjects',
  'personalData',
  'likelyConsequences',
  'measuresTaken',
  'measuresProposed',
  'contact',
  'risk',
] as const satisfies readonly (keyof BreachRecordFields)[];

export interface AuthorityNotification {
  phase: 'initial' | 'follow_up';
  sentAt: string;
  reference?: string;
  summary?: string;
  delayReason?: string;
}

export interface DataSubjectCommunication {
  decision: CommunicationDecision;
  at: string;
  channel?: string;
  note?: string;
}

export type AuthorityObligation = 'required' | 'not_required' | 'done';
export type CommunicationObligation = 'required' | 'not_required' | 'done' | 'exempt';

export const WARNINGS = [
  'risk_not_assessed',
  'special_categories_assessed_unlikely',
  'closed_without_notification_decision',
  'data_subjects_not_described',
  'personal_data_not_described',
  'contact_missing',
  'data_subject_communication_pending',
] as const;
export type Warning = (typeof WARNINGS)[number];

export interface Obligations {
  authorityNotification: AuthorityObligation;
  dataSubjectCommunication: CommunicationObligation;
  overdue: boolean;
  warnings: Warning[];
}

/** Art. 33(1): without undue delay and, where feasible, not later than 72 hours after becoming aware. */
export const NOTIFICATION_DEADLINE_MS = 72 * 3600 * 1000;

export function notificationDeadline(detectedAt: string): string {
  return new Date(Date.parse(detectedAt) + NOTIFICATION_DEADLINE_MS).toISOString();
}

export function hasSpecialCategories(personalData: PersonalData | undefined): boolean {
  return (personalData?.categories ?? []).some((category) => SPECIAL_PERSONAL_DATA.has(category));
}

/** What obligations are computed from: the record, where it stands, and what has been done. */
export interface ObligationInput extends BreachRecordFields {
  detectedAt: string;
  status: 'declared' | 'contained' | 'notified' | 'closed';
  notifiedAt?: string;
  dataSubjectCommunication?: DataSubjectCommunication;
}

/**
 * The obligations as of `now`. Until the risk is assessed, notification counts as required (the
 * EDPB's guidelines 9/2022: when in doubt, notify): only a documented `unlikely` lifts it.
 */
export function obligationsOf(record: ObligationInput, now: Date): Obligations {
  const level = record.risk?.level;
  const authorityNotification: AuthorityObligation = record.notifiedAt
    ? 'done'
    : level === 'unlikely'
      ? 'not_required'
      : 'required';
  const decision = record.dataSubjectCommunication?.decision;
  const dataSubjectCommunication: CommunicationObligation = decision
    ? EXEMPTIONS.has(decision)
      ? 'exempt'
      : 'done'
    : level === 'high'
      ? 'required'
      : 'not_required';
  const overdue =
    authorityNotification === 'required' &&
    now.getTime() > Date.parse(record.detectedAt) + NOTIFICATION_DEADLINE_MS;
  return {
    authorityNotification,
    dataSubjectCommunication,
    overdue,
    warnings: warningsOf(record, authorityNotification, dataSubjectCommunication),
  };
}

function warningsOf(
  record: ObligationInput,
  authority: AuthorityObligation,
  communication: CommunicationObligation,
): Warning[] {
  const warnings: Warning[] = [];
  if (!record.risk) warnings.push('risk_not_assessed');
  if (record.risk?.level === 'unlikely' && hasSpecialCategories(record.personalData))
    warnings.push('special_categories_assessed_unlikely');
  // Closing a breach that may need notifying, with neither a notification nor a documented `unlikely`.
  if (record.status === 'closed' && authority === 'required')
    warnings.push('closed_without_notification_decision');
  if (!record.dataSubjects) warnings.push('data_subjects_not_described');
  if (!record.personalData) warnings.push('personal_data_not_described');
  if (!record.contact) warnings.push('contact_missing');
  if (communication === 'required') warnings.push('data_subject_communication_pending');
  return warnings;
}

/** True when a notification sent at `sentAt` is later than the 72 hours and needs its reasons (Art. 33(1)). */
export function isLateNotification(detectedAt: string, sentAt: string): boolean {
  return Date.parse(sentAt) > Date.parse(detectedAt) + NOTIFICATION_DEADLINE_MS;
}
