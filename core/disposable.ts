import { AppError } from "./errors.ts";

/** Every long-lived thing has an owner and a dispose(). */
export interface Disposable {
  dispose(): Promise<void>;
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

  async dispose(onError?: (name: string, error: unknown) => void): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const { name, release } of this.#stack.reverse()) {
      try {
        await release();
      } catch (error) {
        onError?.(name, error);
      }
    }
    this.#stack = [];
  }
}
