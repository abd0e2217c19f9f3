import { DEADLINE_ALARM_AFTER_MS, type Incident } from './incident.js';
import type { SanctuaryFile } from './sanctuary-file.js';
import type { WebhookEventName } from './webhook-events.js';

/**
 * Work due at a point in time: the 72-hour deadline alarm of an incident, the expiry of a file.
 * Each timer fires once, when `dueAt` has passed, by emitting its event.
 */
export const TIMER_EVENTS = {
  'incident-deadline': 'incident.deadline_72h',
  'file-expiry': 'sanctuary.file.expired',
} as const satisfies Record<string, WebhookEventName>;

export type TimerKind = keyof typeof TIMER_EVENTS;

export interface Timer {
  kind: TimerKind;
  organisationId: string;
  /** The incident or file the timer is for. */
  resourceId: string;
  /** UTC ISO 8601 with milliseconds, so that string order is time order. */
  dueAt: string;
}

/**
 * Timers are spread over a few index partitions so that no single partition takes every timer
 * write; the timers function reads all of them, a fixed number of Queries per run.
 */
export const TIMER_SHARDS = 4;

export function timerShard(resourceId: string): number {
  return (Number.parseInt(resourceId.slice(0, 2), 16) || 0) % TIMER_SHARDS;
}

export function deadlineTimer(incident: Incident): Timer {
  return {
    kind: 'incident-deadline',
    organisationId: incident.organisationId,
    resourceId: incident.id,
    dueAt: new Date(Date.parse(incident.detectedAt) + DEADLINE_ALARM_AFTER_MS).toISOString(),
  };
}

export function expiryTimer(organisationId: string, file: SanctuaryFile): Timer {
  return { kind: 'file-expiry', organisationId, resourceId: file.id, dueAt: file.expiresAt };
}

export function isDue(timer: Timer, now: Date): boolean {
  return timer.dueAt <= now.toISOString();
}
