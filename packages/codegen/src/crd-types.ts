import type { JSONSchema4 } from 'json-schema';
import type { K8s } from 'rxkube';

type CustomResourceDefinition = K8s.CustomResourceDefinition;
type JSONSchemaProps = K8s.JSONSchemaProps;

/**
 * TypeScript types for custom resources, from their CustomResourceDefinitions: one interface per
 * served version, compiled from the version's `openAPIV3Schema` by `json-schema-to-typescript`,
 * and a typed `ResourceType` descriptor for each. What `rxkube generate-types` writes.
 */

/** Options of {@link generateCrdTypes}. */
export interface GenerateCrdTypesOptions {
  /** The module the generated file imports `ObjectMeta` and `ResourceType` from. Default `rxkube`. */
  readonly importFrom?: string;
}

/** Names of the generated declarations of one served version of a CRD. */
export interface GeneratedNames {
  /** The object interface, e.g. `DatabaseV1`. */
  readonly type: string;
  /** The descriptor constant, e.g. `DATABASES_V1`. */
  readonly descriptor: string;
}

type Schema = JSONSchemaProps & { readonly [extension: string]: unknown };

/** `v1beta1` → `V1Beta1` (json-schema-to-typescript's own casing of type names). */
function pascal(version: string): string {
  return version.replace(/(^|\d)([a-z])/g, (_m: string, before: string, letter: string) => before + letter.toUpperCase());
}

/** `CertificateRequest` with plural `certificaterequests` → `CERTIFICATE_REQUESTS`; `Policy`/`policies` → `POLICIES`. */
export function descriptorBaseName(kind: string, plural: string): string {
  const words = kind.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+/g) ?? [kind];
  const out: string[] = [];
  let rest = plural.toLowerCase();
  for (const [i, word] of words.entries()) {
    const w = word.toLowerCase();
    if (i < words.length - 1 && rest.startsWith(w)) {
      out.push(w);
      rest = rest.slice(w.length);
    } else {
      out.push(rest);
      rest = '';
      break;
    }
  }
  if (rest !== '') out.push(rest);
  return out.filter((w) => w !== '').join('_').toUpperCase().replace(/[^A-Z0-9_]/g, '_');
}

/** The declarations generated for each served version of `crd`. */
export function generatedNames(crd: CustomResourceDefinition): Map<string, GeneratedNames> {
  const { names } = crd.spec;
  const base = descriptorBaseName(names.kind, names.plural);
  const out = new Map<string, GeneratedNames>();
  for (const v of crd.spec.versions) {
    if (v.served === false) continue;
    out.set(v.name, { type: `${names.kind}${pascal(v.name)}`, descriptor: `${base}_${v.name.toUpperCase()}` });
  }
  return out;
}

/** A Kubernetes structural schema as plain JSON Schema for json-schema-to-typescript. */
function toJsonSchema(schema: Schema): JSONSchema4 {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key.startsWith('x-kubernetes-') || key === 'title' || key === 'nullable' || key === 'default' || key === 'example') continue;
    if (key === 'properties' || key === 'patternProperties' || key === 'definitions') {
      // Sorted, as kube-apiserver returns them: the same CRD gives the same file from a manifest or a server.
      const entries = Object.entries(value as Record<string, Schema>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      out[key] = Object.fromEntries(entries.map(([k, v]) => [k, toJsonSchema(v)]));
    } else if (key === 'items') {
      out[key] = Array.isArray(value) ? value.map((v: Schema) => toJsonSchema(v)) : toJsonSchema(value as Schema);
    } else if (key === 'additionalProperties' || key === 'additionalItems') {
      out[key] = typeof value === 'boolean' ? value : toJsonSchema(value as Schema);
    } else if (key === 'allOf' || key === 'anyOf' || key === 'oneOf') {
      out[key] = (value as Schema[]).map((v) => toJsonSchema(v));
    } else if (key === 'not') {
      continue; // a negative constraint narrows nothing a TypeScript type can say
    } else {
      out[key] = value;
    }
  }
  if (schema['x-kubernetes-int-or-string'] === true && out['anyOf'] === undefined) {
    delete out['type'];
    out['anyOf'] = [{ type: 'integer' }, { type: 'string' }];
  }
  // Unknown fields are pruned unless preserved: only then may an object carry fields not listed.
  if (schema['x-kubernetes-preserve-unknown-fields'] === true && out['additionalProperties'] === undefined) {
    out['additionalProperties'] = true;
  }
  if (schema.nullable === true) {
    const { description, ...rest } = out;
    return { ...(description === undefined ? {} : { description }), anyOf: [rest as JSONSchema4, { type: 'null' }] } as JSONSchema4;
  }
  return out as JSONSchema4;
}

function rootSchema(crd: CustomResourceDefinition, apiVersion: string, schema: Schema | undefined): JSONSchema4 {
  const converted = toJsonSchema(schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
  const properties = { ...(converted.properties ?? {}) };
  delete properties['apiVersion'];
  delete properties['kind'];
  delete properties['metadata'];
  const required = (Array.isArray(converted.required) ? (converted.required as string[]) : []).filter((r) => !['apiVersion', 'kind', 'metadata'].includes(r));
  const { required: _required, ...rest } = converted;
  return {
    ...rest,
    type: 'object',
    description: converted.description ?? `${crd.spec.names.kind} (${apiVersion}), from the CustomResourceDefinition ${crd.metadata?.name ?? ''}.`,
    properties: {
      apiVersion: { tsType: JSON.stringify(apiVersion).replace(/"/g, "'") },
      kind: { tsType: `'${crd.spec.names.kind}'` },
      metadata: { tsType: 'ObjectMeta' },
      ...properties,
    },
    ...(required.length === 0 ? {} : { required }),
  };
}

/**
 * The TypeScript source for `crds`: per served version an interface (`DatabaseV1`) and a
 * descriptor (`DATABASES_V1: ResourceType<DatabaseV1>`), plus unversioned aliases for the storage
 * version (`Database`, `DATABASES`). Deterministic: CRDs in name order, versions as listed.
 */
export async function generateCrdTypes(crds: readonly CustomResourceDefinition[], options: GenerateCrdTypesOptions = {}): Promise<string> {
  const { compile } = await import('json-schema-to-typescript');
  const sorted = [...crds].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  const chunks: string[] = [
    `// Generated by \`rxkube generate-types\` from the CustomResourceDefinition${sorted.length === 1 ? '' : 's'} ${sorted.map((c) => c.metadata?.name ?? '').join(', ')}.`,
    '// Do not edit: change the CRD and regenerate.',
    '',
    `import type { ObjectMeta, ResourceType } from '${options.importFrom ?? 'rxkube'}';`,
  ];
  for (const crd of sorted) {
    const { group, names, scope } = crd.spec;
    const versionNames = generatedNames(crd);
    if (versionNames.size === 0) throw new Error(`CustomResourceDefinition ${crd.metadata?.name ?? ''} serves no version`);
    for (const version of crd.spec.versions) {
      const declared = versionNames.get(version.name);
      if (declared === undefined) continue;
      const apiVersion = `${group}/${version.name}`;
      const schema = version.schema?.openAPIV3Schema as Schema | undefined;
      const source = await compile(rootSchema(crd, apiVersion, schema), declared.type, {
        bannerComment: '',
        additionalProperties: false,
        declareExternallyReferenced: true,
        unknownAny: true,
        style: { singleQuote: true, printWidth: 120, trailingComma: 'all' },
      });
      if (!source.includes(`export interface ${declared.type} `)) {
        throw new Error(`json-schema-to-typescript did not name the type ${declared.type}:\n${source}`);
      }
      chunks.push('', source.trim(), '');
      chunks.push(`/** \`${names.plural}.${group}\` ${version.name} (${scope === 'Namespaced' ? 'namespaced' : 'cluster-scoped'}). */`);
      chunks.push(
        `export const ${declared.descriptor}: ResourceType<${declared.type}> = {`,
        `  apiVersion: '${apiVersion}',`,
        `  kind: '${names.kind}',`,
        `  plural: '${names.plural}',`,
        `  namespaced: ${scope === 'Namespaced'},`,
        '};',
      );
    }
    const storage = crd.spec.versions.find((v) => v.storage === true && versionNames.has(v.name)) ?? crd.spec.versions.find((v) => versionNames.has(v.name));
    const aliased = storage === undefined ? undefined : versionNames.get(storage.name);
    if (aliased !== undefined) {
      const base = descriptorBaseName(names.kind, names.plural);
      chunks.push('', `/** ${names.kind} at its storage version (${storage?.name ?? ''}). */`);
      chunks.push(`export type ${names.kind} = ${aliased.type};`);
      chunks.push(`export const ${base} = ${aliased.descriptor};`);
    }
  }
  return `${chunks.join('\n')}\n`;
}
