import { createHash } from 'node:crypto';

/**
 * One id per event and endpoint, derived rather than random: if the relay runs twice for the same
 * outbox record, the subscriber still sees one delivery id and can drop the duplicate.
 */
export function deliveryIdFor(eventId: string, endpointId: string): string {
  const hex = createHash('sha256').update(`${eventId}:${endpointId}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
