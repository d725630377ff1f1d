/** Shared by the cookbook's tests: polling in real time (tests over HTTP) and the Widget fixtures. */
import type { KubeObject } from 'rxkube';

/** Polls `f` every 25 ms until it returns something other than undefined/false; fails after `timeoutMs` naming `what`. */
export async function until<T>(what: string, f: () => T | undefined | false, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = f();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A Widget to create. */
export function widget(name: string, size: number, namespace = 'default'): KubeObject {
  return { apiVersion: 'cookbook.example.com/v1', kind: 'Widget', metadata: { name, namespace }, spec: { size } } as KubeObject;
}
