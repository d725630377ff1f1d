/**
 * kubectl, a client nobody here wrote, drives the embedded API server: create from a manifest,
 * get, list with a label selector, patch, delete, apply, and `get -w` seeing the changes.
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';

const run = promisify(execFile);
const hasKubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
if (!hasKubectl) {
  const msg = '\n!!! kubectl NOT FOUND on PATH: the kubectl compatibility tests are SKIPPED. Install kubectl to run them. !!!\n';
  if (process.env['CI']) throw new Error(`${msg}(failing because CI is set)`);
  console.warn(msg);
}

const MANIFEST = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  labels: {app: web}
data:
  color: blue
---
apiVersion: v1
kind: Pod
metadata:
  name: web-1
  labels: {app: web, tier: front}
spec:
  containers:
  - name: main
    image: nginx:1.27
---
apiVersion: v1
kind: Pod
metadata:
  name: db-1
  labels: {app: db}
spec:
  containers:
  - name: main
    image: postgres:17
`;

describe.skipIf(!hasKubectl)('kubectl against the embedded API server', () => {
  let server: ApiServer;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const kubectl = async (...args: string[]) => (await run('kubectl', args, { env, timeout: 30_000 })).stdout;

  beforeAll(async () => {
    server = await startApiServer({ token: true, tls: true });
    dir = await mkdtemp(join(tmpdir(), 'rxkube-kubectl-'));
    await server.writeKubeconfig(join(dir, 'kubeconfig'));
    await writeFile(join(dir, 'manifest.yaml'), MANIFEST);
    env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir, KUBECACHEDIR: join(dir, 'cache') };
  });
  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('creates from a manifest', async () => {
    const out = await kubectl('create', '-f', join(dir, 'manifest.yaml'));
    expect(out).toContain('configmap/settings created');
    expect(out).toContain('pod/web-1 created');
    expect(out).toContain('pod/db-1 created');
    expect(server.get('v1', 'Pod', 'web-1', 'default')?.metadata?.labels).toEqual({ app: 'web', tier: 'front' });
  });

  it('gets one object as JSON and as a table', async () => {
    const cm = JSON.parse(await kubectl('get', 'configmap', 'settings', '-o', 'json')) as { data: Record<string, string>; metadata: { uid: string } };
    expect(cm.data).toEqual({ color: 'blue' });
    expect(cm.metadata.uid).toBe(server.get('v1', 'ConfigMap', 'settings', 'default')?.metadata?.uid);
    // Server-side Table: kubectl's usual pod columns.
    expect(await kubectl('get', 'pods')).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\n(.*\n)*web-1\s+0\/1\s+Pending\s+0\s+/m);
  });

  it('lists with a label selector', async () => {
    expect((await kubectl('get', 'pods', '-l', 'app=web', '-o', 'name')).trim()).toBe('pod/web-1');
    expect((await kubectl('get', 'pods', '-l', 'app in (web,db)', '-o', 'name')).trim().split('\n').sort()).toEqual(['pod/db-1', 'pod/web-1']);
    expect((await kubectl('get', 'all', '-l', 'app=db', '-o', 'name')).trim()).toBe('pod/db-1');
  });

  it('patches (merge, JSON and strategic) and labels', async () => {
    await kubectl('patch', 'configmap', 'settings', '--type', 'merge', '-p', '{"data":{"color":"green"}}');
    expect(server.get('v1', 'ConfigMap', 'settings', 'default')?.['data']).toEqual({ color: 'green' });
    await kubectl('patch', 'configmap', 'settings', '--type', 'json', '-p', '[{"op":"add","path":"/data/size","value":"L"}]');
    expect(server.get('v1', 'ConfigMap', 'settings', 'default')?.['data']).toEqual({ color: 'green', size: 'L' });
    await kubectl('patch', 'pod', 'web-1', '-p', '{"spec":{"containers":[{"name":"main","image":"nginx:1.28"}]}}');
    const pod = server.get('v1', 'Pod', 'web-1', 'default') as { spec: { containers: { name: string; image: string }[] } };
    expect(pod.spec.containers).toEqual([expect.objectContaining({ name: 'main', image: 'nginx:1.28' })]);
    await kubectl('label', 'pod', 'db-1', 'tier=back');
    expect(server.get('v1', 'Pod', 'db-1', 'default')?.metadata?.labels).toEqual({ app: 'db', tier: 'back' });
  });

  it('applies (client-side) a changed manifest', async () => {
    await kubectl('apply', '-f', join(dir, 'manifest.yaml'));
    expect(server.get('v1', 'ConfigMap', 'settings', 'default')?.['data']).toMatchObject({ color: 'blue' });
  });

  it('get -w sees changes made by others', async () => {
    const child = spawn('kubectl', ['get', 'configmaps', '-w', '--output-watch-events'], { env });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const waitFor = async (text: string) => {
      for (let i = 0; i < 200 && !out.includes(text); i++) await new Promise((r) => setTimeout(r, 50));
      expect(out, err).toContain(text);
    };
    try {
      await waitFor('settings');
      // From a manifest (JSON); the protobuf generators are covered by kubectl-generators.test.ts.
      await writeFile(join(dir, 'watched.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: watched}\ndata: {a: b}\n');
      await kubectl('create', '-f', join(dir, 'watched.yaml'));
      await waitFor('ADDED');
      await waitFor('watched');
      await kubectl('delete', 'configmap', 'watched');
      await waitFor('DELETED');
    } finally {
      child.kill();
    }
    expect(out).toMatch(/ADDED\s+watched[\s\S]*DELETED\s+watched/);
  });

  it('creates a CRD and its custom resources, then lists them', async () => {
    const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`;
    await writeFile(join(dir, 'crd.yaml'), crd);
    expect(await kubectl('apply', '-f', join(dir, 'crd.yaml'))).toContain('customresourcedefinition.apiextensions.k8s.io/widgets.example.com created');
    await writeFile(join(dir, 'widget.yaml'), 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1, labels: {size: big}}\nspec: {size: 3}\n');
    expect(await kubectl('create', '-f', join(dir, 'widget.yaml'))).toContain('widget.example.com/w1 created');
    expect((await kubectl('get', 'wd', '-l', 'size=big', '-o', 'name')).trim()).toBe('widget.example.com/w1');
  });

  it('deletes', async () => {
    const out = await kubectl('delete', 'pod', 'db-1', 'web-1');
    expect(out).toContain('pod "db-1" deleted');
    expect(server.list('v1', 'Pod', 'default')).toEqual([]);
    await expect(kubectl('get', 'pod', 'db-1')).rejects.toThrow(/NotFound|not found/);
  });
});
