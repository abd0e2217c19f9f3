import { verify } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEADLINE_ALARM_AFTER_MS } from '../../shared/domain/incident.js';
import { bodyOf, declareIncident, postJson, unthrottledOrganisation } from '../support/api.js';
import { forIncident, receivedBeforeMarker } from '../support/marker.js';
import { type ReceivedWebhook, type Receiver, startReceiver } from '../support/webhook-receiver.js';

/**
 * The stack under test checks due timers every second (TIMER_INTERVAL_SECONDS=1 in the e2e setup);
 * incidents are declared with `detectedAt` in the past so that 60 hours pass within the test.
 */
const SECOND = 1000;
let organisationId: string;
let writer: string;
let secret: string;
let hook: Receiver;

async function declareDetected(agoMs: number): Promise<{ id: string; dueAt: number }> {
  const response = await declareIncident(writer, {
    severity: 'critical',
    category: 'availability',
    detectedAt: new Date(Date.now() - agoMs).toISOString(),
  });
  expect(response.status).toBe(201);
  const { id, detectedAt } = await bodyOf<{ id: string; detectedAt: string }>(response);
  return { id, dueAt: Date.parse(detectedAt) + DEADLINE_ALARM_AFTER_MS };
}

const alarmFor = forIncident;

/**
 * An alarm due a second from now, after every alarm this file has waited for so far: the timers fire
 * what is due in order of due time, so once it has arrived, an alarm due before it has come too.
 */
async function laterAlarm(): Promise<(w: ReceivedWebhook) => boolean> {
  return alarmFor((await declareDetected(DEADLINE_ALARM_AFTER_MS - SECOND)).id);
}

beforeAll(async () => {
  ({ organisationId, writer } = await unthrottledOrganisation());
  hook = await startReceiver();
  // Only the alarm: the endpoint's event filter keeps the declared, notified and closed events away.
  const endpoint = await postJson('/webhooks', writer, { url: hook.url, events: ['incident.deadline_72h'] });
  secret = (await bodyOf<{ secret: string }>(endpoint)).secret;
});

afterAll(async () => {
  await hook.close();
});

describe('incident.deadline_72h', () => {
  it('goes at once for an incident declared 61 hours after detection: the incident payload, signed, attempt 1', async () => {
    const { id } = await declareDetected(61 * 3600 * SECOND);
    const [alarm] = await hook.waitFor(1, alarmFor(id));
    if (!alarm) throw new Error('no alarm');
    expect(alarm.body).toEqual({
      event: 'incident.deadline_72h',
      organisationId,
      incident: expect.objectContaining({
        id,
        severity: 'critical',
        category: 'availability',
        status: 'declared',
        sequence: 1,
        notificationDeadline: expect.any(String),
      }),
      attempt: 1,
    });
    expect(alarm.headers['x-service-event']).toBe('incident.deadline_72h');
    expect(await verify(secret, alarm.rawBody, String(alarm.headers['x-service-signature']))).toBe(true);
  });

  it('goes for a declaration at 59 h 59 min 50 s once 60 h have passed, never before, and once only', async () => {
    const { id, dueAt } = await declareDetected(DEADLINE_ALARM_AFTER_MS - 10 * SECOND);
    expect(Date.now()).toBeLessThan(dueAt);
    const [alarm] = await hook.waitFor(1, alarmFor(id), 30 * SECOND);
    if (!alarm) throw new Error('no alarm');
    expect(alarm.at).toBeGreaterThanOrEqual(dueAt);
    // How late after 60 h (a timer interval, the relay and the delivery): npm run bench.
    expect(alarm.body.attempt).toBe(1);
    const sent = await receivedBeforeMarker(hook, alarmFor(id), await laterAlarm(), {
      timeoutMs: 30 * SECOND,
    });
    expect(sent).toHaveLength(1);
  });

  it('never goes for an incident notified or closed before 60 h; a contained one still alarms', async () => {
    const almostDue = DEADLINE_ALARM_AFTER_MS - 4 * SECOND;
    const [notified, closed, contained] = await Promise.all([
      declareDetected(almostDue),
      declareDetected(almostDue),
      declareDetected(almostDue),
    ]);
    if (!notified || !closed || !contained) throw new Error('not declared');
    expect(
      (await postJson(`/incidents/${notified.id}/notify`, writer, { authorityReference: 'DPA-1' })).status,
    ).toBe(200);
    expect((await postJson(`/incidents/${closed.id}/close`, writer, {})).status).toBe(200);
    expect((await postJson(`/incidents/${contained.id}/contain`, writer, {})).status).toBe(200);
    expect(Date.now()).toBeLessThan(notified.dueAt);

    const [alarm] = await hook.waitFor(1, alarmFor(contained.id), 30 * SECOND);
    // The alarm changes nothing and carries the incident's current sequence: declared 1, contained 2.
    expect(alarm?.body.incident).toMatchObject({ status: 'contained', sequence: 2 });
    // All three were due at the same moment; the contained one's alarm came, the others' never do.
    const sent = await receivedBeforeMarker(hook, () => true, await laterAlarm(), { timeoutMs: 30 * SECOND });
    expect(sent.filter(alarmFor(notified.id))).toEqual([]);
    expect(sent.filter(alarmFor(closed.id))).toEqual([]);
  });
});
