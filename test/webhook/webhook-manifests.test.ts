/** Webhook configurations and the CRD conversion stanza derived from webhook definitions. */
import { describe, expect, it } from 'vitest';
import type { ResourceType } from '../../src/api/resource.js';
import { allow, conversionWebhook, crdConversion, mutatingWebhook, validatingWebhook, webhookConfigurations } from '../../src/webhook/index.js';

const NODES: ResourceType = { apiVersion: 'v1', kind: 'Node', plural: 'nodes', namespaced: false };
const PODS: ResourceType = { apiVersion: 'v1', kind: 'Pod', plural: 'pods', namespaced: true };

describe('webhookConfigurations', () => {
  it('one configuration per type, one entry per webhook, with a URL target and the CA bundle', () => {
    const validateNodes = validatingWebhook({ resource: NODES, operations: ['UPDATE'], timeoutMs: 2_500, failurePolicy: 'Ignore', objectSelector: { matchLabels: { a: 'b' } }, validate: () => allow() });
    const docs = webhookConfigurations([validateNodes, conversionWebhook({ group: 'g.io', kind: 'K', plural: 'ks', hub: 'v2', spokes: {} })], {
      name: 'dev',
      target: { url: 'https://127.0.0.1:9443/' },
      caBundle: 'PEM',
    });
    expect(docs).toEqual([
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'dev' },
        webhooks: [
          {
            name: 'vnode.core.k8s.io',
            admissionReviewVersions: ['v1', 'v1beta1'],
            clientConfig: { url: 'https://127.0.0.1:9443/validate-core-v1-node', caBundle: Buffer.from('PEM').toString('base64') },
            rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['nodes'], scope: 'Cluster' }],
            matchPolicy: 'Equivalent',
            failurePolicy: 'Ignore',
            sideEffects: 'None',
            timeoutSeconds: 4,
            objectSelector: { matchLabels: { a: 'b' } },
          },
        ],
      },
    ]);
  });

  it('a resource without plural cannot be registered', () => {
    const w = mutatingWebhook({ resource: { apiVersion: 'v1', kind: 'Pod' }, mutate: () => undefined });
    expect(() => webhookConfigurations([w], { name: 'x', target: { url: 'https://h' } })).toThrow(/needs a plural/);
    expect(webhookConfigurations([mutatingWebhook({ resource: PODS, mutate: () => undefined })], { name: 'x', target: { url: 'https://h' } })[0]?.kind).toBe('MutatingWebhookConfiguration');
  });

  it('crdConversion: strategy Webhook, ConversionReview v1, the service and path', () => {
    const c = conversionWebhook({ group: 'g.io', kind: 'K', plural: 'ks', hub: 'v2', spokes: {} });
    expect(crdConversion(c, { target: { service: { name: 's', namespace: 'n' } } })).toEqual({
      strategy: 'Webhook',
      webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { name: 's', namespace: 'n', path: '/convert', port: 443 } } },
    });
  });
});
