import { createServer } from 'node:net';
import { LocalStackError } from './local-stack-error.js';

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

export async function assertPortFree(port: number, host: string): Promise<void> {
  await new Promise<void>((resolveFree, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new LocalStackError(
              `port ${port} is already in use: stop what is using it, or start with PORT=<another port>.`,
            )
          : error,
      ),
    );
    server.listen(port, host, () => server.close(() => resolveFree()));
  });
}
