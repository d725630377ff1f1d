/**
 * Differential test of field ownership: the scenarios of
 * packages/testkit/test/managed-fields-scenarios.ts (fields owned whole as an empty map, struct or
 * list, then written deeper by other managers with update, merge patch and apply; conflicts and
 * force) run against the embedded API server and a real kube-apiserver 1.20, and every step's
 * status, `metadata.managedFields` (time aside) and object are compared.
 *
 * kube-apiserver's answers are also compared with the recording the unit tier checks the embedded
 * server against (packages/testkit/test/fixtures/managed-fields-kube-1.20.json); run with
 * `RXKUBE_RECORD_MANAGED_FIELDS=1` to write that recording anew.
 *
 * The real server: KUBECONFIG from the e2e runner, or one started with ../shared/kube-apiserver/start.sh.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient } from '../../packages/testkit/test/helpers.js';
import { noRealKubeApiServer, realKubeApiServer } from './helpers/real-kube-apiserver.js';
import { runScenarios, type Call, type Observation } from '../../packages/testkit/test/managed-fields-scenarios.js';

const repoRoot = resolve(import.meta.dirname, '..', '..');
const recording = join(repoRoot, 'packages', 'testkit', 'test', 'fixtures', 'managed-fields-kube-1.20.json');

interface Real {
  readonly call: Call;
  readonly stop: (() => void) | undefined;
}

function loadReal(): Real | undefined {
  const real = realKubeApiServer('rxkube-fields');
  if (real === undefined) return undefined;
  return { call: makeClient(real.server, { ...(real.token !== undefined ? { token: real.token } : {}), ...(real.ca !== undefined ? { ca: real.ca } : {}) }), stop: real.stop };
}

async function inNamespace(call: Call): Promise<Record<string, Observation[]>> {
  const ns = `rxkube-fields-${randomBytes(3).toString('hex')}`;
  const made = await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  if (made.status !== 201) throw new Error(`creating namespace ${ns}: ${made.status}`);
  try {
    return await runScenarios(call, ns);
  } finally {
    await call('DELETE', `/api/v1/namespaces/${ns}`);
  }
}

describe('differential: managedFields of the embedded API server vs a real kube-apiserver', () => {
  let embedded: ApiServer;
  let real: Real | undefined;
  let embeddedSeen: Record<string, Observation[]>;
  let realSeen: Record<string, Observation[]> | undefined;

  beforeAll(async () => {
    embedded = await startApiServer({ kubernetesVersion: '1.20' });
    embeddedSeen = await inNamespace(makeClient(embedded.url));
    real = loadReal();
    if (real === undefined) {
      noRealKubeApiServer('managedFields');
      return;
    }
    realSeen = await inNamespace(real.call);
    if (process.env['RXKUBE_RECORD_MANAGED_FIELDS'] === '1') writeFileSync(recording, `${JSON.stringify(realSeen, null, 2)}\n`);
  }, 120_000);

  afterAll(async () => {
    await embedded?.close();
    real?.stop?.();
  });

  it('every step: same status, managedFields and object on both servers', (ctx) => {
    if (realSeen === undefined) {
      ctx.skip();
      return;
    }
    for (const [name, steps] of Object.entries(realSeen)) {
      const mine = embeddedSeen[name] ?? [];
      steps.forEach((step, i) => expect({ scenario: name, step: mine[i] }).toEqual({ scenario: name, step }));
      expect(mine.length).toBe(steps.length);
    }
  });

  it("kube-apiserver still answers as recorded for the unit tier's check", (ctx) => {
    if (realSeen === undefined) {
      ctx.skip();
      return;
    }
    expect(realSeen).toEqual(JSON.parse(readFileSync(recording, 'utf8')));
  });
});
