import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { loadAll } from 'js-yaml';
import { resources } from 'rxkube';
import type { K8s } from 'rxkube';
import { KubeClient } from 'rxkube';
import { generateCrdTypes } from './crd-types.js';

const USAGE = `rxkube: command-line tools of rxkube.

Usage: rxkube generate-types [FILE...] [--crd NAME]... [--kubeconfig PATH] [--out FILE] [--check]
                             [--import-from MODULE]

  Writes TypeScript types for custom resources: per served version of each CRD an interface
  compiled from its openAPIV3Schema, and a typed ResourceType descriptor for informers, clients
  and controllers.

  FILE                  YAML or JSON manifests (several documents allowed); their
                        CustomResourceDefinitions are used, other objects ignored
  --crd NAME            only this CRD (e.g. databases.example.com); repeatable. Without FILEs the
                        CRDs are read from the API server
  --kubeconfig PATH     the API server's kubeconfig (default: KUBECONFIG, ~/.kube/config or in-cluster)
  --out FILE            write to FILE (default: standard output)
  --check               do not write: exit 1 when FILE (--out) differs from what would be written
  --import-from MODULE  where ObjectMeta and ResourceType are imported from (default: rxkube)`;

/** The CustomResourceDefinitions among the documents of a YAML or JSON manifest. */
export function crdsOfManifest(text: string, file = 'manifest'): K8s.CustomResourceDefinition[] {
  const docs = loadAll(text).flatMap((d: unknown) => (isList(d) ? d.items : [d]));
  const crds: K8s.CustomResourceDefinition[] = [];
  for (const doc of docs) {
    if (doc === null || doc === undefined) continue;
    if (typeof doc !== 'object') throw new Error(`${file}: a document is not an object`);
    const { apiVersion, kind } = doc as { apiVersion?: unknown; kind?: unknown };
    if (kind !== 'CustomResourceDefinition') continue;
    if (apiVersion !== resources.customResourceDefinitions.apiVersion) {
      throw new Error(`${file}: CustomResourceDefinition of ${String(apiVersion)}: only ${resources.customResourceDefinitions.apiVersion} is supported`);
    }
    crds.push(doc as K8s.CustomResourceDefinition);
  }
  return crds;
}

function isList(d: unknown): d is { items: unknown[] } {
  return d !== null && typeof d === 'object' && Array.isArray((d as { items?: unknown }).items) && typeof (d as { kind?: unknown }).kind === 'string';
}

async function fromServer(names: readonly string[], kubeconfig: string | undefined): Promise<K8s.CustomResourceDefinition[]> {
  const client = kubeconfig === undefined ? KubeClient.fromDefault() : KubeClient.fromFile(kubeconfig);
  try {
    const crds = client.objects(resources.customResourceDefinitions);
    return await Promise.all(names.map((name) => crds.get(name)));
  } finally {
    client.close();
  }
}

/** Runs `rxkube …`; resolves with the exit code. `out` and `err` default to the process's streams. */
export async function main(
  argv: readonly string[],
  out: (text: string) => void = (t) => process.stdout.write(t),
  err: (text: string) => void = (t) => process.stderr.write(t),
): Promise<number> {
  const [command, ...args] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    out(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  if (command !== 'generate-types') {
    err(`rxkube: unknown command "${command}"\n\n${USAGE}\n`);
    return 2;
  }
  let values;
  let files: string[];
  try {
    ({ values, positionals: files } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        crd: { type: 'string', multiple: true },
        kubeconfig: { type: 'string' },
        out: { type: 'string', short: 'o' },
        check: { type: 'boolean' },
        'import-from': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    err(`rxkube generate-types: ${(e as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (values.help === true) {
    out(`${USAGE}\n`);
    return 0;
  }
  const wanted = values.crd ?? [];
  if (values.check === true && values.out === undefined) {
    err('rxkube generate-types: --check needs --out FILE\n');
    return 2;
  }
  if (files.length === 0 && wanted.length === 0) {
    err(`rxkube generate-types: give manifest FILEs, or --crd NAME to read from the API server\n\n${USAGE}\n`);
    return 2;
  }
  try {
    let crds: K8s.CustomResourceDefinition[];
    if (files.length === 0) {
      crds = await fromServer(wanted, values.kubeconfig);
    } else {
      crds = [];
      for (const file of files) crds.push(...crdsOfManifest(await readFile(file, 'utf8'), file));
      if (wanted.length > 0) {
        const missing = wanted.filter((n) => !crds.some((c) => c.metadata?.name === n));
        if (missing.length > 0) throw new Error(`no CustomResourceDefinition ${missing.join(', ')} in ${files.join(', ')}`);
        crds = crds.filter((c) => wanted.includes(c.metadata?.name ?? ''));
      }
      if (crds.length === 0) throw new Error(`no CustomResourceDefinition in ${files.join(', ')}`);
    }
    const source = await generateCrdTypes(crds, values['import-from'] === undefined ? {} : { importFrom: values['import-from'] });
    if (values.out === undefined) {
      out(source);
    } else if (values.check === true) {
      const current = await readFile(values.out, 'utf8').catch(() => undefined);
      if (current !== source) {
        err(`rxkube generate-types: ${values.out} is out of date; regenerate it\n`);
        return 1;
      }
    } else {
      await writeFile(values.out, source);
    }
    return 0;
  } catch (e) {
    err(`rxkube generate-types: ${(e as Error).message}\n`);
    return 1;
  }
}
