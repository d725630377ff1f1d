/**
 * kubeconfigSecretClusters' bookkeeping in virtual time (in-process home cluster): Secrets become
 * added / changed / removed events, an unchanged kubeconfig is no event, a broken one is reported
 * naming the Secret and removes what it described, replaced and removed clients are closed after
 * the event, and every client when the subscription ends.
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { KubeClientBase } from '../../src/client/kube-client-base.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { KubeconfigSecretError } from '../../src/controller/cluster-errors.js';
import type { ClusterEvent, ClusterTarget } from '../../src/controller/controller-options.js';
import { kubeconfigSecretClusters } from '../../src/controller/kubeconfig-secret-clusters.js';
import { virtualTime } from '../../packages/testkit/src/virtual-time.js';

const assertDeepEqual = (actual: unknown, expected: unknown): void => void expect(actual).toEqual(expected);
const secret = (name: string, data: Record<string, string> | undefined, labels: Record<string, string> = { fleet: 'yes' }): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'fleet', labels },
    ...(data === undefined ? {} : { data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])) }),
  }) as KubeObject;

describe('kubeconfigSecretClusters', () => {
  it('turns Secrets into cluster events, reports broken ones, closes clients it let go', async () => {
    await virtualTime(
      async ({ cluster, advance }) => {
        cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fleet' } } as KubeObject);
        const closed: string[] = [];
        const connect = (text: string, s: { name: string }): ClusterTarget => {
          if (text.startsWith('broken')) throw new Error('not a kubeconfig');
          const client = { close: () => closed.push(`${s.name}:${text}`) } as unknown as KubeClient;
          return { client };
        };
        const errors: KubeconfigSecretError[] = [];
        const events: string[] = [];
        const sub = kubeconfigSecretClusters(cluster.informers(), { namespace: 'fleet', labelSelector: 'fleet=yes', key: 'kc', connect, onError: (e) => errors.push(e) }).subscribe(
          (e: ClusterEvent) => events.push(`${e.type} ${e.name}${e.type === 'removed' ? '' : ` ${closed.length}`}`),
        );
        cluster.create(secret('a', { kc: 'one' }));
        cluster.create(secret('b', { kc: 'one' }));
        cluster.create(secret('other', { kc: 'x' }, {}));
        await advance(10);
        expect(events).toEqual(['added a 0', 'added b 0']);

        const get = (name: string): KubeObject => cluster.get('v1', 'Secret', name, 'fleet') as KubeObject;
        cluster.update({ ...get('a'), metadata: { ...get('a').metadata, annotations: { touched: 'yes' } } } as KubeObject); // same kubeconfig
        await advance(10);
        expect(events).toHaveLength(2);

        cluster.update({ ...get('a'), data: { kc: Buffer.from('two').toString('base64') } } as KubeObject);
        await advance(10);
        expect(events.slice(2)).toEqual(['changed a 0']); // handed on before the old client closed
        expect(closed).toEqual(['a:one']);

        cluster.update({ ...get('b'), data: { kc: Buffer.from('broken').toString('base64') } } as KubeObject);
        await advance(10);
        expect(errors).toHaveLength(1);
        expect(errors[0]).toBeInstanceOf(KubeconfigSecretError);
        expect(errors[0]?.message).toContain('fleet/b');
        expect(errors[0]?.message).not.toContain('broken');
        expect(events.slice(3)).toEqual(['removed b']);
        expect(closed).toEqual(['a:one', 'b:one']);

        cluster.create(secret('nokey', { other: 'x' }));
        await advance(10);
        expect(errors[1]?.why).toBe('has no data under key kc');
        expect(events).toHaveLength(4);

        cluster.update({ ...get('a'), metadata: { ...get('a').metadata, labels: {} } } as KubeObject); // no longer selected
        await advance(10);
        expect(events.slice(4)).toEqual(['removed a']);

        cluster.create(secret('c', { kc: 'three' }));
        await advance(10);
        sub.unsubscribe();
        expect(closed).toEqual(['a:one', 'b:one', 'a:two', 'c:three']);
      },
      { assertDeepEqual },
    );
  });

  it('makes a KubeClient from the Secret’s kubeconfig by default, and refuses options without a namespace', async () => {
    await virtualTime(
      async ({ cluster, advance }) => {
        const kubeconfig = [
          'apiVersion: v1',
          'kind: Config',
          'clusters: [{ name: c, cluster: { server: "https://127.0.0.1:1" } }]',
          'users: [{ name: u, user: { token: "s3cr3t" } }]',
          'contexts: [{ name: x, context: { cluster: c, user: u } }]',
          'current-context: x',
        ].join('\n');
        cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fleet' } } as KubeObject);
        cluster.create(secret('good', { kubeconfig }, { 'sigs.k8s.io/multicluster-runtime-kubeconfig': 'true' }));
        cluster.create(secret('nocontext', { kubeconfig: kubeconfig.replace('current-context: x', '') }, { 'sigs.k8s.io/multicluster-runtime-kubeconfig': 'true' }));
        const events: ClusterEvent[] = [];
        const errors: KubeconfigSecretError[] = [];
        const sub = kubeconfigSecretClusters(cluster.client, { namespace: 'fleet', onError: (e) => errors.push(e) }).subscribe((e) => events.push(e));
        await advance(10);
        expect(events.map((e) => `${e.type} ${e.name}`)).toEqual(['added good']);
        const target = (events[0] as { cluster: ClusterTarget }).cluster;
        expect(target).toBeInstanceOf(KubeClientBase);
        expect(errors.map((e) => [e.secret, e.kubeconfigCode])).toEqual([['nocontext', 'CLIENT_KUBECONFIG_NO_CONTEXT']]);
        expect(errors[0]?.message).not.toContain('s3cr3t');
        sub.unsubscribe();
        expect(() => kubeconfigSecretClusters(cluster.client, { namespace: '' })).toThrow(/namespace/);
      },
      { assertDeepEqual },
    );
  });
});
