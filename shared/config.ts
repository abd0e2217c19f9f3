/** Configuration read once at module load; a missing required value fails fast with a clear message. */
export function requireEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    throw new Error(`Missing required environment variable ${name}`);
  }
  return value;
}

/** The literal that stands for the service's name in webhook headers (`x-<name>-signature`). */
export const serviceName = (): string => process.env.SERVICE_NAME || 'service';

/** The fixed tag in front of every token (`<tag>_<prefix>_<secret>`). */
export const tokenTag = (): string => process.env.TOKEN_TAG || 'svc';

export const API_VERSION = '1.0.0';
export const BASE_PATH = '/api/public/v1';
