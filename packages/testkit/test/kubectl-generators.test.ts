/**
 * kubectl's typed generators (`create namespace|configmap|secret|deployment|job`, `run`, `expose`)
 * send protobuf bodies and ask for protobuf answers: the embedded server speaks Kubernetes protobuf.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';

const run = promisify(execFile);
const hasKubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
if (!hasKubectl) console.warn('\n!!! kubectl NOT FOUND on PATH: the kubectl generator tests are SKIPPED. !!!\n');

describe.skipIf(!hasKubectl)('kubectl generators (protobuf) against the embedded API server', () => {
  let server: ApiServer;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const kubectl = async (...args: string[]) => (await run('kubectl', args, { env, timeout: 30_000 })).stdout;

  beforeAll(async () => {
    server = await startApiServer({ token: true, tls: true });
    dir = await mkdtemp(join(tmpdir(), 'rxkube-kubectl-gen-'));
    await server.writeKubeconfig(join(dir, 'kubeconfig'));
    env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir, KUBECACHEDIR: join(dir, 'cache') };
  });
  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('create namespace', async () => {
    expect(await kubectl('create', 'namespace', 'team-a')).toContain('namespace/team-a created');
    expect(server.get('v1', 'Namespace', 'team-a')?.metadata?.uid).toBeTruthy();
  });

  it('create configmap and secret generic', async () => {
    expect(await kubectl('create', 'configmap', 'cfg', '-n', 'team-a', '--from-literal=color=blue', '--from-literal=size=L')).toContain('configmap/cfg created');
    expect(server.get('v1', 'ConfigMap', 'cfg', 'team-a')?.['data']).toEqual({ color: 'blue', size: 'L' });
    expect(await kubectl('create', 'secret', 'generic', 'pw', '-n', 'team-a', '--from-literal=password=s3cr3t')).toContain('secret/pw created');
    const secret = server.get('v1', 'Secret', 'pw', 'team-a') as { data: Record<string, string>; type: string };
    expect(Buffer.from(secret.data['password'] ?? '', 'base64').toString()).toBe('s3cr3t');
    expect(secret.type).toBe('Opaque');
  });

  it('create deployment, then expose it', async () => {
    expect(await kubectl('create', 'deployment', 'web', '-n', 'team-a', '--image=nginx:1.27', '--replicas=2', '--port=8080')).toContain('deployment.apps/web created');
    const d = server.get('apps/v1', 'Deployment', 'web', 'team-a') as { spec: { replicas: number; selector: unknown; template: { spec: { containers: { image: string; ports: unknown[] }[] } } } };
    expect(d.spec.replicas).toBe(2);
    expect(d.spec.selector).toEqual({ matchLabels: { app: 'web' } });
    expect(d.spec.template.spec.containers[0]?.image).toBe('nginx:1.27');
    expect(d.spec.template.spec.containers[0]?.ports).toEqual([{ containerPort: 8080, protocol: 'TCP' }]);
    expect(await kubectl('expose', 'deployment', 'web', '-n', 'team-a', '--port=80', '--target-port=8080')).toContain('service/web exposed');
    const svc = server.get('v1', 'Service', 'web', 'team-a') as { spec: { ports: { port: number; targetPort: number }[]; selector: unknown } };
    expect(svc.spec.selector).toEqual({ app: 'web' });
    expect(svc.spec.ports[0]).toMatchObject({ port: 80, targetPort: 8080, protocol: 'TCP' });
    expect((svc.spec as { clusterIP?: string }).clusterIP).toMatch(/^10\.(9[6-9]|1[01]\d)\./);
  });

  it('create job', async () => {
    expect(await kubectl('create', 'job', 'once', '-n', 'team-a', '--image=busybox', '--', 'echo', 'hi')).toContain('job.batch/once created');
    const job = server.get('batch/v1', 'Job', 'once', 'team-a') as { spec: { template: { spec: { containers: { command: string[] }[] } } } };
    expect(job.spec.template.spec.containers[0]?.command).toEqual(['echo', 'hi']);
  });

  it('run a pod', async () => {
    expect(await kubectl('run', 'solo', '-n', 'team-a', '--image=nginx', '--labels=app=solo', '--env=A=1')).toContain('pod/solo created');
    const pod = server.get('v1', 'Pod', 'solo', 'team-a') as { metadata: { labels: unknown }; spec: { containers: { env: unknown }[] } };
    expect(pod.metadata.labels).toEqual({ app: 'solo' });
    expect(pod.spec.containers[0]?.env).toEqual([{ name: 'A', value: '1' }]);
  });

  it('explain reads the OpenAPI schemas; api-resources lists every built-in resource', async () => {
    expect(await kubectl('explain', 'pods.spec.restartPolicy')).toMatch(/Restart policy for all containers/);
    expect(await kubectl('explain', 'deployment.spec.strategy')).toMatch(/DeploymentStrategy/);
    const resources = await kubectl('api-resources', '--no-headers');
    for (const name of ['statefulsets', 'daemonsets', 'cronjobs', 'endpoints', 'ingresses', 'persistentvolumeclaims', 'endpointslices', 'clusterroles']) {
      expect(resources).toMatch(new RegExp(`^${name}\\s`, 'm'));
    }
  });

  it('get prints kubectl tables, -o wide included', async () => {
    expect(await kubectl('get', 'svc', '-n', 'team-a')).toMatch(/^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\nweb\s+ClusterIP\s+10\.\d+\.\d+\.\d+\s+<none>\s+80\/TCP\s+\d+s\n$/);
    expect(await kubectl('get', 'pods', '-n', 'team-a', '-o', 'wide')).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES\nsolo\s+0\/1\s+Pending\s+0\s+\d+s\s+<none>\s+<none>\s+<none>\s+<none>\n$/);
    expect(await kubectl('get', 'deploy', '-n', 'team-a', '-o', 'wide')).toMatch(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\nweb\s+0\/2\s+0\s+0\s+\d+s\s+nginx\s+nginx:1\.27\s+app=web\n$/);
    expect(await kubectl('get', 'jobs', '-n', 'team-a')).toMatch(/^NAME\s+COMPLETIONS\s+DURATION\s+AGE\nonce\s+0\/1\s+\d+s\n$/);
  });

  it('cordon: get node shows SchedulingDisabled next to the Ready status (kube-apiserver 1.20 node table)', async () => {
    server.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    expect(await kubectl('cordon', 'n1')).toContain('node/n1 cordoned');
    expect(await kubectl('get', 'node', 'n1')).toMatch(/^NAME\s+STATUS\s+.*\nn1\s+Unknown,SchedulingDisabled\s/);
    expect(await kubectl('uncordon', 'n1')).toContain('node/n1 uncordoned');
    expect(await kubectl('get', 'node', 'n1')).toMatch(/\nn1\s+Unknown\s/);
  });

  it('create -f of a kind: List validates it with the protobuf /openapi/v2 (client-side)', async () => {
    const deployment = (name: string, selector: string) => `- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: ${name}}
  spec:
    ${selector}: {matchLabels: {app: ${name}}}
    template:
      metadata: {labels: {app: ${name}}}
      spec: {containers: [{name: c, image: nginx}]}
`;
    await writeFile(join(dir, 'list.yaml'), `apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: listed}\n${deployment('listed', 'selector')}`);
    const out = await kubectl('create', '-n', 'team-a', '-f', join(dir, 'list.yaml'));
    expect(out).toContain('configmap/listed created');
    expect(out).toContain('deployment.apps/listed created');
    await writeFile(join(dir, 'bad.yaml'), `apiVersion: v1\nkind: List\nitems:\n${deployment('typo', 'selectr')}`);
    await expect(kubectl('create', '-n', 'team-a', '-f', join(dir, 'bad.yaml'))).rejects.toThrow(/unknown field "selectr" in io\.k8s\.api\.apps\.v1\.DeploymentSpec/);
  });

  it('explain reads the schema of a custom resource', async () => {
    await writeFile(join(dir, 'crd.yaml'), `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: The gadget's wishes.
            properties:
              size: {type: integer, description: How big the gadget is.}
`);
    await kubectl('create', '-f', join(dir, 'crd.yaml'));
    expect(await kubectl('explain', 'gadgets.spec.size')).toMatch(/How big the gadget is/);
  });

  it('get -o yaml reads the same objects back', async () => {
    const cm = JSON.parse(await kubectl('get', 'configmap', 'cfg', '-n', 'team-a', '-o', 'json')) as { data: unknown };
    expect(cm.data).toEqual({ color: 'blue', size: 'L' });
  });
});
