// The public surface is chosen, not accumulated: the root entry is a small front door, every other
// public name has exactly one door (`rxkube/<layer>`), `rxkube/operators` holds only pipeable
// operators, and nothing test-only or server-sized is in the runtime package
// (scripts/check-layers.mjs rejects `export *` and anything but re-exports in an entry).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as root from '../../src/index.js';
import * as operators from '../../operators/index.js';
import * as testing from '../../src/testing/index.js';
import * as testkit from '@rxkube/testkit';
import * as controllerManager from '@rxkube/controller-manager';
import pkg from '../../package.json' with { type: 'json' };

/** The front door's value budget (issue: aim for ≤ 60). */
const FRONT_DOOR_MAX_VALUES = 60;
const TEST_DOUBLES = ['InMemoryLeaseApi', 'fakeSource', 'fakeInformer', 'added', 'updated', 'deleted'];
const TESTKIT = ['startApiServer', 'inProcessCluster', 'virtualTime', 'generateTlsMaterial', 'ApiServerConfigError', 'DirectApiError', 'UnknownKindError', 'EventuallyTimeoutError', 'NotConvergedError', 'DEFAULT_KUBERNETES_VERSION', 'KUBERNETES_VERSIONS'];
const CONTROLLER_MANAGER = ['ALL_CONTROLLERS', 'controllerManager', 'startControllerManager', 'garbageCollector', 'namespaceController', 'deploymentController', 'replicaSetController', 'endpointsController', 'standInNodes'];
const INTERNALS = ['DeltaQueue', 'KeyQueue', 'Listener', 'ListenerBacklog', 'RunnableGroup', 'TokenBucket', 'LruCache', 'WatchLineDecoder', 'counterIn', 'gaugeIn', 'histogramIn'];

/**
 * Subset doors: for a runtime that cannot load the other doors (a browser), they re-export names
 * whose home is another door, besides their own. The one-door rule holds for their own names.
 */
const BROWSER_DOOR = { name: 'rxkube/browser', file: path.join(import.meta.dirname, '../../src/browser/index.ts') };
const SUBSET_DOORS = [BROWSER_DOOR.name];

/** Every entry of the runtime package: `.` and each subpath of package.json's `exports`. */
const allDoors = Object.entries(pkg.exports).map(([sub, target]) => ({ name: sub === '.' ? 'rxkube' : `rxkube/${sub.slice(2)}`, file: path.join(import.meta.dirname, '../..', target.source) }));
/** The doors every name has exactly one of (all but the subset doors). */
const doors = allDoors.filter((d) => !SUBSET_DOORS.includes(d.name));

/** The names an entry file exports (values and types), read from its export list. */
function exportedNames(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((m) =>
    (m[1] ?? '').split(',').map((s) => s.trim().replace(/^type /, '').split(/\s+as\s+/).pop() ?? '').filter(Boolean),
  );
}

describe('public surface', () => {
  it(`the root entry is a front door of at most ${FRONT_DOOR_MAX_VALUES} values`, () => {
    const values = Object.keys(root);
    expect(values.length).toBeLessThanOrEqual(FRONT_DOOR_MAX_VALUES);
    expect(values.length).toBe(49); // change on purpose: the count printed in the docs' surface note
  });

  it('every name has exactly one door among the runtime package entries', () => {
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const door of doors) {
      for (const name of exportedNames(door.file)) {
        const first = seen.get(name);
        if (first !== undefined) twice.push(`${name}: ${first} and ${door.name}`);
        seen.set(name, door.name);
      }
    }
    expect(twice).toEqual([]);
    expect(doors.length).toBeGreaterThan(10);
  });

  it('rxkube/browser re-exports names of other doors, and its own names are in no other door', () => {
    const elsewhere = new Set(doors.flatMap((d) => exportedNames(d.file)));
    const names = exportedNames(BROWSER_DOOR.file);
    const own = names.filter((n) => !elsewhere.has(n)).sort();
    expect(own).toEqual(['ApiConnection', 'FetchClientOptions', 'FetchConfigError', 'FetchConnection', 'FetchConnectionOptions', 'FetchFunction', 'KubeClientBase', 'TokenProvider', 'fetchClient']);
    expect(new Set(names).size).toBe(names.length);
  });

  it('the root entry exports nothing test-only, nothing of the controller manager and none of the listed internals', () => {
    const names = Object.keys(root);
    expect(names.filter((n) => TEST_DOUBLES.includes(n) || TESTKIT.includes(n) || CONTROLLER_MANAGER.includes(n) || INTERNALS.includes(n))).toEqual([]);
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

  it('rxkube/testing holds only the test doubles that need no API server', () => {
    expect(Object.keys(testing).sort()).toEqual([...TEST_DOUBLES].sort());
  });

  it('@rxkube/testkit holds the embedded API server, the in-process cluster and virtual time', () => {
    expect(Object.keys(testkit).sort()).toEqual([...TESTKIT].sort());
  });

  it('@rxkube/controller-manager holds the controller manager and its controllers, and nothing test-only', () => {
    expect(Object.keys(controllerManager).sort()).toEqual([...CONTROLLER_MANAGER].sort());
  });
});
