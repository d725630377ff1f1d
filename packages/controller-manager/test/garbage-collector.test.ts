import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import type { UnstructuredObject } from 'rxkube';
import { until } from '../../../test/helpers/until.js';

describe('garbage collector (alone, on the embedded server)', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer({ controllers: { controllers: ['garbagecollector'] } });
  });
  afterAll(() => server.close());

  const cm = (name: string, owners: UnstructuredObject[] = [], block = false): UnstructuredObject =>
    server.create({
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: { name, namespace: 'default', ownerReferences: owners.map((o) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: o.metadata?.name ?? '', uid: o.metadata?.uid ?? '', ...(block ? { blockOwnerDeletion: true } : {}) })) },
    });
  const get = (name: string) => server.get('v1', 'ConfigMap', name, 'default');

  it('background: a dependent whose owners are all gone is deleted; a dangling reference among others is removed', async () => {
    const a = cm('owner-a');
    const b = cm('owner-b');
    cm('child-a', [a]);
    cm('child-ab', [a, b]);
    server.delete('v1', 'ConfigMap', 'owner-a', 'default');
    await until('child-a deleted', () => get('child-a') === undefined);
    await until('child-ab keeps only owner-b', () => get('child-ab')?.metadata?.ownerReferences?.length === 1);
    expect(get('child-ab')?.metadata?.ownerReferences?.[0]?.name).toBe('owner-b');
  });

  it('a dependent of an owner that never existed (uid unknown to the server) is deleted', async () => {
    server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stray', namespace: 'default', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'nobody', uid: 'no-such-uid' }] } });
    await until('stray deleted', () => get('stray') === undefined);
  });

  it('foreground: the owner waits with foregroundDeletion until its blocking dependents are gone', async () => {
    const o = cm('fg-owner');
    const child = cm('fg-child', [o], true);
    cm('fg-grandchild', [child], true);
    server.delete('v1', 'ConfigMap', 'fg-owner', 'default', { propagationPolicy: 'Foreground' });
    expect(get('fg-owner')?.metadata?.finalizers).toEqual(['foregroundDeletion']);
    await until('all gone', () => get('fg-owner') === undefined && get('fg-child') === undefined && get('fg-grandchild') === undefined);
  });

  it('custom resources of a CRD created after start are collected too (the collector rediscovers)', async () => {
    server.create({
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    } as UnstructuredObject);
    const owner = cm('gadget-owner');
    await new Promise((r) => setTimeout(r, 1500)); // the collector's debounce and rebuild
    server.create({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g', namespace: 'default', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'gadget-owner', uid: owner.metadata?.uid ?? '' }] } } as UnstructuredObject);
    server.delete('v1', 'ConfigMap', 'gadget-owner', 'default');
    await until('gadget collected', () => server.get('example.com/v1', 'Gadget', 'g', 'default') === undefined);
  });

  it('orphan: dependents lose the owner reference and stay; then the owner goes', async () => {
    const o = cm('or-owner');
    cm('or-child', [o]);
    server.delete('v1', 'ConfigMap', 'or-owner', 'default', { propagationPolicy: 'Orphan' });
    await until('owner gone', () => get('or-owner') === undefined);
    expect(get('or-child')?.metadata?.ownerReferences ?? []).toEqual([]);
  });
});
