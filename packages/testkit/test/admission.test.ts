/** Defaulting and validation of built-in kinds (strict mode), as kube-apiserver 1.20 answers. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessCluster, startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient } from './helpers.js';

const container = { name: 'c', image: 'nginx:1.27' };
const podSpec = { containers: [container] };

describe('strict mode: defaulting and validation', () => {
  let server: ApiServer;
  let call: ReturnType<typeof makeClient>;
  beforeAll(async () => {
    server = await startApiServer(); // strict is the default
    call = makeClient(server.url);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('defaults a pod like kube-apiserver', async () => {
    const res = await call('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }] }] } });
    expect(res.status).toBe(201);
    expect(res.body.spec).toMatchObject({
      restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler', terminationGracePeriodSeconds: 30,
      securityContext: {}, enableServiceLinks: true, priority: 0,
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
    });
    expect(res.body.spec.containers[0]).toEqual({
      name: 'c', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }], resources: {},
      terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'Always',
    });
    expect(res.body.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
  });

  it('drops fields the 1.20 schema does not know (kube-apiserver decoding)', async () => {
    const res = await call('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'unknown', bogus: 1 }, data: { a: 'b' }, extra: true });
    expect(res.status).toBe(201);
    expect(res.body.extra).toBeUndefined();
    expect(res.body.metadata.bogus).toBeUndefined();
    expect(res.body.data).toEqual({ a: 'b' });
    const pod = await call('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'u' }, spec: { containers: [{ name: 'c', image: 'i', colour: 'red', resources: { limits: { cpu: '1' } } }] } });
    expect(pod.body.spec.containers[0].colour).toBeUndefined();
    expect(pod.body.spec.containers[0].resources).toEqual({ limits: { cpu: '1' } });
  });

  it('refuses a pod without containers, with kube-apiserver causes', async () => {
    const res = await call('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'empty' }, spec: {} });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ reason: 'Invalid', message: 'Pod "empty" is invalid: spec.containers: Required value', details: { name: 'empty', kind: 'Pod', causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers' }] } });
    const bad = await call('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bad' }, spec: { restartPolicy: 'Sometimes', containers: [{ name: 'C_1' }] } });
    expect(bad.body.details.causes.map((c: { field: string }) => c.field)).toEqual(['spec.containers[0].name', 'spec.containers[0].image', 'spec.restartPolicy']);
  });

  it('pod updates may change images only', async () => {
    const pod = (await call('GET', '/api/v1/namespaces/default/pods/p')).body;
    pod.spec.containers[0].image = 'nginx:1.28';
    expect((await call('PUT', '/api/v1/namespaces/default/pods/p', pod)).status).toBe(200);
    pod.metadata.resourceVersion = undefined;
    pod.spec.restartPolicy = 'Never';
    const res = await call('PUT', '/api/v1/namespaces/default/pods/p', pod);
    expect(res.status).toBe(422);
    expect(res.body.details.causes[0]).toMatchObject({ reason: 'FieldValueForbidden', field: 'spec' });
  });

  it('defaults and validates deployments (selector must match the template; selector immutable)', async () => {
    const d = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: podSpec } } };
    const res = await call('POST', '/apis/apps/v1/namespaces/default/deployments', d);
    expect(res.status).toBe(201);
    expect(res.body.spec).toMatchObject({ replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } });
    expect(res.body.spec.template.spec.restartPolicy).toBe('Always');
    const mismatch = await call('POST', '/apis/apps/v1/namespaces/default/deployments', { ...d, metadata: { name: 'm' }, spec: { ...d.spec, selector: { matchLabels: { app: 'other' } } } });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.details.causes).toEqual([expect.objectContaining({ field: 'spec.template.metadata.labels', message: expect.stringContaining('`selector` does not match template `labels`') })]);
    const changed = { ...res.body, spec: { ...res.body.spec, selector: { matchLabels: { app: 'd', x: 'y' } }, template: { ...res.body.spec.template, metadata: { labels: { app: 'd', x: 'y' } } } } };
    const upd = await call('PUT', '/apis/apps/v1/namespaces/default/deployments/d', changed);
    expect(upd.status).toBe(422);
    expect(upd.body.details.causes[0]).toMatchObject({ field: 'spec.selector', message: expect.stringContaining('field is immutable') });
  });

  it('allocates service cluster IPs, defaults ports, keeps clusterIP immutable', async () => {
    const res = await call('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { selector: { app: 'd' }, ports: [{ port: 80 }] } });
    expect(res.status).toBe(201);
    expect(res.body.spec).toMatchObject({ type: 'ClusterIP', sessionAffinity: 'None', ports: [{ port: 80, targetPort: 80, protocol: 'TCP' }] });
    expect(res.body.spec.clusterIP).toMatch(/^10\.9[6-9]\./);
    expect(res.body.spec.clusterIPs).toEqual([res.body.spec.clusterIP]);
    const other = await call('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 's2' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } });
    expect(other.body.spec.clusterIP).not.toBe(res.body.spec.clusterIP);
    expect(other.body.spec.ports[0].nodePort).toBeGreaterThanOrEqual(30000);
    const upd = await call('PUT', '/api/v1/namespaces/default/services/s', { ...res.body, spec: { ...res.body.spec, clusterIP: '10.96.99.99', clusterIPs: ['10.96.99.99'] } });
    expect(upd.status).toBe(422);
    expect(upd.body.details.causes[0]).toMatchObject({ field: 'spec.clusterIPs[0]', message: 'Invalid value: "10.96.99.99": may not change once set' });
    const noPorts = await call('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'np' }, spec: {} });
    expect(noPorts.body.details.causes).toEqual([{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.ports' }]);
  });

  it('secrets: stringData folds into data, type defaults to Opaque and is immutable', async () => {
    const res = await call('POST', '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sec' }, stringData: { password: 'pw' } });
    expect(res.body).toMatchObject({ type: 'Opaque', data: { password: Buffer.from('pw').toString('base64') } });
    expect(res.body.stringData).toBeUndefined();
    const upd = await call('PUT', '/api/v1/namespaces/default/secrets/sec', { ...res.body, type: 'kubernetes.io/tls' });
    expect(upd.status).toBe(422);
    expect(upd.body.details.causes.map((c: { field: string }) => c.field)).toEqual(['data[tls.crt]', 'data[tls.key]', 'type']);
    const badKey = await call('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { 'bad key': 'x' } });
    expect(badKey.body.details.causes[0]).toMatchObject({ field: 'data[bad key]' });
  });

  it('jobs get a generated selector; leases and namespaces are checked', async () => {
    const res = await call('POST', '/apis/batch/v1/namespaces/default/jobs', { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [container] } } } });
    expect(res.status).toBe(201);
    expect(res.body.spec).toMatchObject({ completions: 1, parallelism: 1, backoffLimit: 6, selector: { matchLabels: { 'controller-uid': res.body.metadata.uid } } });
    expect(res.body.spec.template.metadata.labels).toEqual({ 'controller-uid': res.body.metadata.uid, 'job-name': 'j' });
    const always = await call('POST', '/apis/batch/v1/namespaces/default/jobs', { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j2' }, spec: { template: { spec: { containers: [container] } } } });
    expect(always.body.details.causes[0]).toMatchObject({ field: 'spec.template.spec.restartPolicy', reason: 'FieldValueRequired', message: 'Required value: valid values: "OnFailure", "Never"' });
    const lease = await call('POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' }, spec: { leaseDurationSeconds: 0, leaseTransitions: -1 } });
    expect(lease.body.details.causes.map((c: { field: string }) => c.field)).toEqual(['spec.leaseDurationSeconds', 'spec.leaseTransitions']);
    // a renewTime that is no MicroTime fails the decode before admission (400, as kube-apiserver 1.20)
    const notATime = await call('POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' }, spec: { renewTime: 'yesterday' } });
    expect(notATime.status).toBe(400);
    const ns = await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a.b' } });
    expect(ns.body.details.causes[0]).toMatchObject({ field: 'metadata.name' });
  });

  it('is the default of startApiServer and inProcessCluster; strict: false turns it off', async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bare', namespace: 'default' }, spec: {} };
    expect(() => server.create(pod)).toThrow(/422 Invalid: Pod "bare" is invalid: spec.containers: Required value/);
    const cluster = inProcessCluster();
    try {
      expect(() => cluster.create(pod)).toThrow(/spec.containers: Required value/);
      await expect(cluster.client.objects({ apiVersion: 'v1', kind: 'Pod' }, 'default').create(pod)).rejects.toMatchObject({ statusCode: 422 });
    } finally {
      cluster.close();
    }
    const lenient = inProcessCluster({ strict: false });
    try {
      expect(lenient.create(pod)['spec']).toEqual({});
    } finally {
      lenient.close();
    }
  });

  it('a binding sets the node of a pod, which an update may not change', async () => {
    const pods = '/api/v1/namespaces/default/pods';
    await call('POST', pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'to-bind' }, spec: podSpec });
    const bind = await call('POST', `${pods}/to-bind/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'to-bind' }, target: { apiVersion: 'v1', kind: 'Node', name: 'n1' } });
    expect(bind.status).toBe(201);
    const bound = (await call('GET', `${pods}/to-bind`)).body;
    expect(bound.spec.nodeName).toBe('n1');
    const moved = await call('PUT', `${pods}/to-bind`, { ...bound, spec: { ...bound.spec, nodeName: 'n2' } });
    expect(moved.status).toBe(422);
  });

  it('lenient servers (strict: false) store objects as sent', async () => {
    const lenient = await startApiServer({ strict: false });
    try {
      const res = await makeClient(lenient.url)('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' }, spec: {} });
      expect(res.status).toBe(201);
      expect(res.body.spec).toEqual({});
    } finally {
      await lenient.close();
    }
  });
});
