/**
 * The embedded API server's managedFields against kube-apiserver 1.20's, without a cluster: the
 * scenarios of managed-fields-scenarios.ts (fields owned whole as an empty map, struct or list,
 * then written deeper by other managers with update, merge patch and apply; conflicts and force)
 * and kube-apiserver's answers to them, recorded by test/e2e/differential-managed-fields.test.ts
 * (which also checks that the recording still matches a real kube-apiserver).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient } from './helpers.js';
import { runScenarios, scenarios, type Observation } from './managed-fields-scenarios.js';

const recorded = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'managed-fields-kube-1.20.json'), 'utf8')) as Record<string, Observation[]>;

describe('embedded API server: managedFields as kube-apiserver 1.20 recorded them', () => {
  let server: ApiServer;
  let seen: Record<string, Observation[]>;

  beforeAll(async () => {
    server = await startApiServer({ kubernetesVersion: '1.20' });
    const call = makeClient(server.url);
    const made = await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fields' } });
    if (made.status !== 201) throw new Error(`creating namespace fields: ${made.status}`);
    seen = await runScenarios(call, 'fields');
  });
  afterAll(() => server.close());

  it('has a recording of every scenario', () => {
    expect(Object.keys(recorded)).toEqual(scenarios.map((s) => s.name));
  });

  for (const s of scenarios) {
    it(s.name, () => {
      const mine = seen[s.name] ?? [];
      (recorded[s.name] ?? []).forEach((step, i) => expect({ step: mine[i] }).toEqual({ step }));
      expect(mine.length).toBe(recorded[s.name]?.length);
    });
  }
});
