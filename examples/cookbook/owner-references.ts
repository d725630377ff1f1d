// Each Widget owns a ConfigMap `<widget>-config`. The owner reference makes the ConfigMap's events
// wake its Widget (`owns`) and lets the garbage collector delete it once the Widget is gone.
import { controller, ownerRefs, resources, type Controller, type InformerFactory, type KubeClient } from 'rxkube';
import { WIDGETS, type Widget } from './widget.js';

export function widgetConfigController(client: KubeClient, informers: InformerFactory): Controller<Widget> {
  return controller({
    name: 'widget-config',
    for: WIDGETS,
    owns: [resources.configMaps], // an event of an owned ConfigMap enqueues its controller owner
    client,
    informers,
    permissions: [ // for the manager's derived RBAC (mgr.rbac())
      { resource: resources.configMaps, verbs: ['create', 'patch'] }, // an apply that creates needs both
      { resource: WIDGETS, subresource: 'finalizers', verbs: ['update'] }, // blockOwnerDeletion, where enforced
    ],
    reconcile: async (request, ctx) => {
      const widget = ctx.object;
      if (widget === undefined) return; // deleted: the garbage collector removes what it owned
      const config = ownerRefs.setControllerReference(
        widget,
        { metadata: { name: `${request.name}-config`, namespace: request.namespace }, data: { size: String(widget.spec.size) } },
        { type: WIDGETS }, // apiVersion and kind of the owner, which cached list items may lack
      );
      await ctx.objects(resources.configMaps, request.namespace).apply(config, { force: true, signal: ctx.signal });
    },
  });
}
