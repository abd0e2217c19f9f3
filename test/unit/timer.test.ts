import { describe, expect, it } from 'vitest';
import { scheduledEvent, timerIntervalSeconds } from '../../infra/local/schedule-poller.js';
import { declareIncident } from '../../shared/domain/incident.js';
import { registerFile } from '../../shared/domain/sanctuary-file.js';
import { deadlineTimer, expiryTimer, isDue, TIMER_SHARDS, timerShard } from '../../shared/domain/timer.js';

const organisationId = '5f0c7a2e-8d1b-4c3e-9a6f-2b7d4e1c0a93';
const incident = declareIncident(
  'c6b5e0de-1d5b-4f0e-a4cc-3f1b7a0d9e21',
  organisationId,
  { severity: 'high', category: 'integrity', detectedAt: '2026-11-20T09:30:00+01:00' },
  'tok',
  new Date('2026-11-20T12:00:00Z'),
);

describe('the deadline timer', () => {
  it('is due 60 hours after detection, not a millisecond before', () => {
    const timer = deadlineTimer(incident);
    expect(timer).toEqual({
      kind: 'incident-deadline',
      organisationId,
      resourceId: incident.id,
      dueAt: '2026-11-22T20:30:00.000Z',
    });
    expect(isDue(timer, new Date('2026-11-22T20:29:59.999Z'))).toBe(false);
    expect(isDue(timer, new Date('2026-11-22T20:30:00.000Z'))).toBe(true);
  });

  it('is due at once for an incident detected more than 60 hours ago', () => {
    expect(isDue(deadlineTimer(incident), new Date('2026-11-25T00:00:00Z'))).toBe(true);
  });
});

describe('the file expiry timer', () => {
  it('is due at expiresAt', () => {
    const now = new Date('2026-11-22T10:00:00Z');
    const file = registerFile(
      '0b4e7c1a-9f7d-4a52-8d3e-6a1f2c3b4d5e',
      { name: 'x', expiresAt: '2026-11-22T12:00:00+01:00' },
      now,
    );
    expect(expiryTimer(organisationId, file)).toMatchObject({
      kind: 'file-expiry',
      dueAt: '2026-11-22T11:00:00.000Z',
    });
  });
});

describe('timer shards', () => {
  it('spread ids over every shard and nowhere else', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 256; i++)
      seen.add(timerShard(`${i.toString(16).padStart(2, '0')}000000-0000-4000-8000-000000000000`));
    expect([...seen].sort()).toEqual([...Array(TIMER_SHARDS).keys()]);
    expect(timerShard('zz')).toBe(0);
  });
});

describe('the local schedule', () => {
  it('runs every 5 s by default and refuses a nonsense interval', () => {
    expect(timerIntervalSeconds(undefined)).toBe(5);
    expect(timerIntervalSeconds('1')).toBe(1);
    expect(timerIntervalSeconds('0.5')).toBe(0.5);
    for (const bad of ['0', '-1', 'soon', '4000'])
      expect(() => timerIntervalSeconds(bad), bad).toThrow(/TIMER_INTERVAL_SECONDS/);
  });

  it('invokes with an EventBridge Scheduled Event', () => {
    const event = scheduledEvent('timers-schedule', new Date('2026-11-22T10:00:00.123Z'));
    expect(event).toMatchObject({
      version: '0',
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      time: '2026-11-22T10:00:00Z',
      resources: ['arn:aws:events:local:000000000000:rule/timers-schedule'],
      detail: {},
    });
  });
});
