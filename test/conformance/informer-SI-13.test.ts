/**
 * docs/semantics.md §4.4 SI-13: a failing handler. client-go skips the notification and sleeps 1 s; rxkube
 * ends that subscriber alone (typed error on its stream and on `errors$`), see EXCLUDED-informer.md.
 */
import { Observable, Subject, throwError } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import { ListenerError } from '../../src/informer/informer-errors.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { added, brief, obj, replace } from '../informer/helpers.js';

describe('SI-13 failing subscribers', () => {
  it('a throw ends that subscriber alone; others and the cache go on', () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src);
    const errors: Error[] = [];
    informer.errors$.subscribe((e) => errors.push(e));
    const other: string[] = [];
    informer.events$.subscribe((e) => other.push(brief(e)));
    let ended: unknown;
    const bad = informer.listen({
      name: 'bad',
      process: (e: InformerEvent) => {
        if (e.type === 'add' && !e.isInInitialList) throw new TypeError('handler bug');
      },
    });
    bad.events$.subscribe({ error: (e: unknown) => (ended = e) });
    src.next(replace('1', obj('a', '1')));
    src.next(added(obj('b', '2')));
    src.next(added(obj('c', '3')));
    expect(ended).toBeInstanceOf(ListenerError);
    expect((ended as ListenerError).cause).toBeInstanceOf(TypeError);
    expect((ended as ListenerError).event.type).toBe('add');
    expect(errors).toEqual([ended]);
    expect(other).toEqual(['add a@1*', 'add b@2', 'add c@3']);
    expect(informer.store.size).toBe(3);
  });

  it('an asynchronous error ends the subscriber the same way', () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src);
    let ended: unknown;
    informer
      .listen({ process: () => throwError(() => new Error('async')) })
      .events$.subscribe({ error: (e: unknown) => (ended = e) });
    src.next(replace('1', obj('a', '1')));
    expect(ended).toBeInstanceOf(ListenerError);
  });

  it('a subscriber failing on an initial add never reports synced', () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src);
    const h = informer.listen({
      process: () => {
        throw new Error('no');
      },
    });
    h.events$.subscribe({ error: () => undefined });
    src.next(replace('1', obj('a', '1')));
    expect(informer.hasSynced()).toBe(true);
    expect(h.hasSynced()).toBe(false);
  });

  it('a subscriber failing during its replay is ended without touching the running informer', () => {
    let subscribes = 0;
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(new Observable<ReflectorEvent>((s) => (subscribes++, src.subscribe(s))));
    const keep = informer.events$.subscribe();
    src.next(replace('1', obj('a', '1')));
    let ended: unknown;
    informer
      .listen({
        process: () => {
          throw new Error('bad replay');
        },
      })
      .events$.subscribe({ error: (e: unknown) => (ended = e) });
    expect(ended).toBeInstanceOf(ListenerError);
    expect(informer.backlogs().size).toBe(1);
    expect(subscribes).toBe(1);
    keep.unsubscribe();
    expect(informer.isRunning).toBe(false);
  });
});
