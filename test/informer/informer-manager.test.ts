/** The factory as a manager cache runnable: controllers start only after the caches synced. */
import { NEVER, type Observable, Subject, concat, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { cacheRunnable } from '../../src/api/runnable.js';
import { manager } from '../../src/manager/manager.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { ListPage } from '../../src/api/list-watcher.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { obj, replace } from './helpers.js';

describe('informers in a manager', () => {
  it('factory.runnable(): the controller starts after the cache synced and the informer stops with the manager', async () => {
    const list = new Subject<ListPage>();
    const f = new InformerFactory(() => ({
      list: () => list,
      watch: () => NEVER,
    }));
    const pods = f.pods();
    const mgr = manager();
    mgr.add(f.runnable());
    let sizeAtStart = -1;
    mgr.add({
      needLeaderElection: false,
      start: (signal: AbortSignal) => {
        sizeAtStart = pods.store.size;
        return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      },
    });
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    await new Promise((r) => setTimeout(r, 50));
    expect(pods.isRunning).toBe(true);
    expect(sizeAtStart).toBe(-1); // waiting for the cache
    list.next({ items: [obj('a', '1') as KubeObject], resourceVersion: '1' });
    list.complete();
    await new Promise((r) => setTimeout(r, 50));
    expect(sizeAtStart).toBe(1);
    ac.abort();
    await done;
    expect(pods.isRunning).toBe(false);
  });

  it('a single informer fits cacheRunnable({ source: run$, synced$ })', async () => {
    const informer = sharedInformer(concat(of<ReflectorEvent>(replace('1', obj('a', '1'))), NEVER));
    const r = cacheRunnable({ name: 'pods', source: informer.run$, synced$: informer.synced$ });
    const mgr = manager();
    mgr.add(r);
    let synced: boolean | undefined;
    mgr.add({ needLeaderElection: false, start: () => void (synced = informer.hasSynced()) });
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    await new Promise((r) => setTimeout(r, 50));
    expect(synced).toBe(true);
    ac.abort();
    await done;
    expect(informer.isRunning).toBe(false);
  });
});

describe('factory runnable made before the informers', () => {
  it('covers informers requested after runnable() but before the manager starts', async () => {
    const list = new Subject<ListPage>();
    const f = new InformerFactory(() => ({ list: () => list, watch: () => NEVER }));
    const r = f.runnable();
    const cms = f.configMaps(); // e.g. a controller built after mgr.add(f.runnable())
    const states: boolean[] = [];
    const sub = r.synced$?.subscribe((s) => states.push(s));
    const run = (r.start(new AbortController().signal) as Observable<unknown>).subscribe();
    await new Promise((res) => setTimeout(res, 20));
    expect(cms.isRunning).toBe(true);
    list.next({ items: [], resourceVersion: '1' });
    list.complete();
    await new Promise((res) => setTimeout(res, 20));
    expect(states).toEqual([false, true]);
    run.unsubscribe();
    sub?.unsubscribe();
    expect(cms.isRunning).toBe(false);
  });
});
