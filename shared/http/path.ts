import type { APIGatewayProxyEvent } from 'aws-lambda';
import { NotFoundError } from '../domain/errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A resource id from the path; anything that is not a UUID cannot name a resource, so it is a 404. */
export function pathId(event: APIGatewayProxyEvent, what: string): string {
  const id = event.pathParameters?.id;
  if (!id || !UUID.test(id)) throw new NotFoundError(what);
  return id.toLowerCase();
}
