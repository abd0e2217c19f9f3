/**
 * Only new outbox items reach the relay. Lambda's event source mapping filters the stream with this
 * pattern on AWS, and the local stream poller applies the same one.
 */
export const OUTBOX_STREAM_FILTER = {
  eventName: ['INSERT'],
  dynamodb: { NewImage: { kind: { S: ['outbox'] } } },
} as const;
