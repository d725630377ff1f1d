// Reports whether each Widget is usable as a `Ready` condition in its status, with the generation
// it was computed from. `lastTransitionTime` moves only when the condition's status changes.
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { conditions, controller, type Condition, type Controller, type InformerFactory, type KubeClient } from 'rxkube';
import { WIDGETS, type Widget } from './widget.js';

export const MAX_SIZE = 10;

export function widgetStatusController(client: KubeClient, informers: InformerFactory, scheduler: SchedulerLike = asyncScheduler): Controller<Widget> {
  return controller({
    name: 'widget-status',
    for: WIDGETS,
    client,
    informers,
    scheduler,
    reconcile: async (_request, ctx) => {
      const widget = ctx.object;
      if (widget === undefined) return;
      const generation = widget.metadata.generation;
      const ready: Condition = widget.spec.size <= MAX_SIZE
        ? { type: 'Ready', status: 'True', reason: 'SizeAccepted', message: `size ${widget.spec.size}`, observedGeneration: generation }
        : { type: 'Ready', status: 'False', reason: 'TooLarge', message: `size ${widget.spec.size} > ${MAX_SIZE}`, observedGeneration: generation };
      const now = scheduler.now(); // fixed before the edit: a recipe may run again after a conflict
      // A draft edit of the /status subresource: only what differs is sent, nothing when nothing does.
      await ctx.editStatus((draft) => {
        draft.status = { ...draft.status, observedGeneration: generation, conditions: [...conditions.set(draft.status?.conditions, ready, now)] };
      });
    },
  });
}
