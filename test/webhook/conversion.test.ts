/**
 * Conversion through a hub version: ConversionReview v1 answered with every object converted, or
 * a Failure naming the object; and (property) every object of the example's CRD round-trips
 * through the hub unchanged, in both directions.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { conversionWebhook, reviewConversion, spoke } from '../../src/webhook/index.js';
import { BACKUPS_ANNOTATION, convertDatabases } from '../../examples/custom-resource/database-webhooks.js';
import type { DatabaseV1, DatabaseV2 } from '../../examples/custom-resource/database.generated.js';

const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/);
const labelMap = fc.dictionary(fc.stringMatching(/^[a-z]([a-z0-9./-]{0,20}[a-z0-9])?$/), fc.string({ maxLength: 10 }), { minKeys: 1, maxKeys: 4 });
const plainAnnotations = labelMap.filter((m) => !(BACKUPS_ANNOTATION in m));
const status = fc.record({ phase: fc.constantFrom('Ready' as const, 'OverQuota' as const), endpoint: fc.string({ maxLength: 12 }), observedGeneration: fc.nat() }, { requiredKeys: [] });
const metadataBase = fc.record({ name, namespace: name, uid: fc.uuid(), resourceVersion: fc.nat().map(String), generation: fc.nat(), labels: labelMap }, { requiredKeys: ['name', 'namespace'] });

const v1: fc.Arbitrary<DatabaseV1> = fc
  .record(
    {
      metadata: fc.tuple(metadataBase, fc.option(fc.record({ plain: fc.option(plainAnnotations, { nil: undefined }), backups: fc.option(fc.constantFrom('true', 'false'), { nil: undefined }) }), { nil: undefined })).map(([m, a]) => {
        if (a === undefined) return m;
        const annotations = { ...a.plain, ...(a.backups === undefined ? {} : { [BACKUPS_ANNOTATION]: a.backups }) };
        return { ...m, annotations };
      }),
      spec: fc.record({ team: fc.string({ maxLength: 10 }), sizeGi: fc.integer({ min: 1, max: 1000 }) }, { requiredKeys: [] }),
      status,
    },
    { requiredKeys: ['metadata'] },
  )
  .map((o) => ({ apiVersion: 'example.com/v1' as const, kind: 'Database' as const, ...o }));

const v2: fc.Arbitrary<DatabaseV2> = fc
  .record(
    {
      metadata: fc.tuple(metadataBase, fc.option(plainAnnotations, { nil: undefined })).map(([m, a]) => (a === undefined ? m : { ...m, annotations: a })),
      spec: fc.record(
        { owner: fc.record({ team: fc.string({ maxLength: 10 }) }), storage: fc.record({ sizeGi: fc.integer({ min: 1, max: 1000 }) }), backups: fc.record({ enabled: fc.boolean() }) },
        { requiredKeys: [] },
      ),
      status,
    },
    { requiredKeys: ['metadata'] },
  )
  .map((o) => ({ apiVersion: 'example.com/v2' as const, kind: 'Database' as const, ...o }));

describe('the example CRD: every object round-trips through the hub unchanged (property)', () => {
  it('v1 → v2 (hub) → v1', () => {
    fc.assert(
      fc.property(v1, (object) => {
        const hub = convertDatabases.convert(object, 'example.com/v2');
        expect(hub.apiVersion).toBe('example.com/v2');
        expect(convertDatabases.convert(hub, 'example.com/v1')).toEqual(object);
      }),
    );
  });

  it('v2 (hub) → v1 → v2', () => {
    fc.assert(
      fc.property(v2, (object) => {
        const spokeObject = convertDatabases.convert(object, 'example.com/v1');
        expect(spokeObject.apiVersion).toBe('example.com/v1');
        expect(convertDatabases.convert(spokeObject, 'example.com/v2')).toEqual(object);
      }),
    );
  });

  it('keeps v2-only data in v1 as an annotation', () => {
    const hub: DatabaseV2 = { apiVersion: 'example.com/v2', kind: 'Database', metadata: { name: 'a', namespace: 'n' }, spec: { owner: { team: 't' }, backups: { enabled: true } } };
    expect(convertDatabases.convert(hub, 'example.com/v1')).toEqual({
      apiVersion: 'example.com/v1',
      kind: 'Database',
      metadata: { name: 'a', namespace: 'n', annotations: { [BACKUPS_ANNOTATION]: 'true' } },
      spec: { team: 't' },
    });
  });
});

type Widget = KubeObject & { spec?: { size?: number; sizeText?: string; big?: boolean } };
const widgets = conversionWebhook<Widget>({
  group: 'example.com',
  kind: 'Widget',
  plural: 'widgets',
  hub: 'v3',
  spokes: {
    v1: spoke<Widget, Widget>({ toHub: (w) => ({ ...w, spec: { size: Number(w.spec?.sizeText) } }), fromHub: (h) => ({ ...h, spec: { sizeText: String(h.spec?.size) } }) }),
    v2: spoke<Widget, Widget>({
      toHub: (w) => ({ ...w, spec: { size: w.spec?.big === true ? 100 : 1 } }),
      fromHub: (h) => {
        if (h.spec?.size === 13) throw new Error('13 has no v2 form');
        return { ...h, metadata: { ...h.metadata, name: 'renamed', labels: { converted: 'yes' } }, spec: { big: (h.spec?.size ?? 0) > 10 } };
      },
    }),
  },
});

function conversionReview(objects: unknown[], desired = 'example.com/v2', apiVersion = 'apiextensions.k8s.io/v1'): unknown {
  return { apiVersion, kind: 'ConversionReview', request: { uid: 'c-1', desiredAPIVersion: desired, objects } };
}
const widget = (version: string, spec: Widget['spec'], name = 'w'): Widget => ({ apiVersion: `example.com/${version}`, kind: 'Widget', metadata: { name, namespace: 'ns' }, spec });

describe('ConversionReview', () => {
  it('converts every object, spoke to spoke through the hub, in order; Success', () => {
    const out = reviewConversion(widgets, conversionReview([widget('v1', { sizeText: '50' }, 'a'), widget('v3', { size: 2 }, 'b'), widget('v2', { big: true }, 'c')]));
    expect(out.succeeded).toBe(true);
    expect(out.review).toEqual({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      response: {
        uid: 'c-1',
        result: { status: 'Success' },
        convertedObjects: [
          { apiVersion: 'example.com/v2', kind: 'Widget', metadata: { name: 'a', namespace: 'ns', labels: { converted: 'yes' } }, spec: { big: true } },
          { apiVersion: 'example.com/v2', kind: 'Widget', metadata: { name: 'b', namespace: 'ns', labels: { converted: 'yes' } }, spec: { big: false } },
          widget('v2', { big: true }, 'c'),
        ],
      },
    });
  });

  it('only labels and annotations of metadata may change (the converter renaming is undone)', () => {
    const out = reviewConversion(widgets, conversionReview([widget('v1', { sizeText: '5' }, 'keep')]));
    const [converted] = (out.review.response as { convertedObjects: KubeObject[] }).convertedObjects;
    expect(converted?.metadata).toEqual({ name: 'keep', namespace: 'ns', labels: { converted: 'yes' } });
  });

  it('answers apiextensions.k8s.io/v1beta1 in v1beta1', () => {
    expect(reviewConversion(widgets, conversionReview([], 'example.com/v1', 'apiextensions.k8s.io/v1beta1')).review.apiVersion).toBe('apiextensions.k8s.io/v1beta1');
  });

  it('a converter that throws fails the whole review, naming the object and the cause', () => {
    const out = reviewConversion(widgets, conversionReview([widget('v1', { sizeText: '1' }), widget('v3', { size: 13 }, 'thirteen')]));
    expect(out.succeeded).toBe(false);
    expect(out.review.response).toEqual({
      uid: 'c-1',
      convertedObjects: [],
      result: { status: 'Failure', message: 'webhook /convert (example.com/v3 ns/thirteen to example.com/v2): handler failed: 13 has no v2 form' },
    });
  });

  it.each([
    ['an unknown source version', conversionReview([widget('v9', {})]), 'unknown source version example.com/v9 (known: v3, v1, v2)'],
    ['an unknown desired version', conversionReview([widget('v1', {})], 'example.com/v7'), 'unknown desired version example.com/v7'],
    ['another group', conversionReview([widget('v1', {})], 'other.io/v1'), 'desired apiVersion "other.io/v1" is not in group example.com'],
    ['no uid', { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { desiredAPIVersion: 'example.com/v1', objects: [] } }, 'bad review (request.uid): missing'],
    ['no objects list', { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'u', desiredAPIVersion: 'example.com/v1' } }, 'bad review (request.objects): expected a list'],
    ['an AdmissionReview', { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }, 'bad review (kind)'],
  ])('%s: Failure with a message', (_what, body, message) => {
    const out = reviewConversion(widgets, body);
    expect(out.succeeded).toBe(false);
    expect((out.review.response as { result: { status: string; message: string } }).result.status).toBe('Failure');
    expect((out.review.response as { result: { message: string } }).result.message).toContain(message);
  });

  it('the hub cannot also be a spoke', () => {
    expect(() => conversionWebhook<Widget>({ group: 'g', kind: 'K', plural: 'ks', hub: 'v1', spokes: { v1: spoke<Widget, Widget>({ toHub: (w) => w, fromHub: (h) => h }) } })).toThrow(/hub version v1 must not also be a spoke/);
  });
});
