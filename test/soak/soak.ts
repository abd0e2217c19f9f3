import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { keys } from '../../shared/adapters/keys.js';
import { NO_PROGRESS_THRESHOLDS } from '../../shared/app/sweep-outbox.js';
import { deliveryIdFor } from '../../shared/domain/delivery-id.js';
import { readStackInfo } from '../../shared/topology/local-stack.js';
import { DELIVERY_QUEUE } from '../../shared/topology/queues.js';
import { mis, type RunningStack, startLocalStack } from '../support/local-stack.js';

/**
 * The soak: many events through the API to endpoints that misbehave in the ways subscribers do in
 * the field, in three phases: the healthy organisations alone; every organisation, the one with
 * misbehaving endpoints included (`neighbours`); then every organisation while the service is
 * SIGKILLed (with its whole process group) and restarted, and DynamoDB Local alone is killed once
 * (`faults`). The healthy endpoints' latency alone and beside the misbehaving ones is measured
 * without faults, so that a kill's backlog does not pass for a neighbour's doing. At the end every
 * acknowledged event is accounted for, per endpoint: delivered, in the dead-letter queue or logged
 * failed, logged skipped (its endpoint was disabled: recoverable), absent because the engine kill
 * took the write itself, or lost.
 */

export const BEHAVIOURS = ['healthy', 'slow', 'flaky', 'dead', 'gone', 'closes'] as const;
export type Behaviour = (typeof BEHAVIOURS)[number];

/**
 * `warm-up` drives the healthy organisations first, uncounted in the comparison: on the freshly
 * started stack (handlers not yet loaded, DynamoDB Local's JVM not yet compiled) `alone` ran at
 * 6–10 events/s against 14–20 for `neighbours` in three SOAK_CYCLES=20 runs; after 2 warm-up
 * cycles, 15 against 15.
 */
export const PHASES = ['warm-up', 'alone', 'neighbours', 'faults'] as const;
export type Phase = (typeof PHASES)[number];

export interface SoakOptions {
  /**
   * API write cycles per organisation in each phase (`warm-up` and `alone` drive the healthy
   * organisations only); each cycle makes 10 events (9 writes).
   */
  cycles: Record<Phase, number>;
  /** Organisations with only a healthy endpoint (besides the one with every behaviour). */
  healthyOrganisations: number;
  /** SIGKILLs of the stack's process group during the faults phase. */
  stackKills: number;
  engineKill: boolean;
  /**
   * OUTBOX_SWEEP_AFTER_SECONDS of the stack: how soon an event the stream lost (a kill between the
   * commit and the relay) is put back on it; the settling waits at least this long.
   */
  sweepAfterSeconds: number;
  /**
   * DELIVERY_VISIBILITY_TIMEOUT_SECONDS of the stack (AWS's 180 s when omitted): a message received
   * just before a kill, before the poller noted it in flight, stays hidden this long and is then
   * delivered; the settling waits at least this long, so that such a delivery counts as late, not lost.
   */
  visibilityTimeoutSeconds?: number;
  /** Requests after which the gone endpoint answers 410. */
  goneAfter: number;
  /**
   * API writes per second in the phases without faults (all organisations together); unpaced
   * (as fast as the API answers) when omitted. The same pace alone and beside the misbehaving
   * endpoints, below what the relay and the delivery worker sustain next to the API's own writes
   * on one DynamoDB Local, so that the comparison measures the neighbours, not a backlog the
   * driver made by outrunning the pipeline.
   */
  writesPerSecond?: number;
  log: (line: string) => void;
}

const EVENTS_PER_CYCLE = 10;
const WRITES_PER_CYCLE = 9;
const SLOW_MS = 8000;
/** Cycles of one organisation driven side by side. */
const STREAMS_PER_ORGANISATION = 2;
/**
 * How long a phase waits, at most, for the healthy endpoints to take every event so far, so that
 * the next phase (above all the kills) starts without their backlog.
 */
const DRAIN_MS = 120_000;
/** How long the settling waits with nothing new arriving before it reads the open deliveries' logs. */
const LOG_CHECK_MS = 10_000;
/** Around a fault, the time whose deliveries the faults phase's latency leaves out. */
const FAULT_WINDOW = { beforeMs: 1000, afterMs: 15_000 };

/** Which events each endpoint of the mixed organisation takes (a share for the slow and dead ones). */
const SUBSCRIPTIONS: Record<Behaviour, string[] | undefined> = {
  healthy: undefined,
  slow: ['member.created'],
  flaky: undefined,
  dead: ['contribution.received'],
  gone: undefined,
  closes: ['timebank.payout.settled'],
};

interface Fault {
  what: 'stack' | 'engine';
  at: number;
  backAt?: number;
}

interface Receipt {
  path: string;
  deliveryId: string;
  key: string;
  /** When the whole request had been read. */
  arrivedAt: number;
  /** When it was answered (the slow endpoint answers 8 s after its arrival). */
  at: number;
  /** The status line sent back (the closing endpoint sends 200 and then cuts its body short). */
  answered: number;
}

/** Local receivers, one path per endpoint; each request noted before it is answered. */
async function startReceivers(goneAfter: number) {
  const receipts: Receipt[] = [];
  const byPathAndKey = new Map<string, Receipt[]>();
  const counts = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const arrivedAt = Date.now();
      const path = request.url ?? '/';
      const n = counts.get(path) ?? 0;
      counts.set(path, n + 1);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      const event = String(body.event);
      const resource = Object.values(body).find(
        (v): v is { id: string } => typeof v === 'object' && v !== null && 'id' in v,
      );
      const behaviour = path.split('/')[1] as Behaviour;
      const note = (answered: number) => {
        const receipt: Receipt = {
          path,
          deliveryId: String(request.headers['x-service-delivery']),
          key: `${event}:${resource?.id}`,
          arrivedAt,
          at: Date.now(),
          answered,
        };
        receipts.push(receipt);
        const same = byPathAndKey.get(`${path} ${receipt.key}`);
        if (same) same.push(receipt);
        else byPathAndKey.set(`${path} ${receipt.key}`, [receipt]);
      };
      const reply = (status: number) => {
        note(status);
        response.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
      };
      switch (behaviour) {
        case 'healthy':
          return reply(200);
        case 'slow':
          return void setTimeout(() => reply(200), SLOW_MS);
        case 'flaky':
          return reply(Math.random() < 0.5 ? 500 : 200);
        case 'dead':
          return reply(503);
        case 'gone':
          return reply(n < goneAfter ? 200 : 410);
        case 'closes':
          // Noted like any other: the whole signed request was read before the 2xx status line went
          // out, so the subscriber has the event whatever the service makes of the cut-off body.
          note(200);
          response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
          response.write('partial');
          return void setTimeout(() => response.destroy(), 20);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const receivedAt = (path: string, key: string) => byPathAndKey.get(`${path} ${key}`) ?? [];
  return { origin, receipts, receivedAt, close: () => new Promise((r) => server.close(r)) };
}

interface Endpoint {
  id: string;
  organisationId: string;
  behaviour: Behaviour;
  path: string;
  events: string[] | undefined;
}

interface Organisation {
  id: string;
  token: string;
  mixed: boolean;
}

/** An acknowledged event: its key, organisation, when its write was acknowledged. */
interface Expected {
  key: string;
  organisationId: string;
  event: string;
  /** When the event was due: its write's acknowledgement, or the file's expiry. */
  ackAt: number;
  /** When the write the event comes from was acknowledged. */
  writtenAt: number;
  phase: Phase;
}

interface PhaseRun {
  phase: Phase;
  startedAt: number;
  drivenMs: number;
  events: number;
}

const eventsPerSecond = (run: PhaseRun) => run.events / (run.drivenMs / 1000);

/** The receiver read the whole request and sent a 2xx status line: the endpoint took the event. */
const isTaken = (r: Receipt) => r.answered >= 200 && r.answered < 300;

/** A turn every 1/rate seconds, shared by every caller: each awaits its own. */
function pacedAt(perSecond: number): () => Promise<void> {
  let next = Date.now();
  return async () => {
    const at = Math.max(next, Date.now());
    next = at + 1000 / perSecond;
    if (at > Date.now()) await pause(at - Date.now());
  };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runSoak(options: SoakOptions) {
  const { log } = options;
  const receivers = await startReceivers(options.goneAfter);
  const env = {
    WEBHOOK_RETRY_DELAYS: '1,1,1,1,1',
    TIMER_INTERVAL_SECONDS: '1',
    OUTBOX_SWEEP_AFTER_SECONDS: String(options.sweepAfterSeconds),
    DELIVERY_VISIBILITY_TIMEOUT_SECONDS: String(
      options.visibilityTimeoutSeconds ?? DELIVERY_QUEUE.visibilityTimeoutSeconds,
    ),
    POWERTOOLS_LOG_LEVEL: 'ERROR',
  };
  let stack: RunningStack = await startLocalStack(env, { ownProcessGroup: true });
  const dataDir = stack.dataDir;
  let base = stack.baseUrl;
  let up = true;
  try {
    return await soakAgainst();
  } finally {
    // Also when the soak fails: no stack or JVM is left behind.
    await stack.stop('SIGTERM');
    await receivers.close();
  }

  async function soakAgainst() {
    const organisations: Organisation[] = [];
    const endpoints: Endpoint[] = [];
    async function organisation(name: string, mixed: boolean, behaviours: Behaviour[]) {
      const org = await mis<{ id: string }>(
        dataDir,
        ...['org', 'create', '--name', name, '--tier', 'enterprise', '--rate-limit', '100000'],
      );
      const { token } = await mis<{ token: string }>(
        dataDir,
        ...['token', 'issue', '--org', org.id, '--scopes', 'read,write'],
      );
      for (const behaviour of behaviours) {
        const path = `/${behaviour}/${org.id}`;
        const events = mixed ? SUBSCRIPTIONS[behaviour] : undefined;
        const added = await mis<{ id: string }>(
          dataDir,
          ...['webhook', 'add', '--org', org.id, '--url', `${receivers.origin}${path}`],
          ...(events ? ['--events', events.join(',')] : []),
        );
        endpoints.push({ id: added.id, organisationId: org.id, behaviour, path, events });
      }
      organisations.push({ id: org.id, token, mixed });
    }
    for (let i = 0; i < options.healthyOrganisations; i++)
      await organisation(`Healthy ${i}`, false, ['healthy']);
    await organisation('Mixed', true, [...BEHAVIOURS]);

    const expected: Expected[] = [];
    let engineKilledAt: number | undefined;
    let unavailableAnswers = 0;

    /** POSTs until acknowledged (201, or 200 for an incident's move): the same Idempotency-Key across kills, restarts and 503s. */
    async function write(
      org: Organisation,
      path: string,
      body: unknown | (() => unknown),
    ): Promise<{ id: string; ackAt: number }> {
      await pacer?.();
      let key = randomUUID();
      let payload = typeof body === 'function' ? body() : body;
      for (let tries = 0; ; tries++) {
        if (!up) {
          await pause(200);
          continue;
        }
        try {
          const response = await fetch(`${base}${path}`, {
            method: 'POST',
            headers: {
              Authorization: `Bearer ${org.token}`,
              'Content-Type': 'application/json',
              'Idempotency-Key': key,
            },
            body: JSON.stringify(payload),
            signal: AbortSignal.timeout(30_000),
          });
          const text = await response.text();
          if (response.status === 201 || response.status === 200)
            return { id: (JSON.parse(text) as { id: string }).id, ackAt: Date.now() };
          if (response.status === 503) unavailableAnswers += 1;
          else if (response.status === 400 && typeof body === 'function') {
            // Never acknowledged, and its expiry passed during an outage: a new request, a new key.
            key = randomUUID();
            payload = body();
          } else if (response.status < 500 && response.status !== 429 && response.status !== 409)
            throw new Error(`POST ${path}: ${response.status} ${text}`);
        } catch (error) {
          if (error instanceof Error && error.message.startsWith('POST ')) throw error;
        }
        if (tries > 600) throw new Error(`POST ${path} was never acknowledged`);
        await pause(250);
      }
    }

    function expect(
      org: Organisation,
      event: string,
      id: string,
      ackAt: number,
      phase: Expected['phase'],
      writtenAt = ackAt,
    ) {
      expected.push({ key: `${event}:${id}`, organisationId: org.id, event, ackAt, writtenAt, phase });
    }

    /** One cycle: all nine kinds of event, ten events from nine writes. */
    async function cycle(org: Organisation, phase: Expected['phase']) {
      const member = await write(org, '/members', { membershipType: 'regular', region: 'north' });
      expect(org, 'member.created', member.id, member.ackAt, phase);
      const contribution = await write(org, '/contributions', { amount: { value: '5.00', currency: 'EUR' } });
      expect(org, 'contribution.received', contribution.id, contribution.ackAt, phase);
      const payout = await write(org, '/timebank/payouts', { memberId: member.id, hours: 1.5 });
      expect(org, 'timebank.payout.settled', payout.id, payout.ackAt, phase);
      const file = await write(org, '/sanctuary/files', () => ({
        name: 'minutes.pdf',
        expiresAt: new Date(Date.now() + 3000).toISOString(),
      }));
      expect(org, 'sanctuary.file.expired', file.id, file.ackAt + 3000, phase, file.ackAt);
      // Past the 60-hour mark and left open: its deadline alarm fires at once.
      const overdue = await write(org, '/incidents', {
        severity: 'high',
        category: 'confidentiality',
        detectedAt: new Date(Date.now() - 61 * 3600_000).toISOString(),
        title: 'Soak',
      });
      expect(org, 'incident.declared', overdue.id, overdue.ackAt, phase);
      expect(org, 'incident.deadline_72h', overdue.id, overdue.ackAt, phase);
      const contained = await write(org, `/incidents/${overdue.id}/contain`, { note: 'contained' });
      expect(org, 'incident.contained', overdue.id, contained.ackAt, phase);
      const recent = await write(org, '/incidents', {
        severity: 'low',
        category: 'availability',
        detectedAt: new Date().toISOString(),
        title: 'Soak',
      });
      expect(org, 'incident.declared', recent.id, recent.ackAt, phase);
      const notified = await write(org, `/incidents/${recent.id}/notify`, { authorityReference: 'DPA-1' });
      expect(org, 'incident.notified', recent.id, notified.ackAt, phase);
      const closed = await write(org, `/incidents/${recent.id}/close`, { note: 'closed' });
      expect(org, 'incident.closed', recent.id, closed.ackAt, phase);
    }

    /** Spaces the phase's writes (all streams together) when it is paced. */
    let pacer: (() => Promise<void>) | undefined;

    async function drive(orgs: Organisation[], cycles: number, phase: Expected['phase']) {
      await Promise.all(
        orgs.flatMap((org) =>
          Array.from({ length: STREAMS_PER_ORGANISATION }, async (_, stream) => {
            for (let i = stream; i < cycles; i += STREAMS_PER_ORGANISATION) await cycle(org, phase);
          }),
        ),
      );
    }

    const healthyEndpoints = endpoints.filter((e) => e.behaviour === 'healthy');
    /** Waits until every healthy endpoint has taken every event so far (at most DRAIN_MS); answers how many it has not. */
    async function drainHealthy(): Promise<number> {
      let waiting = expectedPairs(expected, healthyEndpoints);
      const deadline = Date.now() + DRAIN_MS;
      for (;;) {
        waiting = waiting.filter((p) => !receivers.receivedAt(p.endpoint.path, p.expected.key).some(isTaken));
        if (waiting.length === 0 || Date.now() > deadline) return waiting.length;
        await pause(500);
      }
    }

    const phases: PhaseRun[] = [];
    /**
     * Drives one phase, with `alongside` (the faults) running meanwhile; waits for the healthy
     * endpoints' backlog unless the settling follows.
     */
    async function runPhase(
      phase: Phase,
      orgs: Organisation[],
      alongside?: (startedAt: number, driving: () => boolean) => Promise<void>,
    ) {
      const startedAt = Date.now();
      const before = expected.length;
      let drivenAt: number | undefined;
      pacer = phase !== 'faults' && options.writesPerSecond ? pacedAt(options.writesPerSecond) : undefined;
      const driven = drive(orgs, options.cycles[phase], phase).finally(() => {
        drivenAt = Date.now();
        pacer = undefined;
      });
      // Both settle before a failure is thrown: a kill must not restart the stack after the soak stopped it.
      const outcomes = await Promise.allSettled([
        driven,
        alongside?.(startedAt, () => drivenAt === undefined),
      ]);
      for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
      const run: PhaseRun = {
        phase,
        startedAt,
        drivenMs: (drivenAt ?? Date.now()) - startedAt,
        events: expected.length - before,
      };
      phases.push(run);
      log(
        `  ${run.events} events acknowledged in ${(run.drivenMs / 1000).toFixed(0)} s (${eventsPerSecond(run).toFixed(1)}/s)`,
      );
      if (phase === 'faults') return;
      const waiting = await drainHealthy();
      if (waiting > 0)
        log(`  the healthy endpoints had not taken ${waiting} events ${DRAIN_MS / 1000} s later`);
    }

    const faults: Fault[] = [];
    /** The planned kills, each at a random moment within its slice of the faults phase's expected length. */
    async function injectFaults(startedAt: number, driving: () => boolean) {
      // The neighbours phase drove the same organisations without faults: its pace sets the estimate.
      const neighbours = phases.find((p) => p.phase === 'neighbours');
      const estimated = Math.max(
        20_000,
        ((neighbours?.drivenMs ?? 0) * options.cycles.faults) / Math.max(1, options.cycles.neighbours),
      );
      const plan: Fault['what'][] = [
        ...Array.from({ length: options.stackKills }, () => 'stack' as const),
        ...(options.engineKill ? ['engine' as const] : []),
      ];
      const slice = estimated / Math.max(1, plan.length);
      // A restart stalls the driving: the time the stack was down does not count towards the slices.
      let downMs = 0;
      for (const [i, what] of plan.entries()) {
        const at = startedAt + downMs + slice * i + slice * (0.2 + 0.6 * Math.random());
        // Driving may end first (short runs): the kill then comes while deliveries are under way.
        while (Date.now() < at && driving()) await pause(100);
        const fault: Fault = { at: Date.now(), what };
        faults.push(fault);
        const when = () => `+${((Date.now() - startedAt) / 1000).toFixed(1)} s`;
        if (what === 'stack') {
          up = false;
          await stack.stop('SIGKILL', { group: true });
          log(`  SIGKILL of the stack's process group at ${when()}`);
          stack = await startLocalStack({ ...env, DATA_DIR: dataDir }, { ownProcessGroup: true });
          base = stack.baseUrl;
          up = true;
        } else {
          const pid = Number(readFileSync(join(dataDir, 'dynamodb', 'dynamodb-local.pid'), 'utf8'));
          engineKilledAt = Date.now();
          process.kill(pid, 'SIGKILL');
          log(`  SIGKILL of DynamoDB Local alone at ${when()}`);
        }
        fault.backAt = Date.now();
        downMs += fault.backAt - fault.at;
      }
    }

    const started = Date.now();
    const healthyOrgs = organisations.filter((o) => !o.mixed);
    log(`phase warm-up: the healthy organisations only, ${options.cycles['warm-up']} cycles each`);
    await runPhase('warm-up', healthyOrgs);
    log(`phase alone: the healthy organisations only, ${options.cycles.alone} cycles each, no faults`);
    await runPhase('alone', healthyOrgs);
    log(`phase neighbours: every organisation, ${options.cycles.neighbours} cycles each, no faults`);
    await runPhase('neighbours', organisations);
    log(`phase faults: every organisation, ${options.cycles.faults} cycles each, with the kills`);
    await runPhase('faults', organisations, injectFaults);
    const drivenMs = Date.now() - started;
    log(
      `${expected.length} events acknowledged in ${(drivenMs / 1000).toFixed(0)} s; waiting for deliveries to settle`,
    );

    // Settled: every expected (endpoint, event) has a final answer, or nothing new arrives for a while.
    const pairs = expectedPairs(expected, endpoints);
    let lastCount = -1;
    let quietSince = Date.now();
    const quietMs = Math.max(
      45_000,
      // A record the stream lost with no later event relayed is replayed only after this many thresholds.
      (options.sweepAfterSeconds * NO_PROGRESS_THRESHOLDS + 20) * 1000,
      (Number(env.DELIVERY_VISIBILITY_TIMEOUT_SECONDS) + 20) * 1000,
    );
    const settling = Date.now();
    let open = pairs;
    let logReadAt = 0;
    while (Date.now() - quietSince < quietMs) {
      const count = receivers.receipts.length;
      if (count !== lastCount) {
        lastCount = count;
        quietSince = Date.now();
      }
      const disabled = new Set(receivers.receipts.filter((r) => r.answered === 410).map((r) => r.path));
      open = open.filter(
        (p) => !final(receivers.receivedAt(p.endpoint.path, p.expected.key), disabled.has(p.endpoint.path)),
      );
      // An attempt cut off by a kill before its request reached the endpoint still spends one of the
      // six: such a delivery ends logged failed with fewer than six receipts, which only its log
      // shows, or, when the kill took its sixth, in the dead-letter queue without a failed entry.
      if (
        open.length > 0 &&
        Date.now() - quietSince >= LOG_CHECK_MS &&
        Date.now() - logReadAt >= LOG_CHECK_MS
      ) {
        logReadAt = Date.now();
        const logged = await deliveryLogs(base, organisations, [...new Set(open.map((p) => p.endpoint))]);
        const dlq = await deadLettered(dataDir);
        const failed = open.filter((p) => {
          const id = receivers.receivedAt(p.endpoint.path, p.expected.key)[0]?.deliveryId;
          if (id === undefined) return false;
          return (
            dlq.has(id) ||
            logged.get(p.endpoint.id)?.some((l) => l.deliveryId === id && l.outcome === 'failed')
          );
        });
        if (failed.length > 0) {
          const receipts = failed.map((p) => receivers.receivedAt(p.endpoint.path, p.expected.key).length);
          log(
            `  ${failed.length} deliveries failed (logged or dead-lettered) after fewer than 6 requests arrived (${receipts.join(', ')})`,
          );
          open = open.filter((p) => !failed.includes(p));
        }
        // Nothing will ever come for an event whose write the engine kill took: not worth the wait.
        const gone = await writesTheEngineLost(
          dataDir,
          open.map((p) => p.expected),
          engineKilledAt,
        );
        open = open.filter((p) => !gone.has(p.expected.key));
      }
      if (open.length === 0) break;
      await pause(2000);
    }
    const openAt = BEHAVIOURS.flatMap((b) => {
      const n = open.filter((p) => p.endpoint.behaviour === b).length;
      return n > 0 ? [`${b} ${n}`] : [];
    });
    log(
      `  ${open.length === 0 ? 'every delivery final' : `${open.length} deliveries not final (${openAt.join(', ')}), nothing new for ${quietMs / 1000} s`} after ${((Date.now() - settling) / 1000).toFixed(0)} s`,
    );
    // The last attempt's message reaches the dead-letter queue at its next receive.
    await pause(10_000);
    const dlq = await deadLettered(dataDir);
    const overdueOutbox = await mis<unknown[]>(dataDir, 'outbox', 'overdue', '--older-than', '30');
    const logged = await deliveryLogs(base, organisations, endpoints);
    const figures = account({
      expected,
      endpoints,
      receipts: receivers.receipts,
      dlq,
      logged,
      absent: await writesTheEngineLost(dataDir, expected, engineKilledAt),
      faults,
    });
    const settledAt = Date.now();
    const faultsStartedAt = phases.find((p) => p.phase === 'faults')?.startedAt ?? started;
    return {
      events: expected.length,
      organisations: organisations.length,
      drivenSeconds: drivenMs / 1000,
      phases: phases.map((run, i) => {
        // What each endpoint was sent from this phase's start to the next one's (the settling for the last).
        const until = phases[i + 1]?.startedAt ?? settledAt;
        const requests = receivers.receipts.filter(
          (r) => r.arrivedAt >= run.startedAt && r.arrivedAt < until,
        );
        return {
          phase: run.phase,
          cycles: options.cycles[run.phase],
          events: run.events,
          drivenSeconds: run.drivenMs / 1000,
          eventsPerSecond: eventsPerSecond(run),
          writesPerSecond: (eventsPerSecond(run) * WRITES_PER_CYCLE) / EVENTS_PER_CYCLE,
          requests: Object.fromEntries(
            BEHAVIOURS.map((b) => [b, requests.filter((r) => r.path.startsWith(`/${b}/`)).length]),
          ) as Record<Behaviour, number>,
        };
      }),
      faults: faults.map((f) => ({ what: f.what, atSeconds: (f.at - faultsStartedAt) / 1000 })),
      faultWindowSeconds: { before: FAULT_WINDOW.beforeMs / 1000, after: FAULT_WINDOW.afterMs / 1000 },
      unavailableAnswers,
      overdueOutbox: overdueOutbox.length,
      ...figures,
    };
  }
}

function expectedPairs(expected: Expected[], endpoints: Endpoint[]) {
  return endpoints.flatMap((endpoint) =>
    expected
      .filter(
        (e) => e.organisationId === endpoint.organisationId && (endpoint.events?.includes(e.event) ?? true),
      )
      .map((e) => ({ endpoint, expected: e })),
  );
}

/**
 * A pair is final once its endpoint took it (a 2xx status line, cut-off body or not) or its
 * endpoint answered 410 (it is disabled: the rest is logged skipped). Six requests are not final:
 * a delivery published twice (a relay batch read again after a kill) has two messages, each with
 * its six attempts; the settling reads the log and the dead-letter queue for those.
 */
function final(receipts: Receipt[], endpointAnswered410: boolean): boolean {
  return endpointAnswered410 || receipts.some(isTaken);
}

/** One delivery-log entry (GET /webhooks/{id}/deliveries), the fields the accounting reads. */
interface LoggedOutcome {
  deliveryId: string;
  eventId: string;
  attempt: number;
  at: string;
  outcome: string;
  statusCode?: number;
  errorClass?: string;
}

/** The incident's history status each move leaves. */
const MOVED_TO: Record<string, string> = {
  'incident.contained': 'contained',
  'incident.notified': 'notified',
  'incident.closed': 'closed',
};

/** The item an event's write left in the table (and, for a move, the status its history must hold). */
function writtenItem(e: Expected): { key: { pk: string; sk: string }; status?: string } {
  const id = e.key.slice(e.key.indexOf(':') + 1);
  const org = e.organisationId;
  if (e.event === 'member.created') return { key: keys.member(org, id) };
  if (e.event === 'contribution.received') return { key: keys.contribution(org, id) };
  if (e.event === 'timebank.payout.settled') return { key: keys.timebankPayout(org, id) };
  if (e.event === 'sanctuary.file.expired') return { key: keys.sanctuaryFile(org, id) };
  const status = MOVED_TO[e.event];
  return { key: keys.incident(org, id), ...(status ? { status } : {}) };
}

/**
 * A kill of DynamoDB Local's process can lose a write it acknowledged in its last moments. Of the
 * events whose write was acknowledged within a second of that kill, those whose write is not in the
 * table (the resource is gone, or an incident's history lacks the move): counted apart from lost.
 */
async function writesTheEngineLost(
  dataDir: string,
  expected: Expected[],
  engineKilledAt: number | undefined,
): Promise<Set<string>> {
  const absent = new Set<string>();
  if (engineKilledAt === undefined) return absent;
  const near = expected.filter((e) => Math.abs(e.writtenAt - engineKilledAt) < 1000);
  const info = readStackInfo(dataDir);
  if (!info || near.length === 0) return absent;
  const client = new DynamoDBClient({
    endpoint: info.dynamodbEndpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    for (const e of near) {
      const { key, status } = writtenItem(e);
      const { Item } = await client.send(
        new GetItemCommand({ TableName: info.tableName, Key: marshall(key), ConsistentRead: true }),
      );
      const item = Item ? unmarshall(Item) : undefined;
      const history = (item?.history ?? []) as { status: string }[];
      if (!item || (status && !history.some((h) => h.status === status))) absent.add(e.key);
    }
  } finally {
    client.destroy();
  }
  return absent;
}

/** The delivery ids in the dead-letter queue, as the operator CLI lists them. */
async function deadLettered(dataDir: string): Promise<Set<string>> {
  const listed = await mis<{ deliveryId?: string }[]>(dataDir, 'dlq', 'list');
  return new Set(listed.flatMap((d) => (d.deliveryId ? [d.deliveryId] : [])));
}

/** The delivery log of every endpoint, through the API as an integrator reads it. */
async function deliveryLogs(base: string, organisations: Organisation[], endpoints: Endpoint[]) {
  const byEndpoint = new Map<string, LoggedOutcome[]>();
  for (const endpoint of endpoints) {
    const token = organisations.find((o) => o.id === endpoint.organisationId)?.token ?? '';
    const all: LoggedOutcome[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const response = await fetch(`${base}/webhooks/${endpoint.id}/deliveries?${query}`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      if (response.status !== 200) break;
      const page = (await response.json()) as {
        items?: LoggedOutcome[];
        data?: LoggedOutcome[];
        nextCursor: string | null;
      };
      all.push(...(page.items ?? page.data ?? []));
      cursor = page.nextCursor;
    } while (cursor);
    byEndpoint.set(endpoint.id, all);
  }
  return byEndpoint;
}

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

/** What is known of one unaccounted event at one endpoint: where the next person starts. */
interface LossDiagnosis {
  key: string;
  phase: Phase;
  /** Seconds from each fault to the event's acknowledgement (negative: acknowledged before it). */
  ackSecondsFromFaults: { what: Fault['what']; seconds: number }[];
  /** The requests this endpoint received for it: their status lines, seconds after the acknowledgement. */
  receipts: { count: number; answered: number[]; secondsAfterAck: number[] };
  deliveryId: string | undefined;
  /** From a receipt here, or derived from its event id as another endpoint's log shows it. */
  deliveryIdFrom: 'receipt' | 'event id' | undefined;
  /** This delivery's log entries: attempt, outcome, status, seconds after the acknowledgement. */
  logged: string[];
  inDlq: boolean;
  /** The other endpoints of the organisation that received it, with the status they answered. */
  elsewhere: string[];
}

/** How far apart two acknowledgements, or a receipt and an acknowledgement, are, in seconds. */
const secondsAfter = (t: number, from: number) => Math.round((t - from) / 100) / 10;

function account(input: {
  expected: Expected[];
  endpoints: Endpoint[];
  receipts: Receipt[];
  dlq: Set<string>;
  logged: Map<string, LoggedOutcome[]>;
  /** Keys whose write, acknowledged as DynamoDB Local was killed, is not in the table. */
  absent: Set<string>;
  faults: Fault[];
}) {
  // Every delivery id of an event derives from its event id and the endpoint's id (the relay's
  // deliveryIdFor); a receipt ties a delivery id to the event's key, the log ties it to the event
  // id. So an event that reached any endpoint names its delivery to every other one, also one that
  // was never sent (skipped) or never arrived.
  const receiptsByKey = new Map<string, Receipt[]>();
  for (const r of input.receipts) receiptsByKey.set(r.key, [...(receiptsByKey.get(r.key) ?? []), r]);
  const keyOfDelivery = new Map(input.receipts.map((r) => [r.deliveryId, r.key]));
  const eventIdOfKey = new Map<string, string>();
  const keyOfEventId = new Map<string, string>();
  for (const entries of input.logged.values())
    for (const l of entries) {
      const key = keyOfDelivery.get(l.deliveryId);
      if (key === undefined) continue;
      eventIdOfKey.set(key, l.eventId);
      keyOfEventId.set(l.eventId, key);
    }
  const behaviourAt = new Map(input.endpoints.map((e) => [e.path, e.behaviour]));

  const rows = input.endpoints.map((endpoint) => {
    const mine = input.expected.filter(
      (e) => e.organisationId === endpoint.organisationId && (endpoint.events?.includes(e.event) ?? true),
    );
    const expectedKeys = new Set(mine.map((e) => e.key));
    const receipts = input.receipts.filter((r) => r.path === endpoint.path);
    const receiptsOf = new Map<string, Receipt[]>();
    for (const r of receipts) receiptsOf.set(r.key, [...(receiptsOf.get(r.key) ?? []), r]);
    const succeeded = receipts.filter(isTaken);
    const firstTaken = new Map<string, Receipt>();
    for (const r of succeeded) if (!firstTaken.has(r.key)) firstTaken.set(r.key, r);
    const entries = new Map<string, LoggedOutcome[]>();
    for (const l of input.logged.get(endpoint.id) ?? [])
      entries.set(l.deliveryId, [...(entries.get(l.deliveryId) ?? []), l]);
    const deliveryIdOf = (key: string) => {
      const received = receiptsOf.get(key)?.[0]?.deliveryId;
      if (received) return { id: received, from: 'receipt' as const };
      const eventId = eventIdOfKey.get(key);
      return eventId ? { id: deliveryIdFor(eventId, endpoint.id), from: 'event id' as const } : undefined;
    };
    const loggedAs = (id: string | undefined, ...outcomes: string[]) =>
      id !== undefined && (entries.get(id) ?? []).some((l) => outcomes.includes(l.outcome));

    // Delivered: the receiver read the whole request and answered a 2xx status line (also when it
    // then cut the connection, so a log write lost to the engine kill does not make it lost), or the
    // service logged it succeeded.
    const delivered = mine.filter(
      (e) => firstTaken.has(e.key) || loggedAs(deliveryIdOf(e.key)?.id, 'succeeded'),
    );
    const deliveredKeys = new Set(delivered.map((e) => e.key));
    // Dead-lettered, logged failed, or the 410 that disabled the endpoint (logged endpoint_disabled):
    // a final answer, each recoverable by `recover`.
    const dlqOrFailed = mine.filter((e) => {
      if (deliveredKeys.has(e.key)) return false;
      const id = deliveryIdOf(e.key)?.id;
      return id !== undefined && (input.dlq.has(id) || loggedAs(id, 'failed', 'endpoint_disabled'));
    });
    const settledKeys = new Set([...deliveredKeys, ...dlqOrFailed.map((e) => e.key)]);
    const unsettled = mine.filter((e) => !settledKeys.has(e.key));
    // Skipped (a disabled endpoint is sent nothing; the delivery is logged, to be recovered): a
    // skipped delivery was never POSTed, so no receipt names its key; it is counted by delivery id.
    // Not counted: one whose delivery also succeeded, failed or was taken (a receipt), one already
    // counted above, and one whose event (seen at another endpoint) this endpoint did not expect.
    const taken = new Set(succeeded.map((r) => r.deliveryId));
    const settledIds = new Set([...settledKeys].flatMap((key) => deliveryIdOf(key)?.id ?? []));
    const skippedIds = new Set(
      [...entries]
        .filter(
          ([id, list]) =>
            list.some((l) => l.outcome === 'skipped') &&
            !list.some((l) => ['succeeded', 'failed', 'endpoint_disabled'].includes(l.outcome)) &&
            !taken.has(id) &&
            !input.dlq.has(id) &&
            !settledIds.has(id),
        )
        .map(([id]) => id),
    );
    const skippedNotExpected = [...skippedIds].filter((id) => {
      const key = keyOfEventId.get(entries.get(id)?.[0]?.eventId ?? '');
      return key !== undefined && !expectedKeys.has(key);
    }).length;
    const skipped = skippedIds.size - skippedNotExpected;
    // The keys that are not (known to be) skipped; an event that reached no other endpoint cannot
    // be matched to its skipped entry, so these may be more than the count says.
    const unmatched = unsettled.filter((e) => !skippedIds.has(deliveryIdOf(e.key)?.id ?? ''));
    const nearEngineKill = (e: Expected) => input.absent.has(e.key);
    const absentAfterEngineKill = unmatched.filter(nearEngineKill).length;
    const unaccounted = unsettled.length - skipped - absentAfterEngineKill;
    const lost = Math.max(0, unaccounted);
    const problems: string[] = [];
    if (unaccounted < 0)
      problems.push(
        `expected − delivered − DLQ/failed − skipped − absent = ${unaccounted}: ${skipped} deliveries logged skipped, ` +
          `only ${unsettled.length} expected events neither delivered nor failed`,
      );
    const suspects = unmatched.filter((e) => !nearEngineKill(e));
    const notes: string[] = [];
    if (lost > 0 && suspects.length !== lost)
      notes.push(
        `${suspects.length} unaccounted keys for ${lost} lost: some skipped entries match no key (their event reached no other endpoint)`,
      );
    if (skippedNotExpected > 0)
      notes.push(
        `${skippedNotExpected} skipped deliveries of events the soak never saw acknowledged (left out of the count)`,
      );

    const diagnose = (e: Expected): LossDiagnosis => {
      const here = receiptsOf.get(e.key) ?? [];
      const delivery = deliveryIdOf(e.key);
      return {
        key: e.key,
        phase: e.phase,
        ackSecondsFromFaults: input.faults.map((f) => ({
          what: f.what,
          seconds: secondsAfter(e.ackAt, f.at),
        })),
        receipts: {
          count: here.length,
          answered: here.map((r) => r.answered),
          secondsAfterAck: here.map((r) => secondsAfter(r.at, e.ackAt)),
        },
        deliveryId: delivery?.id,
        deliveryIdFrom: delivery?.from,
        logged: (entries.get(delivery?.id ?? '') ?? []).map(
          (l) =>
            `#${l.attempt} ${l.outcome}${l.statusCode ? ` ${l.statusCode}` : ''}${l.errorClass ? ` ${l.errorClass}` : ''} ` +
            `at +${secondsAfter(Date.parse(l.at), e.ackAt)} s`,
        ),
        inDlq: delivery !== undefined && input.dlq.has(delivery.id),
        elsewhere: (receiptsByKey.get(e.key) ?? [])
          .filter((r) => r.path !== endpoint.path)
          .map((r) => `${behaviourAt.get(r.path) ?? r.path} ${r.answered}`),
      };
    };

    const inFaultWindow = (t: number) =>
      input.faults.some(
        (f) => t >= f.at - FAULT_WINDOW.beforeMs && t <= (f.backAt ?? f.at) + FAULT_WINDOW.afterMs,
      );
    // Commit acknowledged → first 2xx receipt; a file's expiry is due 3 s after its write, at the
    // timer's next tick, so its events are left out. Only the faults phase has faults: there, what
    // was committed or received around one is left out (the backlog a kill makes is not a neighbour's).
    const latencies = (phase: Phase) =>
      mine
        .filter((e) => e.phase === phase && !e.event.startsWith('sanctuary'))
        .flatMap((e) => {
          const first = firstTaken.get(e.key);
          if (!first) return [];
          if (phase === 'faults' && (inFaultWindow(e.ackAt) || inFaultWindow(first.at))) return [];
          return [first.at - e.ackAt];
        });
    return {
      behaviour: endpoint.behaviour,
      organisation: endpoint.organisationId.slice(0, 8),
      expected: mine.length,
      delivered: delivered.length,
      duplicates: succeeded.length - firstTaken.size,
      duplicatesWithSameDeliveryId: receipts.every(
        (r) => r.deliveryId === receiptsOf.get(r.key)?.[0]?.deliveryId,
      ),
      dlqOrLoggedFailed: dlqOrFailed.length,
      /** It answered 410 at least once (and was disabled). */
      answered410: receipts.some((r) => r.answered === 410),
      skippedLogged: skipped,
      absentAfterEngineKill,
      lost,
      lostKeys: lost > 0 ? suspects.slice(0, 5).map((e) => e.key) : [],
      lossDiagnoses: lost > 0 ? suspects.slice(0, 5).map(diagnose) : [],
      /** Where the columns do not add up. */
      problems,
      notes,
      latencies: endpoint.behaviour === 'healthy' ? PHASES.map((phase) => latencies(phase)) : [],
    };
  });
  const healthy = rows.filter((r) => r.behaviour === 'healthy');
  const summary = (values: number[]) => ({
    count: values.length,
    p50Ms: percentile(values, 50),
    p99Ms: percentile(values, 99),
  });
  return {
    endpoints: rows.map(({ latencies, ...rest }) => rest),
    /** Healthy endpoints, commit acknowledged → first 2xx receipt, per phase. */
    healthyLatency: Object.fromEntries(
      PHASES.map((phase, i) => [phase, summary(healthy.flatMap((r) => r.latencies[i] ?? []))]),
    ) as Record<Phase, ReturnType<typeof summary>>,
  };
}
