/** One answer as the transport got it. */
export interface RawResponse {
  /** The response; for a buffered request its body is `text`, readable again. */
  response: Response;
  /** The body, read within the attempt (and its timeout); absent for a stream. */
  text?: string;
  /** Aborts a streamed body (a stream's `abort()`). */
  abort?: () => void;
}

/**
 * What every method returns: a promise of the parsed answer, which also gives the raw response.
 * The request is sent when the method is called; the body is parsed when the promise is awaited.
 *
 * @example
 *   const invoice = await client.invoices.retrieve(id);
 *   const { data, response } = await client.invoices.retrieve(id).withResponse();
 *   response.headers.get("x-ratelimit-remaining");
 */
export class APIPromise<T> implements PromiseLike<T> {
  readonly #raw: Promise<RawResponse>;
  readonly #parse: (raw: RawResponse) => T | Promise<T>;
  #parsed: Promise<T> | undefined;

  constructor(raw: Promise<RawResponse>, parse: (raw: RawResponse) => T | Promise<T>) {
    this.#raw = raw;
    this.#parse = parse;
  }

  #result(): Promise<T> {
    this.#parsed ??= this.#raw.then((raw) => this.#parse(raw));
    return this.#parsed;
  }

  then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#result().then(onfulfilled, onrejected);
  }

  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.#result().catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#result().finally(onfinally);
  }

  /** The parsed answer and the response it came in (headers: `x-request-id`, `x-ratelimit-remaining`…). */
  async withResponse(): Promise<{ data: T; response: Response }> {
    const [data, raw] = await Promise.all([this.#result(), this.#raw]);
    return { data, response: raw.response };
  }

  /** The response itself, unparsed (a non-2xx answer still throws its `APIError`). */
  async asResponse(): Promise<Response> {
    return (await this.#raw).response;
  }

  get [Symbol.toStringTag](): string {
    return "APIPromise";
  }
}

/** A JSON body, or `undefined` for an empty one (204). */
export function parseJSON<T>(raw: RawResponse): T {
  const text = raw.text ?? "";
  return (text === "" ? undefined : JSON.parse(text)) as T;
}
