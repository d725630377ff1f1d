/**
 * The setup the CRD conversion tests share: a `Widget` kind served in v1 (the storage version,
 * `spec.size`) and v2 (`spec.replicas`), a fake ConversionReview webhook converting between them,
 * and an embedded API server with the CRDs created.
 */
import { expect } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient } from './helpers.js';
import { startFakeWebhook, type FakeWebhook, type Json } from './webhook-fixture.js';

/** A ConversionReview as the webhook receives it. */
export type ConversionReview = Json & { request: Json & { objects: (Json & { spec?: Json })[]; desiredAPIVersion: string; uid: string } };

/** The webhook's answer converting every object of `review`: v1 has `spec.size`, v2 `spec.replicas`. */
export function convertWidgets(review: Json & { request: Json }): Json {
  const req = (review as ConversionReview).request;
  const convertedObjects = req.objects.map((o) => {
    const spec = { ...(o.spec ?? {}) };
    if (req.desiredAPIVersion.endsWith('/v2') && 'size' in spec) {
      spec['replicas'] = spec['size'];
      delete spec['size'];
    } else if (req.desiredAPIVersion.endsWith('/v1') && 'replicas' in spec) {
      spec['size'] = spec['replicas'];
      delete spec['replicas'];
    }
    return { ...o, apiVersion: req.desiredAPIVersion, spec };
  });
  return { apiVersion: review['apiVersion'], kind: 'ConversionReview', response: { uid: req.uid, convertedObjects, result: { status: 'Success' } } };
}

/** The webhook's answer refusing to convert `review`, with `message`. */
export function conversionFailure(review: Json & { request: Json }, message: string): Json {
  return { apiVersion: review['apiVersion'], kind: 'ConversionReview', response: { uid: review.request['uid'], result: { status: 'Failure', message } } };
}

/** A CRD's `spec.conversion` calling the webhook at `url` (trusting `caBundle`). */
export function webhookConversion(url: string, caBundle: string): Json {
  return { strategy: 'Webhook', webhook: { clientConfig: { url, caBundle }, conversionReviewVersions: ['v1'] } };
}

/**
 * The CRD `widgets.<group>`: namespaced, served in v1 (storage) and v2, any fields; with
 * `conversion` as given (none: strategy None) and, when asked, the status subresource.
 */
export function widgetCrd(group: string, { conversion, statusSubresource = false }: { conversion?: Json; statusSubresource?: boolean } = {}): Json {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `widgets.${group}` },
    spec: {
      group, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: ['v1', 'v2'].map((name) => ({
        name, served: true, storage: name === 'v1',
        ...(statusSubresource ? { subresources: { status: {} } } : {}),
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      })),
      ...(conversion !== undefined ? { conversion } : {}),
    },
  };
}

/** A running conversion setup. */
export interface ConversionSetup {
  /** The fake conversion webhook, answering with {@link convertWidgets} until told otherwise. */
  readonly wh: FakeWebhook;
  readonly server: ApiServer;
  /** A client of `server`. */
  readonly call: ReturnType<typeof makeClient>;
  /** The webhook back to {@link convertWidgets}, with no calls recorded (after each test). */
  reset(): void;
  close(): Promise<void>;
}

/**
 * Starts the fake conversion webhook and an API server, and creates the CRDs `crds` names for
 * that webhook (each must be created: 201). Whatever started is closed again when a step fails.
 */
export async function startConversionSetup(crds: (wh: FakeWebhook) => readonly Json[]): Promise<ConversionSetup> {
  const wh = await startFakeWebhook(convertWidgets);
  let server: ApiServer | undefined;
  try {
    server = await startApiServer();
    const call = makeClient(server.url);
    for (const crd of crds(wh)) expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
    const started = server;
    return {
      wh,
      server: started,
      call,
      reset: () => {
        wh.calls.length = 0;
        wh.handler = convertWidgets;
      },
      close: async () => {
        await started.close();
        await wh.close();
      },
    };
  } catch (err) {
    await server?.close();
    await wh.close();
    throw err;
  }
}
