import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bodyOf,
  call,
  declareIncident,
  postJson,
  problemOf,
  unthrottledOrganisation,
} from '../support/api.js';
import { forIncident, receivedBeforeMarker } from '../support/marker.js';
import { type Receiver, startReceiver } from '../support/webhook-receiver.js';

interface Incident {
  id: string;
  status: string;
  sequence: number;
  notificationDeadline: string;
  specialCategories: boolean;
  obligations: {
    authorityNotification: string;
    dataSubjectCommunication: string;
    overdue: boolean;
    warnings: string[];
  };
  history: { status: string; tokenId: string; fields?: string[] }[];
  authorityNotifications?: { phase: string; sentAt: string; delayReason?: string; summary?: string }[];
  dataSubjectCommunication?: { decision: string; note?: string };
  [field: string]: unknown;
}

type Tenant = Awaited<ReturnType<typeof unthrottledOrganisation>>;
let tenant: Tenant;
let stranger: Tenant;
let hook: Receiver;

const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3600_000).toISOString();

const patch = (id: string, body: unknown, headers: Record<string, string> = {}, token = tenant.writer) =>
  call(`/incidents/${id}`, {
    method: 'PATCH',
    token,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

const read = async (id: string) => {
  const response = await call(`/incidents/${id}`, { token: tenant.reader });
  return { etag: response.headers.get('etag'), incident: await bodyOf<Incident>(response) };
};

const RECORD = {
  occurredAt: hoursAgo(90),
  dataSubjects: { categories: ['members', 'minors'], approximateCount: 120 },
  personalData: { categories: ['contact', 'health'], approximateRecords: 130 },
  likelyConsequences: 'Phishing aimed at members; disclosure of health data of Alice Example.',
  contact: { name: 'Data protection officer', email: 'dpo@example.org' },
};

beforeAll(async () => {
  [tenant, stranger] = await Promise.all([unthrottledOrganisation(), unthrottledOrganisation()]);
  hook = await startReceiver();
  expect((await postJson('/webhooks', tenant.writer, { url: hook.url })).status).toBe(201);
});

afterAll(async () => {
  await hook?.close();
});

describe('keeping the breach record', () => {
  it('declare, assess, notify late with a reason, follow up, inform the people, close: every change counted', async () => {
    // Detected 80 hours ago: the 72 hours have passed.
    const declared = await bodyOf<Incident>(
      await declareIncident(tenant.writer, { detectedAt: hoursAgo(80), title: 'Laptop lost', ...RECORD }),
    );
    expect(declared).toMatchObject({ ...RECORD, occurredAt: new Date(RECORD.occurredAt).toISOString() });
    expect(declared).toMatchObject({
      sequence: 1,
      specialCategories: true,
      obligations: {
        authorityNotification: 'required',
        dataSubjectCommunication: 'not_required',
        overdue: true,
      },
    });
    expect(declared.obligations.warnings).toContain('risk_not_assessed');
    expect(Date.parse(declared.notificationDeadline)).toBe(
      Date.parse(String(declared.detectedAt)) + 72 * 3600_000,
    );

    // Assess with If-Match: the ETag of what was read.
    const { etag } = await read(declared.id);
    const assessed = await patch(
      declared.id,
      { risk: { level: 'high', rationale: 'Health data of minors.' }, measuresTaken: 'Remote wipe.' },
      { 'If-Match': String(etag) },
    );
    expect(assessed.status).toBe(200);
    const afterPatch = await bodyOf<Incident>(assessed);
    expect(assessed.headers.get('etag')).not.toBe(etag);
    expect(afterPatch.sequence).toBe(2);
    expect(afterPatch.history.at(-1)).toEqual({
      status: 'declared',
      at: expect.any(String),
      tokenId: tenant.writerId,
      fields: ['measuresTaken', 'risk'],
    });
    expect(afterPatch.obligations.dataSubjectCommunication).toBe('required');

    // The same ETag again is stale now: 412, nothing written.
    await problemOf(
      await patch(declared.id, { measuresProposed: 'x' }, { 'If-Match': String(etag) }),
      412,
      'precondition_failed',
    );
    expect((await read(declared.id)).incident).toEqual(afterPatch);

    // Late without a reason: 400, still declared; with one: notified, the initial phase kept.
    await problemOf(
      await postJson(`/incidents/${declared.id}/notify`, tenant.writer, {}),
      400,
      'delay_reason_required',
    );
    expect((await read(declared.id)).incident).toEqual(afterPatch);
    const notified = await bodyOf<Incident>(
      await postJson(`/incidents/${declared.id}/notify`, tenant.writer, {
        authorityReference: 'DPA-2026-17',
        summary: 'Initial notification.',
        delayReason: 'The scope was only known after forensics.',
      }),
    );
    expect(notified).toMatchObject({ status: 'notified', sequence: 3, authorityReference: 'DPA-2026-17' });
    expect(notified.obligations).toMatchObject({ authorityNotification: 'done', overdue: false });
    expect(notified.authorityNotifications).toEqual([
      {
        phase: 'initial',
        sentAt: notified.notifiedAt,
        reference: 'DPA-2026-17',
        summary: 'Initial notification.',
        delayReason: 'The scope was only known after forensics.',
      },
    ]);

    const followed = await bodyOf<Incident>(
      await postJson(`/incidents/${declared.id}/authority-updates`, tenant.writer, {
        summary: 'No copies made.',
      }),
    );
    expect(followed.sequence).toBe(4);
    expect(followed.authorityNotifications?.map((n) => n.phase)).toEqual(['initial', 'follow_up']);

    const informed = await bodyOf<Incident>(
      await postJson(`/incidents/${declared.id}/data-subject-communication`, tenant.writer, {
        decision: 'communicated',
        channel: 'email',
      }),
    );
    expect(informed).toMatchObject({ sequence: 5, dataSubjectCommunication: { decision: 'communicated' } });
    expect(informed.obligations.dataSubjectCommunication).toBe('done');

    const closed = await bodyOf<Incident>(
      await postJson(`/incidents/${declared.id}/close`, tenant.writer, {}),
    );
    expect(closed.sequence).toBe(6);
    await problemOf(await patch(declared.id, { measuresProposed: 'x' }), 409, 'incident_closed');

    // Subscribers get the moves with their sequence (2, 4 and 5 sent no event) and nothing personal.
    // The deadline alarm was due at once (detected 80 h ago): it carries the sequence current when it
    // fired, before the notification cancelled it.
    const marker = await bodyOf<Incident>(await declareIncident(tenant.writer));
    const sent = await receivedBeforeMarker(hook, forIncident(declared.id), forIncident(marker.id));
    const sequenceOf = (w: (typeof sent)[number]) => (w.body.incident as { sequence: number }).sequence;
    const moves = sent.filter((w) => w.body.event !== 'incident.deadline_72h');
    expect(moves.map((w) => [w.body.event, sequenceOf(w)])).toEqual([
      ['incident.declared', 1],
      ['incident.notified', 3],
      ['incident.closed', 6],
    ]);
    for (const alarm of sent.filter((w) => w.body.event === 'incident.deadline_72h'))
      expect([1, 2]).toContain(sequenceOf(alarm));
    for (const webhook of sent) {
      expect(webhook.body.incident).toMatchObject({ notificationDeadline: declared.notificationDeadline });
      expect(JSON.stringify(webhook.body)).not.toMatch(/Alice|dpo@|Laptop|minors|health|forensics/);
    }
  });
});

describe('bad input: a problem with a stable code, and nothing half-written', () => {
  it.each([
    ['an unknown category', { dataSubjects: { categories: ['aliens'] } }, 'dataSubjects.categories[0]'],
    [
      'a negative count',
      { personalData: { categories: ['contact'], approximateRecords: -1 } },
      'personalData.approximateRecords',
    ],
    [
      'a fractional count',
      { dataSubjects: { categories: ['staff'], approximateCount: 2.5 } },
      'dataSubjects.approximateCount',
    ],
    ['an unknown risk level', { risk: { level: 'maybe', rationale: 'r' } }, 'risk.level'],
    ['unlikely without rationale', { risk: { level: 'unlikely' } }, 'risk.rationale'],
    [
      'occurredAt after detectedAt',
      { occurredAt: new Date(Date.now() + 60_000).toISOString() },
      'occurredAt',
    ],
    ['a malformed email', { contact: { name: 'DPO', email: 'not-an-email' } }, 'contact.email'],
    ['no field at all', {}, '(body)'],
  ])('PATCH with %s is 400 validation_failed naming %s', async (_, body, field) => {
    const { id } = await bodyOf<Incident>(await declareIncident(tenant.writer, { detectedAt: hoursAgo(1) }));
    const before = await read(id);
    const problem = await problemOf(await patch(id, body), 400, 'validation_failed');
    expect(problem.errors?.map((e) => e.field)).toContain(field);
    expect(await read(id)).toEqual(before);
  });

  it('refuses the same on declaration, and declares nothing', async () => {
    const before = await bodyOf<{ data: unknown[] }>(
      await call('/breach-register?limit=100', { token: tenant.reader }),
    );
    await problemOf(
      await declareIncident(tenant.writer, { detectedAt: hoursAgo(2), occurredAt: hoursAgo(1) }),
      400,
      'validation_failed',
    );
    await problemOf(
      await declareIncident(tenant.writer, { risk: { level: 'unlikely' } }),
      400,
      'validation_failed',
    );
    const after = await bodyOf<{ data: unknown[] }>(
      await call('/breach-register?limit=100', { token: tenant.reader }),
    );
    expect(after.data.length).toBe(before.data.length);
  });

  it('refuses a follow-up before notification (409) and an exemption without a note (400)', async () => {
    const { id } = await bodyOf<Incident>(await declareIncident(tenant.writer));
    const before = await read(id);
    await problemOf(
      await postJson(`/incidents/${id}/authority-updates`, tenant.writer, { summary: 'Too early.' }),
      409,
      'not_notified',
    );
    const exemption = await problemOf(
      await postJson(`/incidents/${id}/data-subject-communication`, tenant.writer, {
        decision: 'exempt_mitigated',
      }),
      400,
      'validation_failed',
    );
    expect(exemption.errors?.map((e) => e.field)).toEqual(['note']);
    await problemOf(
      await postJson(`/incidents/${id}/data-subject-communication`, tenant.writer, { decision: 'forgotten' }),
      400,
      'validation_failed',
    );
    expect(await read(id)).toEqual(before);
  });

  it("answers 404 for another organisation's incident on every new path, and keeps it out of their register", async () => {
    const { id } = await bodyOf<Incident>(await declareIncident(tenant.writer, { title: '=cmd|calc' }));
    await problemOf(await call(`/incidents/${id}/report`, { token: stranger.reader }), 404, 'not_found');
    await problemOf(
      await call(`/incidents/${id}/report`, { token: stranger.reader, headers: { Accept: 'text/html' } }),
      404,
      'not_found',
    );
    await problemOf(await patch(id, { measuresTaken: 'x' }, {}, stranger.writer), 404, 'not_found');
    const theirs = await call('/breach-register?format=csv', { token: stranger.reader });
    expect(await theirs.text()).not.toContain(id);
  });
});

describe('the report and the register', () => {
  it('reports as JSON with a section per Art. 33(3) item, and as a self-contained page with a strict CSP', async () => {
    const { id } = await bodyOf<Incident>(await declareIncident(tenant.writer, RECORD));
    const json = await call(`/incidents/${id}/report`, { token: tenant.reader });
    const report = await bodyOf<{
      incidentId: string;
      sections: { key: string; content: string }[];
      timeline: unknown[];
    }>(json);
    expect(report.incidentId).toBe(id);
    expect(report.sections.map((s) => s.key)).toEqual([
      'nature',
      'contact',
      'consequences',
      'measures',
      'notification',
      'data_subject_communication',
    ]);
    expect(report.sections[1]?.content).toBe('Data protection officer <dpo@example.org>');
    const html = await call(`/incidents/${id}/report`, {
      token: tenant.reader,
      headers: { Accept: 'text/html' },
    });
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html.headers.get('content-security-policy')).toMatch(/^default-src 'none'; style-src 'sha256-/);
    const page = await html.text();
    expect(page).not.toMatch(/<script|<link|src=|https?:\/\//i);
    for (const key of ['nature', 'contact', 'consequences', 'measures', 'timeline'])
      expect(page).toContain(`data-section="${key}"`);
  });

  it('lists every incident newest first in pages, and the whole register as RFC 4180 CSV with formula cells neutralised', async () => {
    const own = await unthrottledOrganisation();
    const ids: string[] = [];
    for (const title of ['first', '=HYPERLINK("http://x")', '@third'])
      ids.push((await bodyOf<Incident>(await declareIncident(own.writer, { title }))).id);
    const first = await bodyOf<{ data: { id: string }[]; nextCursor: string }>(
      await call('/breach-register?limit=2', { token: own.reader }),
    );
    expect(first.data.map((r) => r.id)).toEqual([ids[2], ids[1]]);
    const second = await bodyOf<{ data: { id: string }[]; nextCursor: null }>(
      await call(`/breach-register?limit=2&cursor=${first.nextCursor}`, { token: own.reader }),
    );
    expect(second).toEqual({ data: [expect.objectContaining({ id: ids[0] })], nextCursor: null });

    for (const request of [
      call('/breach-register?format=csv', { token: own.reader }),
      call('/breach-register', { token: own.reader, headers: { Accept: 'text/csv' } }),
    ]) {
      const response = await request;
      expect(response.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
      const lines = (await response.text()).split('\r\n');
      expect(lines[0]).toMatch(/^id,status,severity,category,title,/);
      expect(lines.slice(1, 4).map((line) => line.split(',')[0])).toEqual([ids[2], ids[1], ids[0]]);
      expect(lines[1]).toContain(",'@third,");
      expect(lines[2]).toContain(`,"'=HYPERLINK(""http://x"")",`);
      expect(lines.slice(4)).toEqual(['']);
    }
  });
});
