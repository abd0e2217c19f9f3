import type { APIGatewayProxyEvent } from 'aws-lambda';
import { requestHeader } from './request.js';

/**
 * The offered media type the request's `Accept` prefers (RFC 9110 §12.5.1: by `q`, then by how
 * specific the range is). The first offered type is the default: for no `Accept`, for `*\/*`, and
 * for an `Accept` that names none of them (answering something rather than 406, as for a browser).
 */
export function negotiate(event: APIGatewayProxyEvent, offered: readonly [string, ...string[]]): string {
  const header = requestHeader(event, 'accept');
  if (!header) return offered[0];
  let best = { type: offered[0], q: -1, specificity: -1 };
  for (const range of header.split(',')) {
    const [media = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!(q > 0)) continue;
    for (const type of offered) {
      const specificity =
        media === type ? 2 : media === `${type.split('/')[0]}/*` ? 1 : media === '*/*' ? 0 : -1;
      if (specificity < 0) continue;
      // A wildcard keeps the default first: `*/*` alone means the first offered type.
      if (q > best.q || (q === best.q && specificity > best.specificity)) best = { type, q, specificity };
    }
  }
  return best.type;
}
