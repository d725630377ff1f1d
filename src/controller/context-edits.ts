import type { Cached, KubeObject } from '../api/kube-object.js';
import type { Recipe } from '../client/draft-patch.js';
import type { EditOptions } from '../client/update-with-recipe.js';
import { ControllerError } from './controller-errors.js';
import type { ReconcileContext } from './reconcile-context.js';

/** A reconcile context before {@link withEdits} adds `edit` and `editStatus`. */
export type ContextWithoutEdits<T extends KubeObject> = Omit<ReconcileContext<T>, 'edit' | 'editStatus'>;

/**
 * Adds `edit` and `editStatus` to a reconcile context: both edit the newest copy of the reconciled
 * object this reconcile has seen (`ctx.object`, then each edit's result) through `ctx.objects()`,
 * with the reconcile's signal and store unless the options give others.
 */
export function withEdits<T extends KubeObject>(ctx: ContextWithoutEdits<T>): ReconcileContext<T> {
  let latest: T | undefined = ctx.object;
  const run = async (recipe: Recipe<Cached<T>>, options: EditOptions<T> | undefined, status: boolean): Promise<T> => {
    const target = latest;
    if (target === undefined) {
      const { namespace, name } = ctx.request;
      throw new ControllerError(`${status ? 'editStatus' : 'edit'}: no cached object ${namespace ? `${namespace}/` : ''}${name} to edit`);
    }
    const client = ctx.objects();
    const o: EditOptions<T> = { signal: ctx.signal, store: ctx.store, ...options };
    // The draft is of `target` or a copy re-read from the cache or server: metadata is there.
    const onDraft = recipe as Recipe<T>;
    const updated = await (status ? client.editStatus(target, onDraft, o) : client.edit(target, onDraft, o));
    latest = updated;
    return updated;
  };
  return {
    ...ctx,
    edit: (recipe, options) => run(recipe, options, false),
    editStatus: (recipe, options) => run(recipe, options, true),
  };
}
