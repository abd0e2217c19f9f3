#!/usr/bin/env node
// The operator CLI is TypeScript like the rest of the service; tsx loads it without a build step.
import { register } from 'tsx/esm/api';

register();
await import('./mis.ts');
