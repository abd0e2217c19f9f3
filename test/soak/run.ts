import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { table } from '../bench/report.js';
import { runSoak } from './soak.js';

/**
 * `npm run soak`: the full soak (about 5,000 events over five organisations, three SIGKILLs of the
 * stack's process group, one of DynamoDB Local alone): about 10 minutes on a quiet 2-core machine,
 * where DynamoDB Local's pace through the API (printed) is the limit; a busy machine takes longer.
 * SOAK_CYCLES scales it: each cycle is 10 events per organisation.
 */
const cyclesTogether = Number(process.env.SOAK_CYCLES || 87);
const result = await runSoak({
  cyclesAlone: Math.max(2, Math.round(cyclesTogether / 5)),
  cyclesTogether,
  healthyOrganisations: 4,
  stackKills: 3,
  engineKill: true,
  goneAfter: 30,
  sweepAfterSeconds: 60,
  log: (line) => console.log(line),
});

const ms = (v: number) => (Number.isNaN(v) ? '-' : `${Math.round(v)} ms`);
console.log(
  [
    '',
    `Soak: ${result.events} events acknowledged across ${result.organisations} organisations in ${result.drivenSeconds.toFixed(0)} s ` +
      `(${result.writesPerSecond.toFixed(1)} API writes/s with the faults; ${result.aloneEventsPerSecond.toFixed(1)} events/s without, DynamoDB Local's pace); ` +
      `faults: ${result.faults.map((f) => `${f.what} kill at +${f.atSeconds.toFixed(0)} s`).join(', ')}; ` +
      `503 answers meanwhile: ${result.unavailableAnswers}; outbox items still unrelayed: ${result.overdueOutbox}`,
    '',
    table(
      [
        'endpoint',
        'org',
        'expected',
        'delivered',
        'duplicates',
        'same id',
        'DLQ/failed',
        'not sent: disabled',
        'absent after engine kill',
        'lost',
      ],
      result.endpoints.map((r) => [
        r.behaviour,
        r.organisation,
        r.expected,
        r.delivered,
        r.duplicates,
        r.duplicatesWithSameDeliveryId ? 'yes' : 'NO',
        r.dlqOrLoggedFailed,
        r.notSentEndpointDisabled,
        r.absentAfterEngineKill,
        r.lost,
      ]),
    ),
    '',
    `Healthy endpoints, committed → received (outside the fault windows): ` +
      `alone p50 ${ms(result.healthyLatency.alone.p50Ms)} p99 ${ms(result.healthyLatency.alone.p99Ms)} (${result.healthyLatency.alone.count}); ` +
      `with misbehaving neighbours p50 ${ms(result.healthyLatency.withNeighbours.p50Ms)} p99 ${ms(result.healthyLatency.withNeighbours.p99Ms)} (${result.healthyLatency.withNeighbours.count})`,
    `Lost: ${result.endpoints.reduce((n, r) => n + r.lost, 0)}${
      result.endpoints.some((r) => r.lost > 0)
        ? ` (e.g. ${result.endpoints
            .flatMap((r) => r.lostKeys)
            .slice(0, 5)
            .join(', ')})`
        : ''
    }`,
  ].join('\n'),
);
mkdirSync('.bench', { recursive: true });
writeFileSync(
  join('.bench', 'soak.json'),
  JSON.stringify({ at: new Date().toISOString(), ...result }, null, 2),
);
process.exit(result.endpoints.some((r) => r.lost > 0) ? 1 : 0);
