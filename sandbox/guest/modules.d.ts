declare module "whatwg-url" {
  export class URLSearchParams {
    constructor(init?: string | Record<string, string> | Iterable<[string, string]> | URLSearchParams);
    append(name: string, value: string): void;
    delete(name: string, value?: string): void;
    get(name: string): string | null;
    getAll(name: string): string[];
    has(name: string, value?: string): boolean;
    set(name: string, value: string): void;
    sort(): void;
    toString(): string;
    entries(): IterableIterator<[string, string]>;
    [Symbol.iterator](): IterableIterator<[string, string]>;
    readonly size: number;
  }
  export class URL {
    constructor(url: string, base?: string | URL);
    static canParse(url: string, base?: string): boolean;
    static parse(url: string, base?: string): URL | null;
    href: string;
    readonly origin: string;
    protocol: string;
    username: string;
    password: string;
    host: string;
    hostname: string;
    port: string;
    pathname: string;
    search: string;
    readonly searchParams: URLSearchParams;
    hash: string;
    toString(): string;
    toJSON(): string;
  }
}

declare module "whatwg-url/lib/url-state-machine.js" {
  const stateMachine: {
    basicURLParse(input: string, options?: Record<string, unknown>): unknown;
    serializeURL(url: unknown): string;
  };
  export default stateMachine;
}

declare module "webidl-conversions" {
  type Converter = (value: unknown, options?: Record<string, unknown>) => string;
  const conversions: { DOMString: Converter; USVString: Converter; [name: string]: unknown };
  export default conversions;
}

declare module "whatwg-url/lib/URL-impl.js" {
  const urlImpl: {
    implementation: {
      new (globalObject: unknown, args: [string, string | undefined]): object;
      prototype: object;
      parse(this: void, globalObject: unknown, input: string, base?: string): object | null;
      canParse(this: void, url: string, base?: string): boolean;
    };
  };
  export default urlImpl;
}

declare module "whatwg-url/lib/URLSearchParams.js" {
  const searchParams: {
    createImpl(globalObject: unknown, args: [string], privateData: { doNotStripQMark: boolean }): unknown;
  };
  export default searchParams;
}

declare module "whatwg-url/lib/urlencoded.js" {
  const urlencoded: {
    parseUrlencodedString(this: void, input: string): Array<[string, string]>;
    serializeUrlencoded(this: void, tuples: Array<[string, string]>): string;
  };
  export default urlencoded;
}
