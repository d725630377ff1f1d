// Each Widget is listed in a ConfigMap of another namespace (`registry`), where an owner reference
// cannot reach: a finalizer keeps the Widget until its entry is removed.
import { finalizer, controller, resources, type Controller, type InformerFactory, type KubeClient } from 'rxkube';
import { WIDGETS, type Widget } from './widget.js';

export const FINALIZER = 'cookbook.example.com/registry-entry';
export const REGISTRY_NAMESPACE = 'registry';

export function widgetRegistryController(client: KubeClient, informers: InformerFactory): Controller<Widget> {
  return controller({
    name: 'widget-registry',
    for: WIDGETS,
    client,
    informers,
    permissions: [
      { resource: WIDGETS, verbs: ['patch'] }, // the finalizer's edits
      { resource: resources.configMaps, verbs: ['patch', 'delete'] },
    ],
    reconcile: async (request, ctx) => {
      const widget = ctx.object;
      if (widget === undefined) return; // gone: its finalizer ran
      const entries = ctx.objects(resources.configMaps, REGISTRY_NAMESPACE);
      const entry = `${request.namespace}.${request.name}`;
      return finalizer(widget, {
        name: FINALIZER,
        client: ctx.objects(),
        signal: ctx.signal,
        apply: async () => { // runs once the finalizer is on the Widget
          await entries.apply({ metadata: { name: entry }, data: { color: widget.spec.color ?? 'none' } }, { force: true, signal: ctx.signal });
        },
        cleanup: async () => { // runs once the Widget is being deleted; must be idempotent
          await entries.delete(entry, { ignoreNotFound: true, signal: ctx.signal });
        },
      });
    },
  });
}
