import { describe, expect, it } from 'vitest';
import {
  declareIncident,
  type IncidentAction,
  type IncidentStatus,
  InvalidTransitionError,
  incidentEventData,
  moveIncident,
} from '../../shared/domain/incident.js';
import { thrownBy } from '../support/throws.js';

const at = (minutes: number) => new Date(Date.UTC(2026, 10, 22, 8, minutes));
const declared = () =>
  declareIncident(
    'a3f1c0de-0000-4000-8000-000000000001',
    'org-1',
    {
      severity: 'high',
      category: 'confidentiality',
      detectedAt: '2026-11-22T07:30:00+01:00',
      title: 'Laptop lost',
    },
    'tok_declarer',
    at(0),
  );

function reach(status: IncidentStatus) {
  const path: Record<IncidentStatus, IncidentAction[]> = {
    declared: [],
    contained: ['contain'],
    notified: ['contain', 'notify'],
    closed: ['contain', 'notify', 'close'],
  };
  return path[status].reduce(
    (incident, action, i) => moveIncident(incident, action, {}, 'tok_mover', at(i + 1)),
    declared(),
  );
}

describe('incident lifecycle', () => {
  it('starts declared, with the detection time normalised to UTC and a first history entry', () => {
    const incident = declared();
    expect(incident.status).toBe('declared');
    expect(incident.detectedAt).toBe('2026-11-22T06:30:00.000Z');
    expect(incident.history).toEqual([
      { status: 'declared', at: at(0).toISOString(), tokenId: 'tok_declarer' },
    ]);
    expect(incident.version).toBe(1);
  });

  it('moves declared → contained → notified → closed, recording who, when and the note', () => {
    const contained = moveIncident(declared(), 'contain', { note: 'Disk wiped remotely' }, 'tok_a', at(1));
    const notified = moveIncident(contained, 'notify', { authorityReference: 'DPA-2026-17' }, 'tok_b', at(2));
    const closed = moveIncident(notified, 'close', {}, 'tok_c', at(3));
    expect(closed.status).toBe('closed');
    expect(closed.history.map((h) => [h.status, h.tokenId])).toEqual([
      ['declared', 'tok_declarer'],
      ['contained', 'tok_a'],
      ['notified', 'tok_b'],
      ['closed', 'tok_c'],
    ]);
    expect(closed.history[1]?.note).toBe('Disk wiped remotely');
    expect(closed).toMatchObject({
      containedAt: at(1).toISOString(),
      notifiedAt: at(2).toISOString(),
      authorityReference: 'DPA-2026-17',
      closedAt: at(3).toISOString(),
      version: 4,
    });
  });

  it('allows notify straight from declared and close from any open status', () => {
    expect(
      moveIncident(declared(), 'notify', { notifiedAt: '2026-11-22T09:00:00Z' }, 't', at(1)).notifiedAt,
    ).toBe('2026-11-22T09:00:00.000Z');
    for (const status of ['declared', 'contained', 'notified'] as const) {
      expect(moveIncident(reach(status), 'close', {}, 't', at(9)).status).toBe('closed');
    }
  });

  it.each([
    ['contained', 'contain'],
    ['notified', 'contain'],
    ['notified', 'notify'],
    ['closed', 'contain'],
    ['closed', 'notify'],
    ['closed', 'close'],
  ] as const)('refuses to %s → %s with invalid_transition', (status, action) => {
    const incident = reach(status);
    const error = thrownBy(() => moveIncident(incident, action, {}, 't', at(9)), InvalidTransitionError);
    expect(error.code).toBe('invalid_transition');
  });

  it('leaves free text out of what subscribers receive', () => {
    const data = incidentEventData(
      moveIncident(declared(), 'contain', { note: 'Names of members' }, 't', at(1)),
    );
    expect(data).toMatchObject({
      id: declared().id,
      severity: 'high',
      category: 'confidentiality',
      status: 'contained',
    });
    expect(JSON.stringify(data)).not.toMatch(/Laptop|Names/);
    expect(data).not.toHaveProperty('organisationId');
  });
});
