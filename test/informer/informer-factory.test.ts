import { Observable, Subject, VirtualTimeScheduler, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { ResourceType } from '../../src/api/resource.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';
import { InformerConfigError } from '../../src/informer/informer-errors.js';
import type { ListPage, ListWatcher, WatchEvent } from '../../src/api/list-watcher.js';
import { obj } from './helpers.js';

/** In-memory transport per resource kind: lists return `items[kind]`, watches stay open and can be pushed to. */
function fakeTransport(items: Record<string, KubeObject[]>) {
  const lists = new Map<string, number>();
  const watches = new Map<string, number>();
  const watchSubjects = new Map<string, Subject<WatchEvent>>();
  const make = (resource: ResourceType): ListWatcher => {
    const kind = resource.kind;
    return {
      list: () => {
        lists.set(kind, (lists.get(kind) ?? 0) + 1);
        return of<ListPage>({ items: items[kind] ?? [], resourceVersion: '10' });
      },
      watch: () =>
        new Observable<WatchEvent>((sub) => {
          watches.set(kind, (watches.get(kind) ?? 0) + 1);
          const s = new Subject<WatchEvent>();
          watchSubjects.set(kind, s);
          return s.subscribe(sub);
        }),
    };
  };
  return { make, lists, watches, push: (kind: string, e: WatchEvent) => watchSubjects.get(kind)?.next(e) };
}

/** Runs the virtual scheduler `ms` further (the reflector runs every step on its scheduler). */
function advance(scheduler: VirtualTimeScheduler, ms = 10): void {
  scheduler.maxFrames = scheduler.frame + ms;
  scheduler.flush();
}

const web = (name: string, ns = 'ns') => obj(name, '5', { app: 'web' }, ns);

describe('InformerFactory', () => {
  it('returns one informer per resource, namespace, selectors and transform', () => {
    const f = new InformerFactory(fakeTransport({}).make);
    const t = <T,>(o: T): T => o;
    expect(f.pods()).toBe(f.pods());
    expect(f.pods()).toBe(f.for({ apiVersion: 'v1', kind: 'Pod' }));
    expect(f.pods()).not.toBe(f.configMaps());
    expect(f.pods({ namespace: 'a' })).not.toBe(f.pods({ namespace: 'b' }));
    expect(f.pods({ labelSelector: 'a=b' })).not.toBe(f.pods());
    expect(f.pods({ transform: t })).toBe(f.pods({ transform: t }));
    expect(f.pods({ transform: t })).not.toBe(f.pods());
    expect(f.pods({ transform: null })).not.toBe(f.pods());
    expect(f.list()).toHaveLength(7);
    expect(() => f.for({ apiVersion: 'v1', kind: '' })).toThrow(InformerConfigError);
  });

  it('three consumers of one factory share one list and one watch per resource; start/stop/waitForCacheSync', async () => {
    const scheduler = new VirtualTimeScheduler();
    const transport = fakeTransport({ Pod: [web('p1'), web('p2')], ConfigMap: [obj('c1', '3')] });
    const f = new InformerFactory(transport.make, { scheduler });
    const seen: string[][] = [[], [], []];
    const subs = [
      f.pods().events$.subscribe((e) => seen[0]?.push(e.type)),
      f.pods().events$.subscribe((e) => seen[1]?.push(e.type)),
      f.pods().events$.subscribe((e) => seen[2]?.push(e.type)),
    ];
    f.configMaps();
    f.start();
    f.start(); // idempotent
    advance(scheduler);
    expect(await f.waitForCacheSync(1000)).toBe(true);
    expect(transport.lists.get('Pod')).toBe(1);
    expect(transport.watches.get('Pod')).toBe(1);
    expect(transport.lists.get('ConfigMap')).toBe(1);
    expect(transport.watches.get('ConfigMap')).toBe(1);
    transport.push('Pod', { type: 'ADDED', object: web('p3') });
    for (const s of seen) expect(s).toEqual(['add', 'add', 'add']);
    expect(f.pods().store.size).toBe(3);
    f.stop();
    expect(f.configMaps().isRunning).toBe(false);
    expect(f.pods().isRunning).toBe(true); // still has subscribers
    for (const s of subs) s.unsubscribe();
    expect(f.pods().isRunning).toBe(false);
  });

  it('waitForCacheSync resolves false on timeout (virtual time)', async () => {
    const scheduler = new VirtualTimeScheduler();
    const never: ListWatcher = { list: () => new Observable<ListPage>(), watch: () => new Observable<WatchEvent>() };
    const f = new InformerFactory(() => never, { scheduler });
    f.pods();
    f.start();
    const p = f.waitForCacheSync(5000);
    advance(scheduler, 6000);
    expect(await p).toBe(false);
    f.stop();
  });

  it('listers: get, list by namespace and selector, byIndex', () => {
    const transport = fakeTransport({
      Pod: [web('a', 'n1'), obj('b', '5', { app: 'db' }, 'n1'), web('c', 'n2')],
      Namespace: [obj('n1', '1', undefined, '')],
    });
    const scheduler = new VirtualTimeScheduler();
    const f = new InformerFactory(transport.make, { scheduler });
    const pods = f.pods({ indexers: { byApp: (o) => [o.metadata?.labels?.['app'] ?? ''] } });
    f.namespaces();
    f.start();
    advance(scheduler);
    const l = f.lister(pods);
    expect(l.get('n1', 'a')?.metadata?.name).toBe('a');
    expect(l.get('n2', 'a')).toBeUndefined();
    const names = (os: KubeObject[]) => os.map((o) => o.metadata?.name).sort();
    expect(names(l.list())).toEqual(['a', 'b', 'c']);
    expect(names(l.list('n1'))).toEqual(['a', 'b']);
    expect(names(l.list(undefined, 'app=web'))).toEqual(['a', 'c']);
    expect(names(l.list('n1', { app: 'web' }))).toEqual(['a']);
    expect(names(l.list(undefined, 'app in (db,x)'))).toEqual(['b']);
    expect(names(l.byIndex('byApp', 'web'))).toEqual(['a', 'c']);
    expect(f.lister({ apiVersion: 'v1', kind: 'Namespace' }, { namespace: null }).get(undefined, 'n1')?.metadata?.name).toBe('n1');
    f.stop();
  });

  it('runnable(): a manager cache runnable whose synced$ follows the informers', async () => {
    const transport = fakeTransport({ Pod: [web('a')] });
    const scheduler = new VirtualTimeScheduler();
    const f = new InformerFactory(transport.make, { scheduler });
    f.pods();
    const r = f.runnable();
    expect(r.synced$).toBeDefined();
    const states: boolean[] = [];
    r.synced$?.subscribe((s) => states.push(s));
    const ac = new AbortController();
    const run = r.start(ac.signal) as Observable<unknown>;
    const sub = run.subscribe();
    advance(scheduler);
    expect(states).toEqual([false, true]);
    expect(transport.watches.get('Pod')).toBe(1);
    sub.unsubscribe();
    expect(f.pods().isRunning).toBe(false);
  });
});
