import { from, map, type Observable, of, tap } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { join, joinInputs, type Joined } from '../../src/informer/join.js';
import type { KubeObject, UnstructuredObject } from '../../src/api/kube-object.js';
import { Indexer } from '../../src/cache/indexer.js';
import { type InformerEvent } from '../../src/cache/informer-event.js';
import { nameIndex, ownerUidIndex, uidIndex } from '../../src/controller/indexes.js';
import { marbles } from '../helpers/marbles.js';

/** Applies events to a store before passing them on, as an informer does. */
const cached = <T extends KubeObject>(store: Indexer<T>) => (events$: Observable<InformerEvent<T>>) =>
  events$.pipe(tap((e) => (e.type === 'delete' ? store.delete(e.object) : store.upsert(e.object))));
const add = <T extends KubeObject>(object: T): InformerEvent<T> => ({ type: 'add', object, isInInitialList: false });
const upd = <T extends KubeObject>(old: T, object: T): InformerEvent<T> => ({ type: 'update', old, object, resync: false });
const del = <T extends KubeObject>(object: T): InformerEvent<T> => ({ type: 'delete', object });

type Pod = KubeObject & { spec: { nodeName: string } };
const pod = (name: string, nodeName: string): Pod => ({ metadata: { namespace: 'ns', name }, spec: { nodeName } });
const node = (name: string, ready = true): UnstructuredObject => ({ metadata: { name }, ready });
/** A joined view as text: `pod:node(ready)…`. */
const show = (j: Joined<KubeObject, KubeObject>) =>
  `${j.key}${j.left === undefined ? ' gone' : ''}:${j.right.map((n) => `${n.metadata?.name}${(n as UnstructuredObject).ready ? '' : '!'}`).join(',')}`;

describe('join', () => {
  it(
    'pods ⋈ nodes: matches the marble diagram in its doc comment',
    marbles((m) => {
      const pods = new Indexer<Pod>({ indexers: { node: (p) => [p.spec.nodeName] } });
      const nodes = new Indexer<KubeObject>({ indexers: { name: nameIndex } });
      const n1 = node('n1');
      const pods$ = m.hot('--a------c---', { a: add(pod('p1', 'n1')), c: add(pod('p2', 'n1')) }).pipe(cached(pods));
      const nodes$ = m
        .hot('0----b-------d|', { 0: add(n1), b: upd(n1, node('n1', false)), d: del(node('n1', false)) })
        .pipe(cached(nodes));
      const joined$ = joinInputs(pods$, nodes$).pipe(
        join({ store: pods, index: 'node', on: (p) => [p.spec.nodeName] }, { store: nodes, index: 'name', on: nameIndex }),
      );
      m.expect(joined$.pipe(map(show))).toBeObservable('--a--b---c---(de)', {
        a: 'ns/p1:n1',
        b: 'ns/p1:n1!',
        c: 'ns/p2:n1!',
        d: 'ns/p1:',
        e: 'ns/p2:',
      });
    }),
  );

  it(
    'a moved left object and a right object changing its join value update every affected view',
    marbles((m) => {
      const pods = new Indexer<Pod>({ indexers: { node: (p) => [p.spec.nodeName] } });
      const nodes = new Indexer<KubeObject>({ indexers: { name: nameIndex } });
      for (const n of [node('n1'), node('n2')]) nodes.upsert(n);
      for (const p of [pod('p1', 'n1'), pod('p2', 'n2')]) pods.upsert(p);
      const pods$ = m.hot('-a-----d', { a: upd(pod('p1', 'n1'), pod('p1', 'n2')), d: del(pod('p2', 'n2')) }).pipe(cached(pods));
      const nodes$ = m.hot('---r', { r: upd(node('n2'), node('n2', false)) }).pipe(cached(nodes));
      const joined$ = joinInputs(pods$, nodes$).pipe(
        join({ store: pods, index: 'node', on: (p) => [p.spec.nodeName] }, { store: nodes, index: 'name', on: nameIndex }),
      );
      m.expect(joined$.pipe(map(show))).toBeObservable('-a-(bc)d', {
        a: 'ns/p1:n2',
        b: 'ns/p1:n2!',
        c: 'ns/p2:n2!',
        d: 'ns/p2 gone:',
      });
    }),
  );

  it(
    'owners ⋈ owned through an index on ownerReferences: each owned change re-emits its owners',
    marbles((m) => {
      const owners = new Indexer<KubeObject>({ indexers: { uid: uidIndex } });
      const owned = new Indexer<KubeObject>({ indexers: { owner: ownerUidIndex } });
      const rs = (name: string, uid: string): KubeObject => ({ metadata: { namespace: 'ns', name, uid } });
      const child = (name: string, ...uids: string[]): KubeObject => ({
        metadata: { namespace: 'ns', name, ownerReferences: uids.map((uid) => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: uid, uid })) },
      });
      owners.upsert(rs('rs-a', 'A'));
      owners.upsert(rs('rs-b', 'B'));
      const owned$ = m
        .hot('-x-y---z', { x: add(child('c1', 'A')), y: add(child('c2', 'A', 'B')), z: upd(child('c1', 'A'), child('c1', 'B')) })
        .pipe(cached(owned));
      const owners$ = m.hot('-----------o', { o: del(rs('rs-a', 'A')) }).pipe(cached(owners));
      const joined$ = joinInputs(owners$, owned$).pipe(
        join({ store: owners, index: 'uid', on: uidIndex }, { store: owned, index: 'owner', on: ownerUidIndex }),
      );
      const names = (j: Joined<KubeObject, KubeObject>) =>
        `${j.key}${j.left ? '' : ' gone'}:${j.right.map((o) => o.metadata?.name).sort().join(',')}`;
      m.expect(joined$.pipe(map(names))).toBeObservable('-x-(ab)(cd)o', {
        x: 'ns/rs-a:c1',
        a: 'ns/rs-a:c1,c2',
        b: 'ns/rs-b:c2',
        c: 'ns/rs-a:c2',
        d: 'ns/rs-b:c1,c2',
        o: 'ns/rs-a gone:',
      });
    }),
  );

  it('works outside a controller on plain arrays of events', () => {
    const pods = new Indexer<Pod>({ indexers: { node: (p) => [p.spec.nodeName] } });
    const nodes = new Indexer<KubeObject>({ indexers: { name: nameIndex } });
    pods.upsert(pod('p', 'n'));
    nodes.upsert(node('n'));
    const out: string[] = [];
    joinInputs(from<InformerEvent<Pod>[]>([]), of(add(node('n'))))
      .pipe(join({ store: pods, index: 'node', on: (p) => [p.spec.nodeName] }, { store: nodes, index: 'name', on: nameIndex }))
      .subscribe((j) => out.push(show(j)));
    expect(out).toEqual(['ns/p:n']);
  });
});

