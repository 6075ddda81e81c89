/**
 * recordFunction: torch.profiler.record_function. A labelled host span on whichever profiler is recording,
 * as a disposable scope (`using _ = recordFunction('x')`) or as a function wrapper
 * (`const f = recordFunction('x', fn)`, async functions end when their promise settles).
 * With no profiler recording, the scope is a shared no-op object.
 */
import type { Args } from '../model/trace.js';
import { activeRecorder, type SpanToken } from './recorder.js';

export interface RecordScope extends Disposable {
  end(): void;
}

const NOOP: RecordScope = { end() {}, [Symbol.dispose]() {} };

class Scope implements RecordScope {
  constructor(private readonly span: SpanToken) {}
  end(): void { this.span.end(); }
  [Symbol.dispose](): void { this.span.end(); }
}

const CATEGORY = 'user_annotation';

// `never[]` parameters accept every function type without `any`.
type AnyFn = (...args: never[]) => unknown;

export function recordFunction(name: string, args?: Args): RecordScope;
export function recordFunction<F extends AnyFn>(name: string, fn: F): F;
export function recordFunction<F extends AnyFn>(name: string, args: Args | undefined, fn: F): F;
export function recordFunction<F extends AnyFn>(name: string, a?: Args | F, b?: F): RecordScope | F {
  const fn = typeof a === 'function' ? a : b;
  const args = typeof a === 'function' ? undefined : a;
  if (!fn) {
    const span = activeRecorder()?.beginSpan(name, CATEGORY, args);
    return span ? new Scope(span) : NOOP;
  }
  const wrapped = function (this: unknown, ...callArgs: unknown[]): unknown {
    const span = activeRecorder()?.beginSpan(name, CATEGORY, args);
    if (!span) return fn.apply(this, callArgs as never[]);
    let result: unknown;
    try {
      result = fn.apply(this, callArgs as never[]);
    } catch (err) {
      span.end();
      throw err;
    }
    if (result !== null && typeof result === 'object' && typeof (result as Promise<unknown>).then === 'function') {
      return (result as Promise<unknown>).then(
        (v) => { span.end(); return v; },
        (err: unknown) => { span.end(); throw err; },
      );
    }
    span.end();
    return result;
  };
  Object.defineProperty(wrapped, 'name', { value: fn.name || name });
  return wrapped as unknown as F;
}
