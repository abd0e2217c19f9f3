import {
  type AuthorityNotification,
  BREACH_RECORD_FIELDS,
  type BreachRecordFields,
  type CommunicationDecision,
  type DataSubjectCommunication,
  EXEMPTIONS,
  hasSpecialCategories,
  isLateNotification,
  notificationDeadline,
  type Obligations,
  obligationsOf,
} from './breach-record.js';
import { ConflictError, DomainError, type FieldIssue, ValidationError } from './errors.js';

export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
/** The three kinds of personal-data breach in the EU guidance on breach notification. */
export const CATEGORIES = ['confidentiality', 'integrity', 'availability'] as const;
export const STATUSES = ['declared', 'contained', 'notified', 'closed'] as const;

export type Severity = (typeof SEVERITIES)[number];
export type Category = (typeof CATEGORIES)[number];
export type IncidentStatus = (typeof STATUSES)[number];
export type IncidentAction = 'contain' | 'notify' | 'close';

/**
 * One change of the incident, append-only: a move (its new status), or a change of the record at the
 * status it had then, naming the fields it changed. The record the organisation must be able to show.
 */
export interface HistoryEntry {
  status: IncidentStatus;
  at: string;
  /** The token that made the change. */
  tokenId: string;
  note?: string;
  /** The fields a change of the record set (PATCH, an authority update, an Art. 34 decision). */
  fields?: string[];
}

export interface Incident extends BreachRecordFields {
  id: string;
  organisationId: string;
  severity: Severity;
  category: Category;
  title?: string;
  description?: string;
  detectedAt: string;
  status: IncidentStatus;
  declaredAt: string;
  containedAt?: string;
  notifiedAt?: string;
  authorityReference?: string;
  closedAt?: string;
  /** The initial notification of the supervisory authority and its follow-ups (Art. 33(4)). */
  authorityNotifications?: AuthorityNotification[];
  /** The Art. 34 decision: how the people affected were told, or why they were not. */
  dataSubjectCommunication?: DataSubjectCommunication;
  history: HistoryEntry[];
  /**
   * Optimistic concurrency: each move writes version + 1 on the condition that version is unchanged. */
  version: number;
}

/** `declared → contained → notified → closed`; notify also straight from declared; close from any open status. */
const ALLOWED_FROM: Record<IncidentAction, readonly IncidentStatus[]> = {
  contain: ['declared'],
  notify: ['declared', 'contained'],
  close: ['declared', 'contained', 'notified'],
};

const RESULT: Record<IncidentAction, IncidentStatus> = {
  contain: 'contained',
  notify: 'notified',
  close: 'closed',
};

export class InvalidTransitionError extends ConflictError {
  constructor(from: IncidentStatus, action: IncidentAction) {
    super(`An incident that is ${from} cannot be moved to ${RESULT[action]}.`, 'invalid_transition');
  }
}

export interface DeclareInput extends BreachRecordFields {
  severity: Severity;
  category: Category;
  detectedAt: string;
  title?: string;
  description?: string;
}

/** A change of the record refused as a whole, with a stable code (`shared/http/problem.ts` maps it). */
export class IncidentClosedError extends ConflictError {
  constructor() {
    super('A closed incident is kept as it was closed; its record cannot change.', 'incident_closed');
  }
}

export class NotNotifiedError extends ConflictError {
  constructor() {
    super(
      'A follow-up goes to the authority after the initial notification: notify the incident first.',
      'not_notified',
    );
  }
}

export class DelayReasonRequiredError extends DomainError {
  constructor() {
    super(
      'delay_reason_required',
      'The notification is later than 72 hours after detection: give the reasons for the delay in delayReason (GDPR Art. 33(1)).',
    );
  }
}

export class StaleIncidentError extends DomainError {
  constructor() {
    super('precondition_failed', 'The incident has changed since that ETag: read it again and retry.');
  }
}

/** The rules a record must keep whichever request sets it; every broken one is named. */
function checkRecord(detectedAt: string, record: BreachRecordFields): void {
  const issues: FieldIssue[] = [];
  if (record.occurredAt && Date.parse(record.occurredAt) > Date.parse(detectedAt))
    issues.push({ field: 'occurredAt', message: 'The breach cannot have occurred after it was detected.' });
  // `unlikely` is the documented reason not to notify (Art. 33(5)): it needs its rationale.
  if (record.risk?.level === 'unlikely' && !record.risk.rationale)
    issues.push({ field: 'risk.rationale', message: 'A risk assessed as unlikely needs its rationale.' });
  if (issues.length > 0) throw new ValidationError(issues);
}

const utc = (instant: string) => new Date(instant).toISOString();

function normalised<T extends BreachRecordFields>(record: T): T {
  return record.occurredAt ? { ...record, occurredAt: utc(record.occurredAt) } : record;
}

export function declareIncident(
  id: string,
  organisationId: string,
  input: DeclareInput,
  tokenId: string,
  now: Date,
): Incident {
  const at = now.toISOString();
  const detectedAt = utc(input.detectedAt);
  checkRecord(detectedAt, input);
  return {
    id,
    organisationId,
    ...normalised(input),
    detectedAt,
    status: 'declared',
    declaredAt: at,
    history: [{ status: 'declared', at, tokenId }],
    version: 1,
  };
}

export interface MoveInput {
  note?: string;
  authorityReference?: string;
  notifiedAt?: string;
  /** Notify only: what the initial notification said, and why it is late when it is. */
  summary?: string;
  delayReason?: string;
}

export function moveIncident(
  incident: Incident,
  action: IncidentAction,
  input: MoveInput,
  tokenId: string,
  now: Date,
): Incident {
  if (!ALLOWED_FROM[action].includes(incident.status))
    throw new InvalidTransitionError(incident.status, action);
  const status = RESULT[action];
  const at = now.toISOString();
  const entry: HistoryEntry = { status, at, tokenId, ...(input.note ? { note: input.note } : {}) };
  const moved: Incident = {
    ...incident,
    status,
    history: [...incident.history, entry],
    version: incident.version + 1,
  };
  if (action === 'contain') moved.containedAt = at;
  if (action === 'close') moved.closedAt = at;
  if (action === 'notify') {
    const sentAt = input.notifiedAt ? utc(input.notifiedAt) : at;
    if (isLateNotification(incident.detectedAt, sentAt) && !input.delayReason)
      throw new DelayReasonRequiredError();
    moved.notifiedAt = sentAt;
    if (input.authorityReference) moved.authorityReference = input.authorityReference;
    moved.authorityNotifications = [
      {
        phase: 'initial',
        sentAt,
        ...(input.authorityReference ? { reference: input.authorityReference } : {}),
        ...(input.summary ? { summary: input.summary } : {}),
        ...(input.delayReason ? { delayReason: input.delayReason } : {}),
      },
    ];
  }
  return moved;
}

/** A change of the record: the next version, with its history entry naming what changed. */
function changed(
  incident: Incident,
  update: Partial<Incident>,
  fields: string[],
  tokenId: string,
  now: Date,
): Incident {
  if (incident.status === 'closed') throw new IncidentClosedError();
  const entry: HistoryEntry = { status: incident.status, at: now.toISOString(), tokenId, fields };
  return {
    ...incident,
    ...update,
    history: [...incident.history, entry],
    version: incident.version + 1,
  };
}

/** PATCH: the fields sent replace the ones kept. An `If-Match` that names another version is refused (412). */
export function amendIncident(
  incident: Incident,
  patch: BreachRecordFields,
  tokenId: string,
  now: Date,
  ifMatch?: string,
): Incident {
  if (incident.status === 'closed') throw new IncidentClosedError();
  if (ifMatch !== undefined && !etagMatches(incident, ifMatch)) throw new StaleIncidentError();
  const update = normalised(patch);
  checkRecord(incident.detectedAt, { ...incident, ...update });
  const fields = BREACH_RECORD_FIELDS.filter((field) => field in update);
  return changed(incident, update, fields, tokenId, now);
}

export interface AuthorityUpdateInput {
  sentAt?: string;
  reference?: string;
  summary: string;
}

/** A follow-up phase of the notification (Art. 33(4)): only once the authority has been notified. */
export function addAuthorityUpdate(
  incident: Incident,
  input: AuthorityUpdateInput,
  tokenId: string,
  now: Date,
): Incident {
  if (incident.status === 'closed') throw new IncidentClosedError();
  if (!incident.notifiedAt) throw new NotNotifiedError();
  const followUp: AuthorityNotification = {
    phase: 'follow_up',
    sentAt: input.sentAt ? utc(input.sentAt) : now.toISOString(),
    ...(input.reference ? { reference: input.reference } : {}),
    summary: input.summary,
  };
  const authorityNotifications = [...(incident.authorityNotifications ?? []), followUp];
  return changed(incident, { authorityNotifications }, ['authorityNotifications'], tokenId, now);
}

export interface CommunicationInput {
  decision: CommunicationDecision;
  at?: string;
  channel?: string;
  note?: string;
}

/** Records the Art. 34 decision; an exemption is only valid with the note that justifies it. */
export function decideDataSubjectCommunication(
  incident: Incident,
  input: CommunicationInput,
  tokenId: string,
  now: Date,
): Incident {
  if (EXEMPTIONS.has(input.decision) && !input.note)
    throw new ValidationError([
      { field: 'note', message: 'An exemption (Art. 34(3)(a) or (b)) needs a note that justifies it.' },
    ]);
  if (incident.status === 'closed') throw new IncidentClosedError();
  const dataSubjectCommunication: DataSubjectCommunication = {
    decision: input.decision,
    at: input.at ? utc(input.at) : now.toISOString(),
    ...(input.channel ? { channel: input.channel } : {}),
    ...(input.note ? { note: input.note } : {}),
  };
  return changed(incident, { dataSubjectCommunication }, ['dataSubjectCommunication'], tokenId, now);
}

/** The incident's ETag: its version, which every change moves on (derived fields are not part of it). */
export function incidentEtag(incident: Incident): string {
  return `"v${incident.version}"`;
}

/**
 * RFC 9110 §13.1.1: If-Match uses the strong comparison (a weak tag never matches); `*` matches any
 * current incident; a list matches when one of its tags does.
 */
export function etagMatches(incident: Incident, ifMatch: string): boolean {
  const trimmed = ifMatch.trim();
  if (trimmed === '*') return true;
  const current = incidentEtag(incident);
  return trimmed.split(',').some((tag) => tag.trim() === current);
}

export const EVENT_FOR_STATUS = {
  declared: 'incident.declared',
  contained: 'incident.contained',
  notified: 'incident.notified',
  closed: 'incident.closed',
} as const;

/** The 72-hour legal deadline's alarm goes 60 hours after detection. */
export const DEADLINE_ALARM_AFTER_MS = 60 * 3600 * 1000;

export function isOpenForNotification(incident: Incident): boolean {
  return incident.status === 'declared' || incident.status === 'contained';
}

/**
 * The incident as webhook subscribers see it: ids, classification, status and times. Free text
 * (title, description, notes) is left out because it may hold personal data.
 */
export function incidentEventData(incident: Incident): Record<string, unknown> {
  const { id, severity, category, detectedAt, status, declaredAt, containedAt, notifiedAt, closedAt } =
    incident;
  return {
    id,
    severity,
    category,
    detectedAt,
    status,
    declaredAt,
    containedAt,
    notifiedAt,
    closedAt,
    notificationDeadline: notificationDeadline(detectedAt),
    sequence: incident.version,
  };
}

export type IncidentView = Omit<Incident, 'organisationId' | 'version'> & {
  sequence: number;
  notificationDeadline: string;
  specialCategories: boolean;
  obligations: Obligations;
};

/** The incident as the REST API returns it, with what follows from it as of `now`. */
export function incidentView(incident: Incident, now: Date = new Date()): IncidentView {
  const { organisationId: _org, version, ...view } = incident;
  return {
    ...view,
    sequence: version,
    notificationDeadline: notificationDeadline(incident.detectedAt),
    specialCategories: hasSpecialCategories(incident.personalData),
    obligations: obligationsOf(incident, now),
  };
}
