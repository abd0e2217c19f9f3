import { type Incident, incidentView } from './incident.js';

/**
 * The notification for the supervisory authority, as one model that both the JSON answer and the
 * printable page are made from: a section for each item of GDPR Art. 33(3), the notification's own
 * facts (deadline, phases, the reasons for a delay) and the timeline of the record.
 */
export interface ReportSection {
  key: string;
  title: string;
  content: string;
}

export interface TimelineEntry {
  at: string;
  what: string;
}

export interface BreachReport {
  incidentId: string;
  organisationId: string;
  generatedAt: string;
  sections: ReportSection[];
  timeline: TimelineEntry[];
}

export const REPORT_SECTION_KEYS = [
  'nature',
  'contact',
  'consequences',
  'measures',
  'notification',
  'data_subject_communication',
] as const;

const NOT_RECORDED = 'Not recorded yet.';

const lines = (...parts: (string | false | undefined)[]) =>
  parts.filter((part): part is string => typeof part === 'string' && part !== '').join('\n');

const list = (values: readonly string[] | undefined) =>
  values && values.length > 0 ? values.map((v) => v.replaceAll('_', ' ')).join(', ') : undefined;

export function breachReport(incident: Incident, now: Date): BreachReport {
  const view = incidentView(incident, now);
  const { dataSubjects, personalData, risk, contact } = incident;
  const sections: ReportSection[] = [
    {
      key: 'nature',
      title: 'Art. 33(3)(a) Nature of the breach',
      content: lines(
        incident.title,
        `Kind of breach: ${incident.category}; severity ${incident.severity}.`,
        incident.description,
        incident.occurredAt && `Occurred: ${incident.occurredAt}.`,
        `Detected: ${incident.detectedAt}.`,
        dataSubjects
          ? `People concerned: ${list(dataSubjects.categories)}; approximately ${dataSubjects.approximateCount ?? 'an unknown number of'} people.`
          : 'People concerned: not recorded yet.',
        personalData
          ? `Personal data concerned: ${list(personalData.categories)}; approximately ${personalData.approximateRecords ?? 'an unknown number of'} records.`
          : 'Personal data concerned: not recorded yet.',
        view.specialCategories && 'Special categories of personal data (Art. 9 or 10) are concerned.',
      ),
    },
    {
      key: 'contact',
      title: 'Art. 33(3)(b) Data-protection officer or contact point',
      content: contact ? `${contact.name} <${contact.email}>` : NOT_RECORDED,
    },
    {
      key: 'consequences',
      title: 'Art. 33(3)(c) Likely consequences',
      content: lines(
        incident.likelyConsequences ?? NOT_RECORDED,
        risk
          ? `Risk to the people concerned: ${risk.level}${risk.rationale ? `. ${risk.rationale}` : '.'}`
          : 'Risk to the people concerned: not assessed yet.',
      ),
    },
    {
      key: 'measures',
      title: 'Art. 33(3)(d) Measures taken or proposed',
      content: lines(
        `Taken: ${incident.measuresTaken ?? NOT_RECORDED}`,
        `Proposed: ${incident.measuresProposed ?? NOT_RECORDED}`,
      ),
    },
    {
      key: 'notification',
      title: 'Notification of the supervisory authority (Art. 33(1), (4))',
      content: lines(
        `Deadline (72 hours after detection): ${view.notificationDeadline}.`,
        `Obligation: ${view.obligations.authorityNotification.replaceAll('_', ' ')}${view.obligations.overdue ? ', overdue' : ''}.`,
        ...(incident.authorityNotifications ?? []).map((n) =>
          lines(
            `${n.phase === 'initial' ? 'Initial notification' : 'Follow-up'} sent ${n.sentAt}${n.reference ? ` (reference ${n.reference})` : ''}.`,
            n.summary,
            n.delayReason && `Reasons for the delay: ${n.delayReason}`,
          ),
        ),
      ),
    },
    {
      key: 'data_subject_communication',
      title: 'Communication to the people concerned (Art. 34)',
      content: incident.dataSubjectCommunication
        ? lines(
            `Decision: ${incident.dataSubjectCommunication.decision.replaceAll('_', ' ')}, ${incident.dataSubjectCommunication.at}${incident.dataSubjectCommunication.channel ? ` by ${incident.dataSubjectCommunication.channel}` : ''}.`,
            incident.dataSubjectCommunication.note,
          )
        : `No decision recorded; obligation: ${view.obligations.dataSubjectCommunication.replaceAll('_', ' ')}.`,
    },
  ];
  return {
    incidentId: incident.id,
    organisationId: incident.organisationId,
    generatedAt: now.toISOString(),
    sections,
    timeline: timelineOf(incident),
  };
}

const OWN_TIMELINE_ENTRY = new Set(['authorityNotifications', 'dataSubjectCommunication']);

function timelineOf(incident: Incident): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  if (incident.occurredAt) entries.push({ at: incident.occurredAt, what: 'The breach occurred.' });
  entries.push({ at: incident.detectedAt, what: 'The organisation became aware of the breach.' });
  for (const change of incident.history) {
    // Follow-ups and the Art. 34 decision are listed below at the time they happened.
    const fields = change.fields?.filter((f) => !OWN_TIMELINE_ENTRY.has(f));
    if (fields?.length === 0) continue;
    entries.push({
      at: change.at,
      what: fields
        ? `Record changed: ${fields.join(', ')}.`
        : `Recorded as ${change.status}${change.note ? `: ${change.note}` : '.'}`,
    });
  }
  for (const n of incident.authorityNotifications ?? [])
    entries.push({
      at: n.sentAt,
      what: n.phase === 'initial' ? 'Authority notified.' : 'Follow-up sent to the authority.',
    });
  if (incident.dataSubjectCommunication)
    entries.push({
      at: incident.dataSubjectCommunication.at,
      what: `Art. 34 decision: ${incident.dataSubjectCommunication.decision.replaceAll('_', ' ')}.`,
    });
  // Stable: entries at the same instant keep the order they were listed in.
  return entries.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}
