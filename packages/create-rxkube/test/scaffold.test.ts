/**
 * `create-rxkube` scaffolds into a temp dir: every template renders (no placeholder left), the
 * CRD is valid YAML whose generated types (by @rxkube/codegen) carry the names the templates
 * import, `api` adds a second kind at the manager's markers, and bad input or an existing kind
 * is refused without writing.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateCrdTypes } from '@rxkube/codegen';
import type { K8s } from 'rxkube';
import { addKind, createProject, kindNames, main, PROJECT_DEV_DEPENDENCIES, RXKUBE_VERSION, ScaffoldError, substitute, type CliIo } from '../src/index.js';

let work: string;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'create-rxkube-'));
});
afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1)).sort();
}

function io(): CliIo & { text: () => string } {
  let text = '';
  return { out: (t) => void (text += t), err: (t) => void (text += t), cwd: work, text: () => text };
}

describe('create-rxkube', () => {
  it('writes a project with the first kind: CRD, controller, tests, manager, Dockerfile, deploy/, CI', async () => {
    const dir = join(work, 'my-operator');
    expect(await main([dir, '--group', 'shop.example.com', '--kind', 'CertificateRequest', '--versions', 'v1,v2beta1', '--yes'], io())).toBe(0);
    expect(await files(dir)).toEqual([
      '.dockerignore',
      '.github/workflows/ci.yaml',
      '.gitignore',
      'Dockerfile',
      'README.md',
      'crds/certificaterequests.shop.example.com.yaml',
      'deploy/operator.yaml',
      'package.json',
      'src/certificate-request-controller.ts',
      'src/certificate-request.ts',
      'src/crds.ts',
      'src/main.ts',
      'src/manager.ts',
      'src/manifests.ts',
      'test/certificate-request-controller.test.ts',
      'test/manager.test.ts',
      'tsconfig.json',
      'vitest.config.ts',
    ]);
    for (const file of await files(dir)) expect(await readFile(join(dir, file), 'utf8'), file).not.toMatch(/\{\{|\}\}/);

    const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { name: string; scripts: Record<string, string>; dependencies: Record<string, string>; devDependencies: Record<string, string> };
    expect(pkg.name).toBe('my-operator');
    expect(Object.keys(pkg.scripts)).toEqual(expect.arrayContaining(['dev', 'test', 'build', 'manifests', 'generate']));
    expect(pkg.dependencies['rxkube']).toBe(`^${RXKUBE_VERSION}`);
    expect(pkg.devDependencies['@rxkube/testkit']).toBe(`^${RXKUBE_VERSION}`);

    // The CRD: both versions served, the first stored, with a status subresource.
    const crd = load(await readFile(join(dir, 'crds/certificaterequests.shop.example.com.yaml'), 'utf8')) as K8s.CustomResourceDefinition;
    expect(crd.metadata?.name).toBe('certificaterequests.shop.example.com');
    expect(crd.spec.versions.map((v) => [v.name, v.storage, v.subresources?.status])).toEqual([['v1', true, {}], ['v2beta1', false, {}]]);

    // The names the templates import are the ones @rxkube/codegen generates from that CRD.
    const generated = await generateCrdTypes([crd]);
    const names = kindNames('shop.example.com', 'CertificateRequest', ['v1', 'v2beta1']);
    expect(generated).toContain(`export const ${names.descriptor} = ${names.descriptor}_V1;`);
    expect(generated).toContain(`export type ${names.kind} = ${names.kind}V1;`);
    // Conditions typed as rxkube's `Condition` (required type and status), so `conditions.set` fits.
    expect(generated).toMatch(/conditions\?: \{[^}]*status: 'True' \| 'False' \| 'Unknown';\s+type: string;\s+\}\[\];/);
    const kindModule = await readFile(join(dir, 'src/certificate-request.ts'), 'utf8');
    expect(kindModule).toContain(`import { CERTIFICATE_REQUESTS, type CertificateRequest } from './api.generated.js';`);

    const manager = await readFile(join(dir, 'src/manager.ts'), 'utf8');
    expect(manager).toContain(`import { certificateRequestController } from './certificate-request-controller.js';`);
    expect(manager).toContain('mgr.add(certificateRequestController({ informers, client: options.client }));');
    expect(manager).toContain(`sampleCertificateRequest('certificate-request-sample'),`);

    // Run out of cluster as its ServiceAccount (docs/guide/04-deploy.md): a kubeconfig holding a
    // token stays out of git, and leader election can be asked for (the Role on Leases is used).
    expect((await readFile(join(dir, '.gitignore'), 'utf8')).split('\n')).toContain('*.kubeconfig');
    expect(await readFile(join(dir, 'src/main.ts'), 'utf8')).toContain(`process.env['LEADER_ELECTION_NAMESPACE']`);
  });

  it('`api` adds a second kind at the markers, in the project group, and refuses one that exists', async () => {
    const dir = join(work, 'ops');
    await createProject({ dir, name: 'ops', group: 'ops.example.org', kind: 'Widget', versions: ['v1'] });
    const before = await readFile(join(dir, 'src/manager.ts'), 'utf8');
    const out = io();
    expect(await main(['api', dir, '--kind', 'Policy', '--versions', 'v1alpha1'], out)).toBe(0);
    expect(out.text()).toContain('added Policy (policies.ops.example.org, v1alpha1)');
    const manager = await readFile(join(dir, 'src/manager.ts'), 'utf8');
    expect(manager).toContain('mgr.add(widgetController({ informers, client: options.client }));\n  mgr.add(policyController({ informers, client: options.client }));');
    expect(manager.split('\n').length).toBe(before.split('\n').length + 4);
    expect(await files(dir)).toEqual(expect.arrayContaining(['crds/policies.ops.example.org.yaml', 'src/policy-controller.ts', 'src/policy.ts', 'test/policy-controller.test.ts']));

    // One file of the kind gone, the others there: refused as a whole, nothing written.
    await rm(join(dir, 'crds/policies.ops.example.org.yaml'));
    await expect(addKind({ dir, group: 'ops.example.org', kind: 'Policy', versions: ['v1'] })).rejects.toMatchObject({ code: 'SCAFFOLD_KIND_EXISTS' });
    expect(await files(dir)).not.toContain('crds/policies.ops.example.org.yaml');
    expect(await readFile(join(dir, 'src/manager.ts'), 'utf8')).toBe(manager);
    await expect(addKind({ dir: work, group: 'ops.example.org', kind: 'Gadget', versions: ['v1'] })).rejects.toMatchObject({ code: 'SCAFFOLD_NOT_A_PROJECT' });
  });

  it('refuses bad input and a folder that is not empty, naming the flag', async () => {
    const out = io();
    expect(await main([join(work, 'a'), '--kind', 'widget', '--yes'], out)).toBe(1);
    expect(out.text()).toContain('--kind "widget"');
    expect(await main([join(work, 'b'), '--group', 'nodot', '--yes'], io())).toBe(1);
    expect(await main([join(work, 'c'), '--versions', 'v1,1.0', '--yes'], io())).toBe(1);
    expect(await main([join(work, 'Bad_Name'), '--yes'], io())).toBe(1);
    expect(await readdir(work)).toEqual([]);
    await writeFile(join(work, 'x'), '');
    await expect(createProject({ dir: work, name: 'x', group: 'example.com', kind: 'Widget', versions: ['v1'] })).rejects.toMatchObject({ code: 'SCAFFOLD_TARGET_NOT_EMPTY' });
    expect(() => substitute('{{nope}}', {}, 'here')).toThrow(ScaffoldError);
  });

  it('names the marker line `api` needs when src/manager.ts lost it, and writes nothing into it', async () => {
    const dir = join(work, 'edited');
    await createProject({ dir, name: 'edited', group: 'example.com', kind: 'Widget', versions: ['v1'] });
    const manager = (await readFile(join(dir, 'src/manager.ts'), 'utf8')).replace('// create-rxkube:controllers', '');
    await writeFile(join(dir, 'src/manager.ts'), manager);
    await expect(addKind({ dir, group: 'example.com', kind: 'Gadget', versions: ['v1'] })).rejects.toMatchObject({ code: 'SCAFFOLD_MARKER_MISSING', message: expect.stringContaining('// create-rxkube:controllers') });
    expect(await readFile(join(dir, 'src/manager.ts'), 'utf8')).toBe(manager);
    expect((await files(dir)).filter((f) => f.includes('gadget'))).toEqual([]);
    const out = io();
    expect(await main(['--help'], out)).toBe(0);
    expect(out.text()).toContain('create-rxkube api --kind K');
  });

  it('asks for what is not given, unless --yes', async () => {
    const asked: string[] = [];
    const answers: Record<string, string> = { 'Its kind': 'Gizmo' };
    const out: CliIo = { ...io(), ask: async (q, fallback) => (asked.push(q), answers[q] ?? fallback) };
    expect(await main([join(work, 'p'), '--group', 'example.com'], out)).toBe(0);
    expect(asked).toEqual(['Its kind', 'Its versions, the first stored']);
    expect(await files(join(work, 'p'))).toContain('src/gizmo-controller.ts');
  });

  it('pins the tools at the versions rxkube is built with', async () => {
    const repo = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string; devDependencies: Record<string, string>; dependencies: Record<string, string> };
    expect(RXKUBE_VERSION).toBe(repo.version);
    const all = { ...repo.dependencies, ...repo.devDependencies };
    for (const [name, range] of Object.entries(PROJECT_DEV_DEPENDENCIES)) expect(range, name).toBe(all[name]);
  });
});
