/** RBAC rules derived from what a manager runs, and the manifest printed from them. */
import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/client/kube-client.js';
import { controller } from '../../src/controller/controller.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';
import { manager } from '../../src/manager/manager.js';
import { rbacManifest, rbacRules } from '../../src/manager/rbac.js';

import { useEmbeddedServer } from '../helpers/embedded-server.js';

const PODS = { apiVersion: 'v1', kind: 'Pod', plural: 'pods', namespaced: true } as const;
const REPLICA_SETS = { apiVersion: 'apps/v1', kind: 'ReplicaSet', plural: 'replicasets', namespaced: true } as const;

function offlineClient(): KubeClient {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://kubernetes.default.svc' }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return KubeClient.fromKubeConfig(kc);
}

describe('mgr.rbac()', () => {
  it('reads of the informers, declared writes, Events and the Lease, in the namespaces the caches look at', async () => {
    const client = offlineClient();
    const factory = new InformerFactory(client, { namespace: 'demo' });
    const mgr = manager({ client, logLevel: 'off', leaderElection: { id: 'rs-controller', namespace: 'ops' } });
    const ctrl = controller({
      name: 'rbac-rs',
      for: REPLICA_SETS,
      owns: [PODS],
      informers: factory,
      reconcile: () => undefined,
      permissions: [
        { resource: PODS, verbs: ['create', 'delete', 'patch'] },
        { resource: REPLICA_SETS, verbs: ['get'] },
        { resource: REPLICA_SETS, subresource: 'status', verbs: ['update'] },
      ],
    });
    mgr.add(factory.runnable());
    mgr.add(ctrl);
    const rules = await mgr.rbac();
    expect(rules.cluster).toEqual([]);
    expect([...rules.namespaces.keys()]).toEqual(['demo', 'ops']);
    expect(rules.namespaces.get('demo')).toEqual([
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] },
      { apiGroups: ['apps'], resources: ['replicasets'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['apps'], resources: ['replicasets/status'], verbs: ['update'] },
      { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
    ]);
    expect(rules.namespaces.get('ops')).toEqual([{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] }]);
    expect(rbacManifest(rules, { name: 'rs-controller', namespace: 'ops' })).toBe(`apiVersion: v1
kind: ServiceAccount
metadata:
  name: rs-controller
  namespace: ops
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: rs-controller
  namespace: demo
rules:
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch]
- apiGroups: [""]
  resources: [pods]
  verbs: [get, list, watch, create, patch, delete]
- apiGroups: [apps]
  resources: [replicasets]
  verbs: [get, list, watch]
- apiGroups: [apps]
  resources: [replicasets/status]
  verbs: [update]
- apiGroups: [events.k8s.io]
  resources: [events]
  verbs: [create, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: rs-controller
  namespace: demo
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: rs-controller
subjects:
- kind: ServiceAccount
  name: rs-controller
  namespace: ops
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: rs-controller
  namespace: ops
rules:
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [get, create, update]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: rs-controller
  namespace: ops
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: rs-controller
subjects:
- kind: ServiceAccount
  name: rs-controller
  namespace: ops
`);
    client.close();
  });

  it('all namespaces or cluster-scoped resources: a ClusterRole', async () => {
    const client = offlineClient();
    const factory = new InformerFactory(client);
    factory.nodes();
    factory.configMaps();
    const mgr = manager({ client, logLevel: 'off' });
    mgr.add(factory.runnable());
    mgr.add({ name: 'writer', needLeaderElection: false, start: () => undefined, permissions: () => [{ resource: { apiVersion: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true }, verbs: ['create'] }] });
    const rules = await mgr.rbac();
    expect(rules.namespaces.size).toBe(0);
    expect(rules.cluster).toEqual([
      { apiGroups: [''], resources: ['configmaps', 'nodes'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
    ]);
    expect(rbacManifest(rules, { name: 'x', namespace: 'y', serviceAccount: false })).toMatch(/^apiVersion: rbac.authorization.k8s.io\/v1\nkind: ClusterRole\n/);
    client.close();
  });

  it('merges verbs and does not need a namespace when given one explicitly', async () => {
    const rules = await rbacRules(
      [
        { resource: PODS, verbs: ['get'], namespace: 'a' },
        { resource: PODS, verbs: ['list', 'get'], namespace: 'a' },
        { resource: PODS, verbs: ['watch'], namespace: null },
        { resource: PODS, verbs: [] },
      ],
      new Set(['a']),
    );
    expect(rules).toEqual({
      cluster: [{ apiGroups: [''], resources: ['pods'], verbs: ['watch'] }],
      namespaces: new Map([['a', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }]]]),
    });
  });

  it('an unresolvable resource is an RbacDerivationError', async () => {
    await expect(rbacRules([{ resource: { apiVersion: 'example.com/v1', kind: 'Widget' }, verbs: ['get'] }], null)).rejects.toMatchObject({
      name: 'RbacDerivationError',
      message: 'Widget (example.com/v1): give plural and namespaced, or a client to resolve them through discovery',
    });
  });
});

describe('mgr.rbac() with discovery', () => {
  let client: KubeClient;
  useEmbeddedServer((_server, c) => {
    client = c;
  });

  it('resolves resources given without plural or scope', async () => {
    const factory = new InformerFactory(client, { namespace: 'default' });
    factory.for({ apiVersion: 'apps/v1', kind: 'Deployment' });
    factory.for({ apiVersion: 'v1', kind: 'Namespace' });
    const mgr = manager({ client, logLevel: 'off' });
    mgr.add(factory.runnable());
    const rules = await mgr.rbac();
    expect(rules.cluster).toEqual([{ apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] }]);
    expect(rules.namespaces.get('default')).toEqual([{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'watch'] }]);
  });
});

describe('injection', () => {
  it("a controller's own logger, registry and recorder win over the manager's", async () => {
    const { Registry } = await import('prom-client');
    const own = new Registry();
    const records: string[] = [];
    const { jsonLogger } = await import('../../src/logging/json-logger.js');
    const logger = jsonLogger({ write: (l) => records.push(l) });
    const client = offlineClient();
    const factory = new InformerFactory(client, { namespace: 'demo' });
    const mgr = manager({ client, logLevel: 'off' });
    const ctrl = controller({ name: 'own-parts', for: PODS, informers: factory, reconcile: () => undefined, metricsRegistry: own, logger });
    mgr.add(ctrl);
    expect(own.getSingleMetric('controller_runtime_reconcile_total')).toBeDefined();
    expect(mgr.metrics.registry.getSingleMetric('workqueue_adds_total')).toBeUndefined();
    client.close();
  });
});
