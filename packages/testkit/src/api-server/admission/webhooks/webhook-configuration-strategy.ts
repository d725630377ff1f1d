/**
 * Defaulting and validation of MutatingWebhookConfigurations and ValidatingWebhookConfigurations
 * as kube-apiserver 1.20 (`admissionregistration` defaults per version, `ValidateValidatingWebhookConfiguration`):
 * the checks a test is likely to trip over (sideEffects, timeouts, policies, operations,
 * clientConfig, unique fully qualified names); label selectors are checked when matched.
 */
import type { ResourceStrategy } from '../../strategies/strategy.js';
import type { Defaulter } from '../defaults.js';
import type { Validator } from '../validation.js';
import { arr, o } from '../field-rules.js';

type Obj = Record<string, unknown>;

function dflt(x: Obj, key: string, value: unknown): void {
  if (x[key] === undefined || x[key] === null) x[key] = value;
}

function versionOf(c: Obj): string {
  const av = typeof c['apiVersion'] === 'string' ? c['apiVersion'] : '';
  return av.slice(av.indexOf('/') + 1);
}

function isMutating(c: Obj): boolean {
  return c['kind'] === 'MutatingWebhookConfiguration';
}

/** Defaults of each webhook in the configuration's version. */
const defaults: Defaulter = (c) => {
  const v1 = versionOf(c) === 'v1';
  for (const h of arr(c['webhooks'])) {
    const w = o(h);
    if (w === undefined) continue;
    dflt(w, 'failurePolicy', v1 ? 'Fail' : 'Ignore');
    dflt(w, 'matchPolicy', v1 ? 'Equivalent' : 'Exact');
    dflt(w, 'namespaceSelector', {});
    dflt(w, 'objectSelector', {});
    if (!v1) dflt(w, 'sideEffects', 'Unknown');
    dflt(w, 'timeoutSeconds', v1 ? 10 : 30);
    if (!v1) dflt(w, 'admissionReviewVersions', ['v1beta1']);
    if (isMutating(c)) dflt(w, 'reinvocationPolicy', 'Never');
    for (const r of arr(w['rules'])) {
      const rule = o(r);
      if (rule !== undefined) dflt(rule, 'scope', '*');
    }
    const svc = o(o(w['clientConfig'])?.['service']);
    if (svc !== undefined) dflt(svc, 'port', 443);
  }
};

const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const URL_FORM = '; desired format: https://host[/path]';

const validate: Validator = (c, cfg) => {
  const v1 = versionOf(cfg) === 'v1';
  const seen = new Set<string>();
  arr(cfg['webhooks']).forEach((h, i) => {
    const w = o(h) ?? {};
    const p = `webhooks[${i}]`;
    const name = typeof w['name'] === 'string' ? w['name'] : '';
    if (name === '') c.required(`${p}.name`);
    else if (!DNS_SUBDOMAIN.test(name)) c.invalidValue(`${p}.name`, name, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    else if (name.split('.').length < 3) c.invalidValue(`${p}.name`, name, 'should be a domain with at least three segments separated by dots');
    if (v1 && name !== '' && seen.has(name)) c.duplicate(`${p}.name`, name);
    seen.add(name);
    arr(w['rules']).forEach((r, j) => {
      const ops = arr(o(r)?.['operations']);
      if (ops.length === 0) c.required(`${p}.rules[${j}].operations`);
      ops.forEach((op, k) => {
        if (!OPERATIONS.includes(String(op))) c.unsupported(`${p}.rules[${j}].operations[${k}]`, op, OPERATIONS);
      });
    });
    const oneOf = (field: string, allowed: readonly string[]): void => {
      if (w[field] !== undefined && !allowed.includes(String(w[field]))) c.unsupported(`${p}.${field}`, w[field], allowed);
    };
    oneOf('failurePolicy', ['Fail', 'Ignore']);
    oneOf('matchPolicy', ['Equivalent', 'Exact']);
    const sideEffects = v1 ? ['None', 'NoneOnDryRun'] : ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
    if (w['sideEffects'] === undefined) c.required(`${p}.sideEffects`, `must specify one of ${sideEffects.join(', ')}`);
    else oneOf('sideEffects', sideEffects);
    const t = w['timeoutSeconds'];
    if (typeof t === 'number' && (t > 30 || t < 1)) c.invalidValue(`${p}.timeoutSeconds`, t, 'the timeout value must be between 1 and 30 seconds');
    if (v1 && arr(w['admissionReviewVersions']).length === 0) c.required(`${p}.admissionReviewVersions`, 'must specify one of v1, v1beta1');
    if (isMutating(cfg)) oneOf('reinvocationPolicy', ['IfNeeded', 'Never']);
    const cc = o(w['clientConfig']) ?? {};
    if ((cc['url'] === undefined) === (cc['service'] === undefined)) c.required(`${p}.clientConfig`, 'exactly one of url or service is required');
    else if (typeof cc['url'] === 'string') {
      let u: URL | undefined;
      try {
        u = new URL(cc['url']);
      } catch {
        c.required(`${p}.clientConfig.url`, `url must be a valid URL${URL_FORM}`);
      }
      if (u !== undefined && u.protocol !== 'https:') c.invalidValue(`${p}.clientConfig.url`, u.protocol.replace(/:$/, ''), `'https' is the only allowed URL scheme${URL_FORM}`);
      if (u !== undefined && u.search !== '') c.invalidValue(`${p}.clientConfig.url`, u.search.slice(1), 'query parameters are not permitted in the URL');
    }
  });
};

/** The strategy overrides of both configuration kinds (strict mode). */
export const webhookConfigurationStrategy: Partial<ResourceStrategy> = { defaults, validate };
