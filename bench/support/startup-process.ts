/**
 * Start-up of the embedded server, measured in a fresh process (so the first start pays what a
 * test file's first start pays): the import of `@rxkube/testkit`, then `startApiServer()` until it
 * answers `/readyz`, `startApiServer({ tls: true, token: true })` until it answers, and
 * `inProcessCluster()` until its client has listed namespaces; each first and again (warm).
 */
import { pathToFileURL } from 'node:url';
import { serveCommands } from './rpc.js';

interface Testkit {
  startApiServer(options?: Record<string, unknown>): Promise<{ url: string; close(): Promise<void> }>;
  inProcessCluster(options?: Record<string, unknown>): { client: { objects(resource: unknown): { list(): Promise<unknown> } }; close(): void };
}

serveCommands({
  async measure(args: { module: string; resources: string }) {
    const ms: Record<string, number> = {};
    let t0 = performance.now();
    const kit = (await import(pathToFileURL(args.module).href)) as Testkit;
    const { resources } = (await import(pathToFileURL(args.resources).href)) as { resources: Record<string, unknown> };
    ms['import'] = performance.now() - t0;
    for (const round of ['first', 'again']) {
      t0 = performance.now();
      const s = await kit.startApiServer();
      const ready = await fetch(`${s.url}/readyz`);
      await ready.text();
      ms[`startApiServer ${round}`] = performance.now() - t0;
      await s.close();
    }
    for (const round of ['first', 'again']) {
      t0 = performance.now();
      const s = await kit.startApiServer({ tls: true, token: true });
      ms[`startApiServer tls ${round}`] = performance.now() - t0;
      await s.close();
    }
    for (const round of ['first', 'again']) {
      t0 = performance.now();
      const c = kit.inProcessCluster();
      await c.client.objects(resources['namespaces']).list();
      ms[`inProcessCluster ${round}`] = performance.now() - t0;
      c.close();
    }
    return ms;
  },
});
