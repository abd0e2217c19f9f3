/**
 * On AWS, IAM refuses a call outside a function's grants. The local stack runs every function in
 * one process with one set of clients, so it installs a guard here that refuses the same calls
 * (`infra/local/access-guard.ts`). Unset everywhere else: then these are no-ops.
 */
export interface AccessGuard {
  /** Adds the check to an AWS SDK client, as a middleware that sees each command and its input. */
  guardClient(client: GuardableClient): void;
  /** Checks one action of a local stand-in that has no SDK client (the local signing-secrets cipher). */
  check(action: string): void;
}

export interface GuardableClient {
  middlewareStack: { add: (...args: never[]) => unknown };
}

let installed: AccessGuard | undefined;

export function installAccessGuard(guard: AccessGuard): void {
  installed = guard;
}

/** Every client an adapter creates passes through here. */
export function guarded<T extends GuardableClient>(client: T): T {
  installed?.guardClient(client);
  return client;
}

export function checkAccess(action: string): void {
  installed?.check(action);
}
