import { ScaffoldError } from './scaffold-error.js';

/** The names one custom resource kind is written under, derived from its group, kind and versions. */
export interface KindNames {
  /** API group, e.g. `example.com`. */
  readonly group: string;
  /** PascalCase kind, e.g. `CertificateRequest`. */
  readonly kind: string;
  /** lowerCamelCase, for functions: `certificateRequest`. */
  readonly camel: string;
  /** kebab-case, for file names and the controller name: `certificate-request`. */
  readonly file: string;
  /** The resource's plural: `certificaterequests`. */
  readonly plural: string;
  /** The singular: `certificaterequest`. */
  readonly singular: string;
  /** The descriptor `rxkube generate-types` writes for the storage version: `CERTIFICATE_REQUESTS`. */
  readonly descriptor: string;
  /** SCREAMING_SNAKE of the kind, for constants: `CERTIFICATE_REQUEST`. */
  readonly constant: string;
  /** Served versions; the first is the storage version. */
  readonly versions: readonly string[];
}

const KIND = /^[A-Z][A-Za-z0-9]{0,62}$/;
const VERSION = /^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** English plural of a lower-case word, as kubebuilder guesses it (`policy` → `policies`). */
export function pluralOf(word: string): string {
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(word)) return `${word}es`;
  return `${word}s`;
}

function words(kind: string): string[] {
  return kind.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+/g) ?? [kind];
}

/** Checks a group name (a DNS subdomain with at least one dot). */
export function checkGroup(group: string): string {
  const labels = group.split('.');
  if (group.length > 253 || labels.length < 2 || !labels.every((l) => DNS_LABEL.test(l))) {
    throw new ScaffoldError('SCAFFOLD_INPUT_INVALID', `--group ${JSON.stringify(group)}: not a DNS subdomain with a dot (e.g. example.com)`);
  }
  return group;
}

/** Parses `v1` or `v1,v2beta1` into versions; the first one is the storage version. */
export function parseVersions(text: string): string[] {
  const versions = text.split(',').map((v) => v.trim()).filter((v) => v !== '');
  if (versions.length === 0) throw new ScaffoldError('SCAFFOLD_INPUT_INVALID', '--versions: no version given (e.g. v1 or v1,v1beta1)');
  for (const v of versions) {
    if (!VERSION.test(v)) throw new ScaffoldError('SCAFFOLD_INPUT_INVALID', `--versions: ${JSON.stringify(v)} is not a Kubernetes API version (v1, v2beta1, v1alpha2)`);
  }
  if (new Set(versions).size !== versions.length) throw new ScaffoldError('SCAFFOLD_INPUT_INVALID', `--versions: ${versions.join(',')} names a version twice`);
  return versions;
}

/** The names of a kind, after checking group, kind and versions. */
export function kindNames(group: string, kind: string, versions: readonly string[]): KindNames {
  checkGroup(group);
  if (!KIND.test(kind)) throw new ScaffoldError('SCAFFOLD_INPUT_INVALID', `--kind ${JSON.stringify(kind)}: a kind is PascalCase letters and digits (e.g. Widget)`);
  if (versions.length === 0) throw new ScaffoldError('SCAFFOLD_INPUT_INVALID', `--versions: no version given for ${kind}`);
  const parts = words(kind);
  const last = parts.length - 1;
  const singular = kind.toLowerCase();
  return {
    group,
    kind,
    camel: kind.charAt(0).toLowerCase() + kind.slice(1),
    file: parts.map((w) => w.toLowerCase()).join('-'),
    plural: pluralOf(singular),
    singular,
    descriptor: parts.map((w, i) => (i === last ? pluralOf(w.toLowerCase()) : w.toLowerCase())).join('_').toUpperCase(),
    constant: parts.join('_').toUpperCase(),
    versions: [...versions],
  };
}

/** Checks the new project's name: an npm package name that is also a Kubernetes object name (a DNS label). */
export function checkProjectName(name: string): string {
  if (!DNS_LABEL.test(name)) {
    throw new ScaffoldError('SCAFFOLD_INPUT_INVALID', `project name ${JSON.stringify(name)}: use lower-case letters, digits and '-' (at most 63; it becomes the npm package name and the Kubernetes object names)`);
  }
  return name;
}
