import { NEVER, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { ListWatcher } from '../../src/api/list-watcher.js';
import type { ListWatchScope } from '../../src/client/http-list-watcher.js';
import type { KubeClient } from '../../src/client/kube-client.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';

/** A client whose `listWatcher` records the scope it was asked for. */
function recordingClient(): { client: KubeClient; scopes: ListWatchScope[] } {
  const scopes: ListWatchScope[] = [];
  const lw: ListWatcher<KubeObject> = { list: () => of({ items: [], resourceVersion: '1' }), watch: () => NEVER };
  const client = {
    listWatcher: (_type: unknown, scope: ListWatchScope = {}) => {
      scopes.push(scope);
      return lw;
    },
  } as unknown as KubeClient;
  return { client, scopes };
}

const resource = { apiVersion: 'v1', kind: 'Pod' } as const;

describe('sharedInformer over a client: watch lines parsed without managedFields', () => {
  it('asks for it with the default transform (which drops the field anyway), keeping the given scope', () => {
    const { client, scopes } = recordingClient();
    sharedInformer({ client, resource, scope: { namespace: 'ns' } });
    expect(scopes).toEqual([{ omitManagedFields: true, namespace: 'ns' }]);
  });

  it('does not with transform: null or a custom transform (they may read managedFields)', () => {
    const { client, scopes } = recordingClient();
    sharedInformer({ client, resource }, { transform: null });
    sharedInformer({ client, resource }, { transform: (o) => o });
    expect(scopes).toEqual([{}, {}]);
  });

  it('an explicit omitManagedFields: false in the scope wins', () => {
    const { client, scopes } = recordingClient();
    sharedInformer({ client, resource, scope: { omitManagedFields: false } });
    expect(scopes).toEqual([{ omitManagedFields: false }]);
  });
});
