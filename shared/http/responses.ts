import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

/**
 * The URL path of a new resource, under the path the client called: `requestContext.path` keeps the
 * stage of a stage URL and the base path of a custom domain, which `path` does not always have.
 */
export function locationOf(event: APIGatewayProxyEvent, id: string): string {
  const collection = (event.requestContext.path || event.path).replace(/\/+$/, '');
  return `${collection}/${encodeURIComponent(id)}`;
}

export function jsonResponse(
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers },
    body: JSON.stringify(body),
  };
}
