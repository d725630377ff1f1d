// The public surface is chosen, not accumulated: the root entry stays small and holds nothing
// test-only, `rxkube/operators` holds only pipeable operators, and every name in an entry is a
// deliberate re-export (scripts/check-layers.mjs rejects `export *`).
import { describe, expect, it } from 'vitest';
import * as root from '../../src/index.js';
import * as operators from '../../operators/index.js';
import * as testing from '../../src/testing/index.js';
import * as controllers from '../../src/controllers/index.js';

const TEST_ONLY = ['startApiServer', 'InMemoryLeaseApi', 'fakeSource', 'fakeInformer', 'added', 'updated', 'deleted', 'inProcessCluster', 'virtualTime'];
/** rxkube-controller-manager's controllers: rxkube/controllers (neither the root entry nor rxkube/testing). */
const CONTROLLER_MANAGER = ['ALL_CONTROLLERS', 'controllerManager', 'startControllerManager', 'garbageCollector', 'namespaceController', 'deploymentController', 'replicaSetController', 'endpointsController', 'standInNodes'];
const INTERNALS = ['DeltaQueue', 'KeyQueue', 'Listener', 'ListenerBacklog', 'RunnableGroup', 'TokenBucket', 'LruCache', 'WatchLineDecoder', 'counterIn', 'gaugeIn', 'histogramIn'];

describe('public surface', () => {
  it('the root entry exports at most 120 values', () => {
    expect(Object.keys(root).length).toBeLessThanOrEqual(120);
  });

  it('the root entry exports nothing test-only and none of the listed internals', () => {
    const names = Object.keys(root);
    expect(names.filter((n) => TEST_ONLY.includes(n) || CONTROLLER_MANAGER.includes(n) || INTERNALS.includes(n))).toEqual([]);
  });

  it('the root entry has what a controller() user needs: predicates and the controller builder', () => {
    for (const n of ['controller', 'manager', 'InformerFactory', 'KubeClient', 'generationChanged', 'and', 'or', 'not', 'informerSource']) {
      expect(root).toHaveProperty(n);
    }
  });

  it('the root entry has the RxJS-native helpers: sync-aware join, state streams, tombstone unwrapping', () => {
    for (const n of ['joinOn', 'informerState', 'objectOf', 'eventKey']) expect(root).toHaveProperty(n);
  });

  it('rxkube/operators exports only operator factories (functions returning an OperatorFunction)', () => {
    for (const [name, value] of Object.entries(operators)) {
      expect(typeof value, name).toBe('function');
    }
    expect(Object.keys(operators).sort()).toEqual([
      'collectByKey', 'deltaFifo', 'distinctByKey', 'filterEvents', 'filterTransitions', 'handlerEvents', 'indexStore',
      'join', 'joinInputs', 'mapByKey', 'mapToRequests', 'scanByKey', 'switchMapByKey', 'toOwnerRequests', 'toRequests',
      'whenSynced', 'workQueue',
    ]);
  });

  it('rxkube/testing holds the embedded API server and the test doubles', () => {
    expect(Object.keys(testing).sort()).toEqual([...TEST_ONLY].sort());
  });

  it('rxkube/controllers holds the controller manager and its controllers, and nothing test-only', () => {
    expect(Object.keys(controllers).sort()).toEqual([...CONTROLLER_MANAGER].sort());
  });
});
