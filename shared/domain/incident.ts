import { ConflictError } from './errors.js';

export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
/** The three kinds of personal-data breach in the EU guidance on breach notification. */
export const CATEGORIES = ['confidentiality', 'integrity', 'availability'] as const;
export const STATUSES = ['declared', 'contained', 'notified', 'closed'] as const;

export type Severity = (typeof SEVERITIES)[number];
export type Category = (typeof CATEGORIES)[number];
export type IncidentStatus = (typeof STATUSES)[number];
export type IncidentAction = 'contain' | 'notify' | 'close';

/** One move of the incident: the record of the breach that the organisation must be able to show. */
export interface HistoryEntry {
  status: IncidentStatus;
  at: string;
  /** The token that made the move. */
  tokenId: string;
  note?: string;
}

export interface Incident {
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
  history: HistoryEntry[];
  /** Optimistic concurrency: each move writes version + 1 on the condition that version is unchanged. */
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

export interface DeclareInput {
  severity: Severity;
  category: Category;
  detectedAt: string;
  title?: string;
  description?: string;
}

export function declareIncident(
  id: string,
  organisationId: string,
  input: DeclareInput,
  tokenId: string,
  now: Date,
): Incident {
  const at = now.toISOString();
  return {
    id,
    organisationId,
    ...input,
    detectedAt: new Date(input.detectedAt).toISOString(),
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
    moved.notifiedAt = input.notifiedAt ? new Date(input.notifiedAt).toISOString() : at;
    if (input.authorityReference) moved.authorityReference = input.authorityReference;
  }
  return moved;
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
  return { id, severity, category, detectedAt, status, declaredAt, containedAt, notifiedAt, closedAt };
}

/** The incident as the REST API returns it. */
export function incidentView(incident: Incident): Omit<Incident, 'organisationId' | 'version'> {
  const { organisationId: _org, version: _version, ...view } = incident;
  return view;
}
