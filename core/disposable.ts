import { AppError } from "./errors.ts";

/**
 * Every long-lived thing has an owner and a dispose(), which `await using` calls too: explicit
 * resource management's `Symbol.asyncDispose` (defined from Node 20 on; tests' `await using` is
 * lowered by vitest's esbuild).
 */
export interface Disposable {
  dispose(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Gives `owner` its `[Symbol.asyncDispose]`, which calls its `dispose()`: an owner is written
 * `return disposable({ …, async dispose() { … } })`, typed by what the function returns (or name
 * it: `disposable<Store>(…)`). The method calls `this.dispose()`, so a copy that replaces
 * `dispose` (`{ ...store, dispose }`) is disposed by its own.
 */
export function disposable<T extends Disposable>(owner: Omit<T, typeof Symbol.asyncDispose>): T {
  return Object.assign(owner, { [Symbol.asyncDispose]: disposeThis }) as unknown as T;
}

function disposeThis(this: { dispose(): Promise<void> }): Promise<void> {
  return this.dispose();
}

/**
 * Owns a stack of disposables and tears them down in reverse order of
 * registration (graphile-worker's `withReleasers`).
 */
export class Releasers implements Disposable {
  #stack: Array<{ name: string; release: () => Promise<void> | void }> = [];
  #disposed = false;

  add(name: string, release: () => Promise<void> | void): void {
    if (this.#disposed) throw new AppError("disposed", `cannot add ${name}: already disposed`);
    this.#stack.push({ name, release });
  }

  /**
   * Releases every part, in reverse order of `add`, even when one fails; `onError` hears of each
   * failure as it happens (the owner logs the part by name). Then throws the failure, or, when
   * several parts failed, an AggregateError of them all, in the order they failed.
   */
  async dispose(onError?: (name: string, error: unknown) => void): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    const failures: Array<{ name: string; error: unknown }> = [];
    for (const { name, release } of this.#stack.reverse()) {
      try {
        await release();
      } catch (error) {
        failures.push({ name, error });
        onError?.(name, error);
      }
    }
    this.#stack = [];
    if (failures.length === 1) throw failures[0]!.error;
    if (failures.length > 1) {
      const names = failures.map((failure) => failure.name).join(", ");
      throw new AggregateError(
        failures.map((failure) => failure.error),
        `${failures.length} parts failed to dispose: ${names}`,
      );
    }
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }
}
