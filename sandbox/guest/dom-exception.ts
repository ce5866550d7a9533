/** WebIDL §3.14.1 DOMException: the names and legacy codes the platform throws. */
const CODES: Record<string, number> = {
  IndexSizeError: 1,
  NotFoundError: 8,
  NotSupportedError: 9,
  InvalidStateError: 11,
  SyntaxError: 12,
  InvalidAccessError: 15,
  TypeMismatchError: 17,
  SecurityError: 18,
  NetworkError: 19,
  AbortError: 20,
  TimeoutError: 23,
  DataCloneError: 25,
  InvalidCharacterError: 5,
};

export class DOMException extends Error {
  constructor(message = "", name = "Error") {
    super(String(message));
    Object.defineProperty(this, "name", { value: String(name), writable: true, configurable: true });
  }
  get code(): number {
    return CODES[this.name] ?? 0;
  }
}
