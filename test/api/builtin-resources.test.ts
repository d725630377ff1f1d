// The built-in resource descriptors: complete, frozen, distinct, and what discovery says (for the
// kinds the embedded API server serves; test/e2e/client.test.ts checks them all on kube-apiserver).
import { describe, expect, it } from 'vitest';
import { resources } from '../../src/api/builtin-resources.js';
import { isResolved, splitApiVersion } from '../../src/api/resource.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { UnknownResourceError } from '../../src/client/discovery.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';

import { of, NEVER } from 'rxjs';
import { useEmbeddedServer } from '../helpers/embedded-server.js';

const all = Object.entries(resources);

describe('resources (built-in descriptors)', () => {
  it('every descriptor is complete (no discovery needed) and frozen, like the object holding them', () => {
    expect(Object.isFrozen(resources)).toBe(true);
    expect(all.length).toBeGreaterThanOrEqual(30);
    for (const [name, r] of all) {
      expect(isResolved(r), name).toBe(true);
      expect(Object.isFrozen(r), name).toBe(true);
      expect(r.plural, name).toMatch(/^[a-z]+$/);
      expect(splitApiVersion(r.apiVersion).version, name).toMatch(/^v\d+((alpha|beta)\d+)?$/);
    }
  });

  it('names each apiVersion/kind once, and the key is the lower-camel plural (events.k8s.io Events: eventsV1)', () => {
    const ids = all.map(([, r]) => `${r.apiVersion}/${r.kind}`);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [name, r] of all) {
      if (name === 'eventsV1') continue;
      expect(name.toLowerCase(), `${r.kind}`).toBe(r.plural);
    }
    expect(resources.eventsV1).toMatchObject({ apiVersion: 'events.k8s.io/v1', kind: 'Event', plural: 'events' });
    expect(resources.events).toMatchObject({ apiVersion: 'v1', kind: 'Event' });
  });

  it("the informer factory's shortcuts are the descriptors' informers", () => {
    const f = new InformerFactory(() => ({ list: () => of({ items: [], resourceVersion: '1' }), watch: () => NEVER }));
    expect(f.pods()).toBe(f.for(resources.pods));
    expect(f.deployments()).toBe(f.for(resources.deployments));
    expect(f.leases()).toBe(f.for(resources.leases));
    expect(f.nodes()).toBe(f.for(resources.nodes, { namespace: null }));
    expect(f.pods().resource).toBe(resources.pods);
  });

  describe('against discovery of the embedded API server', () => {
    let client: KubeClient;
    useEmbeddedServer((_server, c) => {
      client = c;
    });

    it('plural and scope match what discovery resolves for every kind the server serves', async () => {
      let served = 0;
      for (const [name, r] of all) {
        let found;
        try {
          found = await client.resolve({ apiVersion: r.apiVersion, kind: r.kind });
        } catch (e) {
          if (e instanceof UnknownResourceError) continue;
          throw e;
        }
        served++;
        expect({ plural: found.plural, namespaced: found.namespaced }, name).toEqual({ plural: r.plural, namespaced: r.namespaced });
      }
      expect(served).toBeGreaterThanOrEqual(10);
    });

    it('a descriptor missing plural or scope is completed by discovery, keeping what it gives', async () => {
      expect(await client.resolve({ apiVersion: 'apps/v1', kind: 'Deployment' })).toEqual(resources.deployments);
      expect(await client.resolve({ apiVersion: 'v1', kind: 'Pod', namespaced: true })).toEqual(resources.pods);
      const given = resources.configMaps;
      expect(await client.resolve(given)).toBe(given); // complete: returned as is, no request
    });
  });
});
