import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { listRecoverable } from '../../shared/adapters/delivery-records.js';
import { outboxWrite } from '../../shared/adapters/outbox.js';
import type { TransactionItem } from '../../shared/adapters/transaction.js';
import { declareIncident, incidentEventData } from '../../shared/domain/incident.js';
import { newDomainEvent } from '../../shared/domain/webhook-events.js';
import { type BenchStack, newCaller } from './bench-stack.js';
import { onCleanup } from './cleanup.js';
import { percentile } from './load.js';
import { applyInBulk } from './seed.js';
import { MANAGED_WEBHOOK_LOAD, MANAGED_WEBHOOK_TARGETS, WEBHOOK_LOAD } from './settings.js';
import { epochMs, type WebhookSink } from './webhook-sink.js';

/**
 * Issue 13's targets: a test send (POST /webhooks/{id}/test) reaching a local receiver, and a
 * recover of skipped deliveries compared with fresh events delivered in the same run.
 */
export interface ManagedWebhookReport {
  testSend: { sent: number; received: number; p50Ms: number; p99Ms: number; maxMs: number; p50Ok: boolean };
  recover: {
    skipped: number;
    /** POST /webhooks/{id}/recover, request start to 202. */
    recoverCallMs: number;
    received: number;
    /** First receipt to last. */
    flowingSeconds: number;
    /** From the recover request to the last receipt. */
    requestToLastSeconds: number;
    deliveriesPerSecond: number;
    /** Fresh events per second in the same run (the stack's throughput run). */
    freshDeliveriesPerSecond: number;
    ratio: number;
    ratioOk: boolean;
  };
  failures: string[];
}

const RECOVER_PATH = '/recover';

async function api(stack: BenchStack, authorization: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${stack.baseUrl}${path}`, {
    method,
    headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status >= 300)
    throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 200)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** A receiver of test events: records when each delivery id arrived. */
async function startTestReceiver() {
  const arrivals = new Map<string, number>();
  const waiters = new Map<string, () => void>();
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const at = epochMs();
      response.writeHead(200).end('ok');
      const id = String(request.headers['webhook-id'] ?? '');
      arrivals.set(id, at);
      waiters.get(id)?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/test`,
    arrival: (id: string, timeoutMs: number) =>
      new Promise<number | undefined>((resolve) => {
        const known = arrivals.get(id);
        if (known !== undefined) return resolve(known);
        const timer = setTimeout(() => resolve(undefined), timeoutMs);
        waiters.set(id, () => {
          clearTimeout(timer);
          resolve(arrivals.get(id));
        });
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function measureTestSends(stack: BenchStack, log: (line: string) => void, failures: string[]) {
  const { testSends, testWarmup } = MANAGED_WEBHOOK_LOAD;
  const caller = await newCaller(stack, 'test sends', 'read,write');
  const receiver = await startTestReceiver();
  onCleanup(receiver.close);
  const endpoint = await api(stack, caller.authorization, 'POST', '/webhooks', { url: receiver.url });
  log(`webhook test sends: ${testWarmup} to warm up, then ${testSends} one at a time …`);
  const latencies: number[] = [];
  for (let n = 0; n < testWarmup + testSends; n++) {
    const started = epochMs();
    const { deliveryId } = await api(stack, caller.authorization, 'POST', `/webhooks/${endpoint.id}/test`);
    const at = await receiver.arrival(String(deliveryId), WEBHOOK_LOAD.receiptTimeoutSeconds * 1000);
    if (at === undefined) failures.push(`webhook test send ${n}: did not arrive`);
    else if (n >= testWarmup) latencies.push(at - started);
  }
  await receiver.close();
  const sorted = Float64Array.from(latencies).sort();
  const p50Ms = percentile(sorted, 50);
  return {
    sent: testSends,
    received: latencies.length,
    p50Ms,
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.at(-1) ?? Number.NaN,
    p50Ok: p50Ms < MANAGED_WEBHOOK_TARGETS.testSendP50Ms,
  };
}

/**
 * 1,000 incident.declared events to a disabled endpoint (outbox items written straight to the table,
 * as the fresh-event run does), logged as skipped; then the endpoint is enabled and one recover sends
 * them all. Its rate is taken like the fresh run's: first receipt to last at the same sink.
 */
async function measureRecover(
  stack: BenchStack,
  sink: WebhookSink,
  freshDeliveriesPerSecond: number,
  log: (line: string) => void,
  failures: string[],
): Promise<ManagedWebhookReport['recover']> {
  const count = MANAGED_WEBHOOK_LOAD.recoverDeliveries;
  const caller = await newCaller(stack, 'recover', 'read,write');
  const endpoint = await api(stack, caller.authorization, 'POST', '/webhooks', {
    url: sink.url(RECOVER_PATH),
    events: ['incident.declared'],
  });
  sink.expectSecret(RECOVER_PATH, String(endpoint.secret));
  await api(stack, caller.authorization, 'PATCH', `/webhooks/${endpoint.id}`, { enabled: false });
  const since = new Date(Date.now() - 1000);
  const incidentIds: string[] = [];
  const transactions: TransactionItem[][] = [];
  const now = new Date();
  for (let n = 0; n < count; n++) {
    const incident = declareIncident(
      randomUUID(),
      caller.organisationId,
      { severity: 'low', category: 'availability', detectedAt: now.toISOString(), title: `Bench ${n}` },
      caller.tokenId,
      now,
    );
    incidentIds.push(incident.id);
    const event = newDomainEvent(
      'incident.declared',
      caller.organisationId,
      incidentEventData(incident),
      now,
    );
    transactions.push([outboxWrite(event)]);
  }
  log(
    `webhook recover: ${count.toLocaleString('en')} events to a disabled endpoint, waiting until all are skipped …`,
  );
  await applyInBulk(transactions);
  const deadline = Date.now() + WEBHOOK_LOAD.receiptTimeoutSeconds * 1000;
  let skipped = 0;
  while (Date.now() < deadline) {
    skipped = (await listRecoverable(caller.organisationId, String(endpoint.id), since)).length;
    if (skipped >= count) break;
    await sleep(500);
  }
  if (skipped < count) failures.push(`webhook recover: only ${skipped} of ${count} were logged skipped`);
  await api(stack, caller.authorization, 'PATCH', `/webhooks/${endpoint.id}`, { enabled: true });
  log(
    `webhook recover: POST /webhooks/{id}/recover for ${skipped.toLocaleString('en')} skipped deliveries …`,
  );
  const requested = epochMs();
  const answer = await api(stack, caller.authorization, 'POST', `/webhooks/${endpoint.id}/recover`, {
    since: since.toISOString(),
  });
  const recoverCallMs = epochMs() - requested;
  if (answer.count !== skipped)
    failures.push(`webhook recover: answered count ${answer.count}, ${skipped} skipped`);
  const receipts = await sink.waitFor(
    RECOVER_PATH,
    count,
    WEBHOOK_LOAD.receiptTimeoutSeconds * 1000,
    new Set(incidentIds),
  );
  if (receipts.size < count)
    failures.push(`webhook recover: ${count - receipts.size} of ${count} did not arrive`);
  const times = [...receipts.values()].map((r) => r.at).sort((a, b) => a - b);
  const flowingSeconds = ((times.at(-1) ?? 0) - (times[0] ?? 0)) / 1000;
  const deliveriesPerSecond = times.length > 1 ? (times.length - 1) / flowingSeconds : 0;
  const ratio = deliveriesPerSecond / freshDeliveriesPerSecond;
  return {
    skipped,
    recoverCallMs,
    received: receipts.size,
    flowingSeconds,
    requestToLastSeconds: ((times.at(-1) ?? requested) - requested) / 1000,
    deliveriesPerSecond,
    freshDeliveriesPerSecond,
    ratio,
    ratioOk: ratio >= MANAGED_WEBHOOK_TARGETS.recoverToFreshRatio,
  };
}

export async function benchManagedWebhooks(
  stack: BenchStack,
  sink: WebhookSink,
  freshDeliveriesPerSecond: number,
  log: (line: string) => void,
): Promise<ManagedWebhookReport> {
  const failures: string[] = [];
  const testSend = await measureTestSends(stack, log, failures);
  const recover = await measureRecover(stack, sink, freshDeliveriesPerSecond, log, failures);
  return { testSend, recover, failures };
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : 'n/a');

export function managedWebhookSection(report: ManagedWebhookReport): string {
  const { testSend, recover } = report;
  return [
    'Managed endpoints (issue 13):',
    `  Test send: ${testSend.received} of ${testSend.sent} POST /webhooks/{id}/test one at a time, request start -> receipt at a local`,
    `  receiver: p50 ${ms(testSend.p50Ms)} ms, p99 ${ms(testSend.p99Ms)} ms, max ${ms(testSend.maxMs)} ms; target p50 < ${MANAGED_WEBHOOK_TARGETS.testSendP50Ms} ms: ${testSend.p50Ok ? 'OK' : 'MISSED'}`,
    `  Recover: ${recover.skipped} skipped deliveries, one POST /webhooks/{id}/recover (answered in ${ms(recover.recoverCallMs)} ms);`,
    `  ${recover.received} received, flowing ${recover.flowingSeconds.toFixed(1)} s (request -> last receipt ${recover.requestToLastSeconds.toFixed(1)} s):`,
    `  ${recover.deliveriesPerSecond.toFixed(1)} per second vs ${recover.freshDeliveriesPerSecond.toFixed(1)} per second for fresh events in this run;`,
    `  ratio ${recover.ratio.toFixed(2)}, target >= ${MANAGED_WEBHOOK_TARGETS.recoverToFreshRatio}: ${recover.ratioOk ? 'OK' : 'MISSED'}`,
  ].join('\n');
}
