import { describe, expect, it } from 'vitest';
import { ConflictError, type DomainError } from '../../shared/domain/errors.js';
import {
  addAuthorityUpdate,
  amendIncident,
  DelayReasonRequiredError,
  decideDataSubjectCommunication,
  declareIncident,
  type Incident,
  IncidentClosedError,
  incidentEtag,
  incidentEventData,
  incidentView,
  moveIncident,
  NotNotifiedError,
  StaleIncidentError,
} from '../../shared/domain/incident.js';
import { thrownBy, validationIssuesOf } from '../support/throws.js';

const DETECTED = '2026-11-20T08:00:00.000Z';
const hoursAfter = (hours: number) => new Date(Date.parse(DETECTED) + hours * 3600_000);

const declared = (extra: Partial<Parameters<typeof declareIncident>[2]> = {}) =>
  declareIncident(
    'a3f1c0de-0000-4000-8000-000000000002',
    'org-1',
    { severity: 'high', category: 'confidentiality', detectedAt: DETECTED, title: 'Laptop lost', ...extra },
    'tok_declarer',
    hoursAfter(1),
  );

const notified = (incident: Incident = declared()) =>
  moveIncident(
    incident,
    'notify',
    { authorityReference: 'DPA-1', summary: 'first' },
    'tok_n',
    hoursAfter(10),
  );

describe('the breach record', () => {
  it('takes the record on declaration, in UTC, and refuses occurredAt after detectedAt', () => {
    const incident = declared({ occurredAt: '2026-11-20T07:00:00+01:00', measuresTaken: 'Wiped' });
    expect(incident).toMatchObject({ occurredAt: '2026-11-20T06:00:00.000Z', measuresTaken: 'Wiped' });
    expect(validationIssuesOf(() => declared({ occurredAt: '2026-11-20T08:00:01Z' }))).toEqual([
      { field: 'occurredAt', message: expect.any(String) },
    ]);
  });

  it('refuses a risk assessed unlikely without its rationale, on declaration and on PATCH', () => {
    expect(validationIssuesOf(() => declared({ risk: { level: 'unlikely' } }))[0]?.field).toBe(
      'risk.rationale',
    );
    expect(
      validationIssuesOf(() =>
        amendIncident(declared(), { risk: { level: 'unlikely' } }, 't', hoursAfter(2)),
      )[0]?.field,
    ).toBe('risk.rationale');
  });

  it('keeps each PATCH as a history entry naming the fields and the token, and moves the version on', () => {
    const first = amendIncident(
      declared(),
      { risk: { level: 'high', rationale: 'r' }, measuresTaken: 'm' },
      'tok_dpo',
      hoursAfter(2),
    );
    const second = amendIncident(
      first,
      { contact: { name: 'DPO', email: 'dpo@example.org' } },
      'tok_x',
      hoursAfter(3),
    );
    expect(second.version).toBe(3);
    expect(second.history.slice(1)).toEqual([
      {
        status: 'declared',
        at: hoursAfter(2).toISOString(),
        tokenId: 'tok_dpo',
        fields: ['measuresTaken', 'risk'],
      },
      { status: 'declared', at: hoursAfter(3).toISOString(), tokenId: 'tok_x', fields: ['contact'] },
    ]);
    expect(second.risk).toEqual({ level: 'high', rationale: 'r' });
    // The earlier entries are kept as they were: append-only.
    expect(second.history.slice(0, 2)).toEqual(first.history);
  });

  it('honours If-Match: the current ETag or * passes, another version is stale (412), a closed incident is 409', () => {
    const incident = declared();
    expect(
      amendIncident(incident, { measuresTaken: 'a' }, 't', hoursAfter(2), incidentEtag(incident)).version,
    ).toBe(2);
    expect(amendIncident(incident, { measuresTaken: 'a' }, 't', hoursAfter(2), '*').version).toBe(2);
    const stale = thrownBy(
      () => amendIncident(incident, { measuresTaken: 'a' }, 't', hoursAfter(2), '"v7"'),
      StaleIncidentError,
    );
    expect(stale.code).toBe('precondition_failed');
    expect(
      thrownBy(() => amendIncident(incident, {}, 't', hoursAfter(2), 'W/"v1"'), StaleIncidentError),
    ).toBeTruthy();
    const closed = moveIncident(incident, 'close', {}, 't', hoursAfter(3));
    expect(
      thrownBy(() => amendIncident(closed, { measuresTaken: 'a' }, 't', hoursAfter(4)), IncidentClosedError)
        .code,
    ).toBe('incident_closed');
  });

  it('needs the reasons for a notification later than 72 hours, and records the initial phase', () => {
    const late = { notifiedAt: hoursAfter(73).toISOString() };
    const error = thrownBy(
      () => moveIncident(declared(), 'notify', late, 't', hoursAfter(80)),
      DelayReasonRequiredError,
    );
    expect(error.code).toBe('delay_reason_required');
    // The time that counts is when the authority was notified, not when it is recorded.
    expect(
      moveIncident(declared(), 'notify', { notifiedAt: hoursAfter(71).toISOString() }, 't', hoursAfter(80))
        .status,
    ).toBe('notified');
    const withReason = moveIncident(
      declared(),
      'notify',
      { ...late, delayReason: 'Forensics', authorityReference: 'DPA-9', summary: 'S' },
      't',
      hoursAfter(80),
    );
    expect(withReason.authorityNotifications).toEqual([
      {
        phase: 'initial',
        sentAt: hoursAfter(73).toISOString(),
        reference: 'DPA-9',
        summary: 'S',
        delayReason: 'Forensics',
      },
    ]);
    expect(withReason).toMatchObject({
      notifiedAt: hoursAfter(73).toISOString(),
      authorityReference: 'DPA-9',
    });
  });

  it('adds follow-ups only once notified (409 before), each a history entry', () => {
    const error = thrownBy(
      () => addAuthorityUpdate(declared(), { summary: 'x' }, 't', hoursAfter(2)),
      NotNotifiedError,
    );
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.code).toBe('not_notified');
    const followed = addAuthorityUpdate(
      notified(),
      { summary: 'more', reference: 'DPA-1/2' },
      'tok_f',
      hoursAfter(20),
    );
    expect(followed.authorityNotifications?.map((n) => n.phase)).toEqual(['initial', 'follow_up']);
    expect(followed.authorityNotifications?.[1]).toEqual({
      phase: 'follow_up',
      sentAt: hoursAfter(20).toISOString(),
      reference: 'DPA-1/2',
      summary: 'more',
    });
    expect(followed.history.at(-1)).toMatchObject({ tokenId: 'tok_f', fields: ['authorityNotifications'] });
  });

  it('records the Art. 34 decision; an exemption needs a note', () => {
    expect(
      validationIssuesOf(() =>
        decideDataSubjectCommunication(declared(), { decision: 'exempt_encrypted' }, 't', hoursAfter(2)),
      ),
    ).toEqual([{ field: 'note', message: expect.any(String) }]);
    const high = amendIncident(declared(), { risk: { level: 'high', rationale: 'r' } }, 't', hoursAfter(2));
    expect(incidentView(high, hoursAfter(3)).obligations.dataSubjectCommunication).toBe('required');
    const exempt = decideDataSubjectCommunication(
      high,
      { decision: 'exempt_encrypted', note: 'AES-256 disk', at: '2026-11-20T12:00:00+01:00' },
      't',
      hoursAfter(4),
    );
    expect(exempt.dataSubjectCommunication).toEqual({
      decision: 'exempt_encrypted',
      at: '2026-11-20T11:00:00.000Z',
      note: 'AES-256 disk',
    });
    expect(incidentView(exempt, hoursAfter(5)).obligations.dataSubjectCommunication).toBe('exempt');
  });

  it('counts every change in the sequence subscribers see, and sends them nothing personal', () => {
    const incident = declareIncident(
      'a3f1c0de-0000-4000-8000-000000000003',
      'org-1',
      {
        severity: 'low',
        category: 'availability',
        detectedAt: DETECTED,
        title: 'Secret title',
        contact: { name: 'Ada DPO', email: 'ada@example.org' },
        likelyConsequences: 'Phishing of Bob',
      },
      't',
      hoursAfter(1),
    );
    expect(incidentEventData(incident)).toMatchObject({
      sequence: 1,
      notificationDeadline: '2026-11-23T08:00:00.000Z',
    });
    const steps: ((i: Incident) => Incident)[] = [
      (i) => amendIncident(i, { measuresTaken: 'Told Carol' }, 't', hoursAfter(2)),
      (i) => moveIncident(i, 'contain', {}, 't', hoursAfter(3)),
      (i) => moveIncident(i, 'notify', {}, 't', hoursAfter(4)),
      (i) => addAuthorityUpdate(i, { summary: 'Dave' }, 't', hoursAfter(5)),
      (i) => decideDataSubjectCommunication(i, { decision: 'communicated' }, 't', hoursAfter(6)),
    ];
    let current = incident;
    for (const [n, step] of steps.entries()) {
      current = step(current);
      expect(incidentEventData(current).sequence).toBe(n + 2);
    }
    expect(JSON.stringify(incidentEventData(current))).not.toMatch(/Secret|Ada|Bob|Carol|Dave|example\.org/);
  });

  it('maps each refusal to a stable code', () => {
    const codes = [
      new IncidentClosedError(),
      new NotNotifiedError(),
      new DelayReasonRequiredError(),
      new StaleIncidentError(),
    ].map((e: DomainError) => e.code);
    expect(codes).toEqual([
      'incident_closed',
      'not_notified',
      'delay_reason_required',
      'precondition_failed',
    ]);
  });
});
