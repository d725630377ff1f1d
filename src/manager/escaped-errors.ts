/** How an error escaped: thrown where nothing catches it (a timer, an event handler) or a rejection nobody handles. */
export type EscapeOrigin = 'uncaughtException' | 'unhandledRejection';

/** Called, in the async context of the failing code, for every error that escapes asynchronously. */
export type EscapedErrorHandler = (error: unknown, origin: EscapeOrigin) => void;

const handlers = new Set<EscapedErrorHandler>();

function onUncaughtException(error: unknown): void {
  for (const handler of [...handlers]) handler(error, 'uncaughtException');
}

function onUnhandledRejection(reason: unknown): void {
  for (const handler of [...handlers]) handler(reason, 'unhandledRejection');
}

/**
 * Catches the errors that would otherwise end the process at once (`uncaughtException`,
 * `unhandledRejection`) and hands them to `handler` until the returned function is called. One
 * pair of process listeners serves every caller (every running manager), installed while any is
 * registered; without any, Node's default (print and exit) applies again.
 */
export function catchEscapedErrors(handler: EscapedErrorHandler): () => void {
  if (handlers.size === 0) {
    process.on('uncaughtException', onUncaughtException);
    process.on('unhandledRejection', onUnhandledRejection);
  }
  handlers.add(handler);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    handlers.delete(handler);
    if (handlers.size === 0) {
      process.off('uncaughtException', onUncaughtException);
      process.off('unhandledRejection', onUnhandledRejection);
    }
  };
}
