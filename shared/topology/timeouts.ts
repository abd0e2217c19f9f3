/**
 * How long API Gateway (and the local gateway) reuse an authorizer decision for the same header.
 * It bounds how long a revoked token keeps working unless the cache is flushed, which `mis token
 * revoke` does; it also bounds how stale `lastUsedAt` may be.
 */
export const AUTHORIZER_CACHE_SECONDS = 60;

/** The timers function's timeout: a run finishes within the minute between two scheduled runs. */
export const TIMERS_FUNCTION_TIMEOUT_SECONDS = 50;

/** 10 s per POST, a batch's POSTs run side by side, plus room for the delivery log writes. */
export const DELIVERY_FUNCTION_TIMEOUT_SECONDS = 30;
