// The custom resource the cookbook's recipes reconcile: a namespaced Widget with a status
// subresource. (For your own CRDs, `npx rxkube generate-types` writes this file from the CRD.)
import type { Condition, KubeObject, ResourceType } from 'rxkube';

export interface Widget extends KubeObject {
  readonly apiVersion?: 'cookbook.example.com/v1';
  readonly kind?: 'Widget';
  readonly spec: { readonly size: number; readonly color?: string };
  readonly status?: { readonly observedGeneration?: number; readonly conditions?: readonly Condition[] };
}

export const WIDGETS: ResourceType<Widget> = { apiVersion: 'cookbook.example.com/v1', kind: 'Widget', plural: 'widgets', namespaced: true };

/** The CRD that serves Widgets (create it once: `kubectl apply`, or `cluster.create(WIDGET_CRD)` in a test). */
export const WIDGET_CRD: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.cookbook.example.com' },
  spec: {
    group: 'cookbook.example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [{
      name: 'v1', served: true, storage: true,
      subresources: { status: {} },
      schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
    }],
  },
} as KubeObject;
