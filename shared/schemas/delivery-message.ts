import * as z from 'zod/mini';
import {
  DELIVERY_EVENT_NAMES,
  type DeliveryEventName,
  type DeliveryMessage,
} from '../domain/webhook-events.js';

const id = () => z.string().check(z.minLength(1), z.maxLength(200));

/** The SQS message body (the relay's EventBridge detail). Not part of the public interface. */
const deliveryMessageSchema = z.object({
  deliveryId: id(),
  endpointId: id(),
  eventId: id(),
  event: z.enum(DELIVERY_EVENT_NAMES as [DeliveryEventName, ...DeliveryEventName[]]),
  organisationId: id(),
  occurredAt: z.string(),
  data: z.record(z.string(), z.unknown()),
  once: z.optional(z.boolean()),
  resent: z.optional(z.boolean()),
});

/** The message, or undefined when the body is not JSON of that shape. */
export function parseDeliveryMessage(body: string): DeliveryMessage | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  const parsed = deliveryMessageSchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}
