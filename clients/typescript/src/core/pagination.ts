import { APIPromise, type RawResponse } from "./api-promise.ts";

/** `meta` of a numbered list (docs/api.md, "Lists"): `page` from 1, `per_page` 1–100. */
export interface PageMeta {
  total: number;
  page: number;
  per_page: number;
}

/** `meta` of a list that pages by cursor (`/v1/engines/{engine}/state`). */
export interface CursorPageMeta {
  next_cursor: string | null;
  limit: number;
}

/** How a list asks for its next page: by number, by cursor, or not at all (one page holds all). */
export type Pagination = "offset" | "cursor" | "single";

/** Fetches a page of the same list with other query parameters. */
export type PageFetcher<Item, Meta> = (query: Record<string, unknown>) => PagePromise<Item, Meta>;

/**
 * One page of a list: `data` and `meta` as the API sends them. Iterating it with `for await`
 * goes on through every later page, fetching each when the previous one is used up.
 */
export class Page<Item, Meta> implements AsyncIterable<Item> {
  readonly data: Item[];
  readonly meta: Meta;
  readonly response: Response;
  readonly #pagination: Pagination;
  readonly #query: Record<string, unknown>;
  readonly #fetch: PageFetcher<Item, Meta>;

  constructor(
    body: { data: Item[]; meta?: Meta },
    response: Response,
    list: { pagination: Pagination; query: Record<string, unknown>; fetch: PageFetcher<Item, Meta> },
  ) {
    this.data = body.data;
    this.meta = body.meta as Meta;
    this.response = response;
    this.#pagination = list.pagination;
    this.#query = list.query;
    this.#fetch = list.fetch;
  }

  /** The query of the next page, or undefined on the last one. */
  nextPageQuery(): Record<string, unknown> | undefined {
    if (this.data.length === 0) return undefined;
    if (this.#pagination === "offset") {
      const { page, per_page, total } = this.meta as PageMeta;
      return page * per_page < total ? { ...this.#query, page: page + 1, per_page } : undefined;
    }
    if (this.#pagination === "cursor") {
      const { next_cursor } = this.meta as CursorPageMeta;
      return next_cursor ? { ...this.#query, cursor: next_cursor } : undefined;
    }
    return undefined;
  }

  hasNextPage(): boolean {
    return this.nextPageQuery() !== undefined;
  }

  /** The next page; throws on the last one (check `hasNextPage()`). */
  getNextPage(): PagePromise<Item, Meta> {
    const query = this.nextPageQuery();
    if (!query) throw new Error("No next page: check hasNextPage() first");
    return this.#fetch(query);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the cursor moves from page to page
    let page: Page<Item, Meta> = this;
    for (;;) {
      yield* page.data;
      if (!page.hasNextPage()) return;
      page = await page.getNextPage();
    }
  }

  toJSON(): { data: Item[]; meta: Meta } {
    return { data: this.data, meta: this.meta };
  }
}

/**
 * What a list method returns: a promise of the first page, and an async iterable of every item of
 * every page (fetched lazily, `per_page` at a time).
 *
 * @example
 *   const page = await client.invoices.list({ status: "overdue", per_page: 10 });
 *   for await (const invoice of client.invoices.list({ status: "overdue" })) console.log(invoice.number);
 */
export class PagePromise<Item, Meta> extends APIPromise<Page<Item, Meta>> implements AsyncIterable<Item> {
  constructor(
    raw: Promise<RawResponse>,
    list: { pagination: Pagination; query: Record<string, unknown>; fetch: PageFetcher<Item, Meta> },
  ) {
    super(raw, ({ response, text }) => {
      const body = JSON.parse(text ?? "") as { data: Item[]; meta?: Meta };
      return new Page(body, response, list);
    });
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    yield* await this;
  }
}
