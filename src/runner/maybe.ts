/** A value the call path may have at once (a synchronous store, check, policy or tool) or only later. */
export type Maybe<T> = T | Promise<T>;

/**
 * Goes on with `value` at once when it is not a promise, else once it settles: the call path's one way to
 * skip a wait it does not need. A call whose store, checks, policy and tool all answer at once reaches its
 * tool and its journaled answer without a wait (each wait of a fast call costs more than its checks).
 */
export function then<T, R>(value: Maybe<T>, next: (value: T) => Maybe<R>): Maybe<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
