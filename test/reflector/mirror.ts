/** Folds reflector events into `name-or-ns/name → resourceVersion` and records impossible transitions. */
import type { KubeObject } from '../../src/api/kube-object.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';

const keyOf = (o: KubeObject): string => (o.metadata?.namespace ? `${o.metadata.namespace}/` : '') + (o.metadata?.name ?? '');
const rvOf = (o: KubeObject): string => o.metadata?.resourceVersion ?? '';

export class Mirror {
  readonly state = new Map<string, string>();
  readonly anomalies: string[] = [];
  replaces = 0;
  events = 0;

  apply = (e: ReflectorEvent<KubeObject>): void => {
    this.events += 1;
    switch (e.type) {
      case 'replace':
        this.replaces += 1;
        this.state.clear();
        for (const o of e.items) this.state.set(keyOf(o), rvOf(o));
        return;
      case 'added':
        if (this.state.has(keyOf(e.object))) this.anomalies.push(`added twice: ${keyOf(e.object)}`);
        this.state.set(keyOf(e.object), rvOf(e.object));
        return;
      case 'modified':
        if (!this.state.has(keyOf(e.object))) this.anomalies.push(`modified unknown: ${keyOf(e.object)}`);
        this.state.set(keyOf(e.object), rvOf(e.object));
        return;
      case 'deleted':
        if (!this.state.delete(keyOf(e.object))) this.anomalies.push(`deleted unknown: ${keyOf(e.object)}`);
        return;
      case 'bookmark':
        return;
    }
  };

  /** True when the mirror holds exactly `objects` at their resourceVersions. */
  matches(objects: readonly KubeObject[]): boolean {
    if (objects.length !== this.state.size) return false;
    return objects.every((o) => this.state.get(keyOf(o)) === rvOf(o));
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitFor(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
