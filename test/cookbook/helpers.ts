/** Shared by the cookbook's tests: the Widget fixtures. */
import type { KubeObject } from 'rxkube';

/** A Widget to create. */
export function widget(name: string, size: number, namespace = 'default'): KubeObject {
  return { apiVersion: 'cookbook.example.com/v1', kind: 'Widget', metadata: { name, namespace }, spec: { size } } as KubeObject;
}
