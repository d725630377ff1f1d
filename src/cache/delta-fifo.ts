import { from, Observable, type ObservableInput, type OperatorFunction, type Subscription } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import type { PoppedDeltas } from './delta.js';
import { DeltaQueue, type DeltaQueueOptions } from './delta-queue.js';
import type { FifoInput } from './fifo-op.js';

/** Options of {@link deltaFifo} without a processing step. */
export interface DeltaFifoOptions<T extends KubeObject = KubeObject> extends DeltaQueueOptions<T> {
  /**
   * Called once per subscription when the initial population has been processed (DF-12):
   * after the processing step of the last item of the first `replace` completed, or at once
   * when the first operation is not a `replace` or the first `replace` is empty.
   */
  readonly onSynced?: () => void;
}

/** Options of {@link deltaFifo} with a processing step. */
export interface DeltaFifoProcessOptions<T extends KubeObject, R> extends DeltaFifoOptions<T> {
  /**
   * The consumer. Called with one popped key at a time; the next key is popped only when the
   * returned input completes. Return an array (or a synchronously completing Observable) for a
   * synchronous step: arrays take a fast path with no subscription at all. While an asynchronous
   * step runs, operations keep arriving and coalesce into their key's single queue slot.
   * Errors thrown or emitted here error the output stream.
   */
  readonly process: (popped: PoppedDeltas<T>) => ObservableInput<R>;
}

/**
 * Client-go's DeltaFIFO as an operator (docs/semantics.md §1, DF-1…DF-12): reflector events or
 * {@link FifoInput} operations in, one {@link PoppedDeltas} per key out, the key's complete
 * history since it was last popped, oldest first; keys leave in the order they first entered
 * (FIFO across keys, no line jumping).
 *
 * **How the consumer signals readiness.** RxJS pushes, so the FIFO takes the consumer as its
 * `process` step (like `concatMap`): it pops a key, calls `process(popped)`, forwards what the
 * step emits, and pops the next key only when the step completes. While the step is busy the
 * FIFO keeps accepting operations, and every new delta for a key that is already waiting joins
 * that key's one slot; so a slow consumer sees at most one batch per key, however many events
 * arrived. Without `process` every key is emitted as soon as it is queued (a synchronous
 * subscriber is the consumer; there is nothing to coalesce into).
 *
 * (A separate "ready" notifier Observable was the alternative; taking the step keeps the
 * handshake inside the operator, so no caller can forget to signal, and a synchronous step costs
 * one function call per key with no scheduling.)
 *
 * Put the cache write at the start of the step, synchronously (`indexStore` does), so that
 * `knownObjects` reflects every popped key before the next operation is applied: a relist that
 * arrives while the step is busy must see the popped key as known to tombstone it correctly.
 *
 * Completion of the source closes the FIFO: waiting keys are still handed out, then the output
 * completes (DF-10). Source errors are forwarded at once. Bad input (no key, unknown operation,
 * transform error) goes to `onError` and changes nothing.
 *
 * ```
 * input:   -abcd-------------|   a: add a@1, b: update a@2, c: add b@1, d: update a@3
 * process: each step busy for 5 frames
 * output:  ------x----y----z-|   x: a [Added@1]   y: a [Updated@2, Updated@3]   z: b [Added@1]
 * ```
 * (`a` is popped at once; `b`, `c`, `d` arrive while it is processed, `d` joins `a`'s waiting slot
 * ahead of `b`; the output completes once the source has completed and the queue is empty.)
 *
 * @example
 * ```ts ignore (not compiled: shows the internal Indexer, applyDeltas and toInformerEvent)
 * const indexer = new Indexer<Pod>({ indexers: { byNode } });
 * listWatch(pods).pipe(
 *   deltaFifo({
 *     knownObjects: indexer,
 *     emitDeltaTypeReplaced: true,
 *     onSynced: () => synced$.next(true),
 *     process: (popped) => applyDeltas(indexer, popped).map(toInformerEvent), // synchronous
 *   }),
 * );
 * ```
 */
export function deltaFifo<T extends KubeObject, R>(options: DeltaFifoProcessOptions<T, R>): OperatorFunction<FifoInput<T>, R>;
export function deltaFifo<T extends KubeObject>(options?: DeltaFifoOptions<T>): OperatorFunction<FifoInput<T>, PoppedDeltas<T>>;
export function deltaFifo<T extends KubeObject, R>(
  options: DeltaFifoOptions<T> & { readonly process?: (popped: PoppedDeltas<T>) => ObservableInput<R> } = {},
): OperatorFunction<FifoInput<T>, R | PoppedDeltas<T>> {
  return (source) =>
    new Observable<R | PoppedDeltas<T>>((subscriber) => {
      const queue = new DeltaQueue<T>(options);
      const process = options.process;
      const onSynced = options.onSynced;
      let busy = false;
      let draining = false;
      let sourceDone = false;
      let inner: Subscription | undefined;

      const finished = (popped: PoppedDeltas<T>): void => {
        if (queue.processed(popped)) onSynced?.();
      };

      const drain = (): void => {
        if (draining) return;
        draining = true;
        try {
          while (!busy && !subscriber.closed) {
            const popped = queue.pop();
            if (popped === undefined) break;
            if (process === undefined) {
              subscriber.next(popped);
              finished(popped);
              continue;
            }
            let out: ObservableInput<R>;
            try {
              out = process(popped);
            } catch (err) {
              subscriber.error(err);
              return;
            }
            if (Array.isArray(out)) {
              for (const r of out as readonly R[]) subscriber.next(r);
              finished(popped);
              continue;
            }
            busy = true;
            const sub = from(out).subscribe({
              next: (r) => subscriber.next(r),
              error: (err: unknown) => subscriber.error(err),
              complete: () => {
                busy = false;
                inner = undefined;
                finished(popped);
                drain();
              },
            });
            if (busy) inner = sub;
          }
          if (sourceDone && !busy && queue.length === 0) subscriber.complete();
        } finally {
          draining = false;
        }
      };

      const sourceSub = source.subscribe({
        next: (input) => {
          if (queue.apply(input)) onSynced?.();
          drain();
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => {
          sourceDone = true;
          drain();
        },
      });

      return () => {
        sourceSub.unsubscribe();
        inner?.unsubscribe();
      };
    });
}
