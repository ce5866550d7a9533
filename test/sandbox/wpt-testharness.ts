/**
 * A small stand-in for WPT's testharness.js, enough for the `dom/events`, `dom/abort`,
 * `streams` and `compression` `*.any.js` files (test/fixtures/wpt/): `test`, `async_test`,
 * `promise_test`, `setup`, `done`, `step_timeout`, the `assert_*` and `promise_rejects_*`
 * functions those files call, `EventWatcher`, and `garbageCollect` (/common/gc.js) as a
 * no-op. Plain JavaScript, so the same text runs in an isolate (wpt-dom.test.ts) and under Deno.
 *
 * `runWpt(title, body)` runs one file's code (`body`, a function holding the file and its
 * `META: script=` helpers) and resolves to `{ tests: [{ name, status, message }], harness }`,
 * `status` one of PASS, FAIL, TIMEOUT. As in testharness.js, a subtest fails when a step
 * throws; an exception no step caught (a listener's, reported as an `error` event on the global)
 * fails the subtest running at the time, or the harness when none is, unless the file calls
 * `setup({ allow_uncaught_exception: true })`. Subtests still open when none has finished for
 * `timeoutMs` time out.
 *
 * @example
 * const program = `${TESTHARNESS}\nconst result = await runWpt("title", () => { test(() => assert_true(true), "t"); });`;
 */
export const TESTHARNESS = String.raw`
const WPT_DOM_CODES = {
  IndexSizeError: 1, HierarchyRequestError: 3, WrongDocumentError: 4, InvalidCharacterError: 5,
  NoModificationAllowedError: 7, NotFoundError: 8, NotSupportedError: 9, InvalidStateError: 11,
  SyntaxError: 12, InvalidModificationError: 13, NamespaceError: 14, InvalidAccessError: 15,
  TypeMismatchError: 17, SecurityError: 18, NetworkError: 19, AbortError: 20, URLMismatchError: 21,
  QuotaExceededError: 22, TimeoutError: 23, InvalidNodeTypeError: 24, DataCloneError: 25,
};

class AssertionError extends Error {
  constructor(message) {
    super(message);
    this.name = "AssertionError";
  }
}

let wptState = null;

function wptShow(value) {
  try {
    if (typeof value === "string") return JSON.stringify(value);
    if (Object.is(value, -0)) return "-0";
    if (typeof value === "function") return "function " + (value.name || "(anonymous)");
    if (typeof value === "object" && value !== null) return "[object " + (value.constructor?.name ?? "Object") + "]";
    return String(value);
  } catch {
    return "(unprintable)";
  }
}

/** testharness.js's printer of values in messages; this one is shorter. */
const format_value = wptShow;

function wptDescribe(error) {
  try {
    return error && error.name ? error.name + ": " + error.message : String(error);
  } catch {
    return "an unprintable value";
  }
}

function wptMessage(error) {
  return error instanceof AssertionError ? error.message : "threw " + wptDescribe(error);
}

function assert(condition, description, message) {
  if (!condition) throw new AssertionError((description ? description + ": " : "") + message);
}

function same_value(x, y) {
  if (y !== y) return x !== x;
  if (x === 0 && y === 0) return 1 / x === 1 / y;
  return x === y;
}

function assert_true(actual, description) {
  assert(actual === true, description, "expected true got " + wptShow(actual));
}
function assert_false(actual, description) {
  assert(actual === false, description, "expected false got " + wptShow(actual));
}
function assert_equals(actual, expected, description) {
  assert(same_value(actual, expected), description, "expected " + wptShow(expected) + " but got " + wptShow(actual));
}
function assert_not_equals(actual, expected, description) {
  assert(!same_value(actual, expected), description, "got disallowed value " + wptShow(actual));
}
function assert_array_equals(actual, expected, description) {
  assert(actual && typeof actual === "object" && "length" in actual, description, "value is " + wptShow(actual) + ", expected array");
  assert(actual.length === expected.length, description, "lengths differ, expected " + expected.length + " got " + actual.length);
  for (let i = 0; i < actual.length; i++) {
    assert(same_value(actual[i], expected[i]), description,
      "expected property " + i + " to be " + wptShow(expected[i]) + " but got " + wptShow(actual[i]));
  }
}
function assert_object_equals(actual, expected, description) {
  assert(typeof actual === "object" && actual !== null, description, "value is " + wptShow(actual) + ", expected object");
  const check = (actual, expected, stack) => {
    stack.push(actual);
    for (const p in actual) {
      assert(Object.prototype.hasOwnProperty.call(expected, p), description, "unexpected property " + p);
      if (typeof actual[p] === "object" && actual[p] !== null) {
        if (!stack.includes(actual[p])) check(actual[p], expected[p], stack);
      } else {
        assert(same_value(actual[p], expected[p]), description,
          "property " + p + " expected " + wptShow(expected[p]) + " got " + wptShow(actual[p]));
      }
    }
    for (const p in expected) {
      assert(Object.prototype.hasOwnProperty.call(actual, p), description, "expected property " + p + " missing");
    }
    stack.pop();
  };
  check(actual, expected, []);
}
function assert_less_than(actual, expected, description) {
  assert(typeof actual === "number" && actual < expected, description,
    "expected a number less than " + wptShow(expected) + " but got " + wptShow(actual));
}
function assert_greater_than(actual, expected, description) {
  assert(typeof actual === "number" && actual > expected, description,
    "expected a number greater than " + wptShow(expected) + " but got " + wptShow(actual));
}
function assert_unreached(description) {
  assert(false, description, "Reached unreachable code");
}
function assert_js_error(constructor, thrown, description) {
  assert(typeof thrown === "object" && thrown !== null, description, "threw " + wptShow(thrown) + ", not an object");
  assert(thrown instanceof constructor, description, "threw " + wptDescribe(thrown) + ", not a " + constructor.name);
  assert(thrown.constructor === constructor && thrown.name === constructor.name, description,
    "threw " + thrown.name + ", expected " + constructor.name);
}
function assert_throws_js(constructor, func, description) {
  try {
    func.call(this);
  } catch (error) {
    assert_js_error(constructor, error, description);
    return;
  }
  assert(false, description, "did not throw");
}
function assert_throws_dom(type, func, description) {
  try {
    func.call(this);
  } catch (error) {
    const name = typeof type === "number" ? Object.keys(WPT_DOM_CODES).find((n) => WPT_DOM_CODES[n] === type) : type;
    assert(typeof error === "object" && error !== null, description, "threw " + wptShow(error) + ", not an object");
    assert(error.name === name, description, "threw " + error.name + ", expected " + name);
    assert(error.code === (WPT_DOM_CODES[name] ?? 0), description, "code " + error.code + ", expected " + (WPT_DOM_CODES[name] ?? 0));
    assert(error.constructor === DOMException, description, "not a DOMException");
    return;
  }
  assert(false, description, "did not throw");
}
function assert_throws_exactly(exception, func, description) {
  try {
    func.call(this);
  } catch (error) {
    assert(same_value(error, exception), description, "threw " + wptShow(error) + ", expected " + wptShow(exception));
    return;
  }
  assert(false, description, "did not throw");
}
function promise_rejects_js(test, constructor, promise, description) {
  return promise.then(
    () => assert_unreached("Should have rejected: " + (description ?? "")),
    (error) => assert_js_error(constructor, error, description),
  );
}
function promise_rejects_exactly(test, exception, promise, description) {
  return promise.then(
    () => assert_unreached("Should have rejected: " + (description ?? "")),
    (error) => assert_throws_exactly(exception, () => { throw error; }, description),
  );
}
function promise_rejects_dom(test, type, promise, description) {
  return promise.then(
    () => assert_unreached("Should have rejected: " + (description ?? "")),
    (error) => assert_throws_dom(type, () => { throw error; }, description),
  );
}

class Test {
  constructor(name) {
    this.name = name;
    this.status = "NOTRUN";
    this.message = null;
    this.finished = false;
    this.cleanups = [];
    this.completed = new Promise((resolve) => (this.resolveCompleted = resolve));
    // Its file's run, kept: a late timer of a finished file must not reach the next one's.
    this.run = wptState;
    this.run.tests.push(this);
  }
  step(func, thisObject, ...args) {
    if (this.finished) return undefined;
    const previous = this.run.current;
    this.run.current = this;
    try {
      return func.apply(arguments.length === 1 ? this : thisObject, args);
    } catch (error) {
      this.fail(error);
      return undefined;
    } finally {
      this.run.current = previous;
    }
  }
  step_func(func, thisObject) {
    const test = this;
    const self = arguments.length === 1 ? test : thisObject;
    return (...args) => test.step(func, self, ...args);
  }
  step_func_done(func, thisObject) {
    const test = this;
    const self = arguments.length === 1 ? test : thisObject;
    return (...args) => {
      const result = func ? test.step(func, self, ...args) : undefined;
      test.done();
      return result;
    };
  }
  unreached_func(description) {
    return this.step_func(() => assert_unreached(description));
  }
  step_timeout(func, ms, ...args) {
    return setTimeout(this.step_func(() => func(...args)), ms);
  }
  add_cleanup(func) {
    this.cleanups.push(func);
  }
  fail(error) {
    if (this.finished) return;
    this.status = "FAIL";
    this.message = wptMessage(error);
    this.done();
  }
  done() {
    if (this.finished) return;
    if (this.status === "NOTRUN") this.status = "PASS";
    this.finished = true;
    this.run.progress = Date.now();
    for (const cleanup of this.cleanups) {
      try {
        cleanup();
      } catch (error) {
        this.run.harness = { status: "ERROR", message: "cleanup " + wptMessage(error) };
      }
    }
    this.resolveCompleted();
  }
}

function wptName(name) {
  if (name) return String(name);
  const suffix = wptState.unnamed > 0 ? " " + wptState.unnamed : "";
  wptState.unnamed++;
  return wptState.title + suffix;
}

function test(func, name) {
  const t = new Test(wptName(name));
  t.step(func, t, t);
  t.done();
}
function async_test(func, name) {
  if (typeof func !== "function") return new Test(wptName(func));
  const t = new Test(wptName(name));
  t.step(func, t, t);
  return t;
}
function promise_test(func, name) {
  const t = new Test(wptName(name));
  wptState.chain = wptState.chain.then(async () => {
    try {
      const result = t.step(func, t, t);
      if (t.finished) return;
      await result;
      t.done();
    } catch (error) {
      t.fail(error);
    }
  });
}
function setup(options) {
  if (typeof options === "function") options = {};
  Object.assign(wptState.settings, options);
  if (options.single_test && !wptState.single) wptState.single = new Test(wptState.title);
}
function done() {
  if (wptState.single) wptState.single.done();
}
function step_timeout(func, ms, ...args) {
  return setTimeout(() => func(...args), ms);
}
/**
 * WPT's /common/gc.js: a best effort at a collection, which neither an isolate nor Deno
 * (without --expose-gc) can ask for. The tests that call it pass without a collection too.
 */
async function garbageCollect() {}

function EventWatcher(test, watchedNode, eventTypes, timeoutPromise) {
  const types = typeof eventTypes === "string" ? [eventTypes] : eventTypes;
  let waiting = null;
  const handler = test.step_func((event) => {
    assert_true(waiting !== null, "Not expecting event, but got " + event.type + " event");
    assert_equals(event.type, waiting.types[0], "Expected " + waiting.types[0] + " event, but got " + event.type);
    waiting.types.shift();
    waiting.seen.push(event);
    if (waiting.types.length > 0) return;
    const { resolve, seen, record } = waiting;
    waiting = null;
    resolve(record ? seen : event);
  });
  for (const type of types) watchedNode.addEventListener(type, handler);
  this.wait_for = (expected, options = {}) => {
    const list = typeof expected === "string" ? [expected] : [...expected];
    const waited = new Promise((resolve) => {
      waiting = { types: list, seen: [], record: options.record === "all", resolve };
    });
    if (!timeoutPromise) return waited;
    return Promise.race([
      waited,
      timeoutPromise().then(() => {
        throw new AssertionError("Timed out waiting on " + list.join(", "));
      }),
    ]);
  };
  this.stop_watching = () => {
    for (const type of types) watchedNode.removeEventListener(type, handler);
  };
  test.add_cleanup(this.stop_watching);
}

function wptUncaught(event) {
  event.preventDefault();
  if (!wptState) return;
  const error = wptMessage(event.error);
  if (wptState.single) wptState.single.fail(event.error);
  else if (wptState.settings.allow_uncaught_exception) return;
  else if (wptState.current) wptState.current.fail(new AssertionError("uncaught exception: " + error));
  else wptState.harness = { status: "ERROR", message: "uncaught exception: " + error };
}
addEventListener("error", wptUncaught);

async function runWpt(title, body, timeoutMs = 8000) {
  wptState = {
    title, tests: [], current: null, unnamed: 0, settings: {}, single: null,
    chain: Promise.resolve(), harness: { status: "OK", message: null }, progress: Date.now(),
  };
  const state = wptState;
  try {
    body();
  } catch (error) {
    if (state.single) state.single.fail(error);
    else state.harness = { status: "ERROR", message: "the file threw: " + wptMessage(error) };
  }
  let finished = false;
  const settled = (async () => {
    let count = -1;
    while (count !== state.tests.length) {
      count = state.tests.length;
      await state.chain;
      await Promise.all(state.tests.map((t) => t.completed));
    }
    finished = true;
  })();
  // Idle, not total: a busy machine slows a file of a hundred subtests, not one that never ends.
  while (!finished) {
    const idle = Date.now() - state.progress;
    if (idle >= timeoutMs) break;
    let timer;
    await Promise.race([settled, new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs - idle)))]);
    clearTimeout(timer);
  }
  for (const t of state.tests) {
    if (!t.finished) {
      t.status = "TIMEOUT";
      t.message = "no subtest finished in the last " + timeoutMs + " ms";
      t.finished = true;
    }
  }
  wptState = null;
  return {
    tests: state.tests.map((t) => ({ name: t.name, status: t.status, message: t.message })),
    harness: state.harness,
  };
}
`;

/** What `runWpt` resolves to, as it comes back from the isolate or Deno (JSON). */
export interface WptResult {
  tests: Array<{ name: string; status: string; message: string | null }>;
  harness: { status: string; message: string | null };
}

/** The names of the subtests that passed. */
export const passing = (result: WptResult): string[] =>
  result.tests.filter((t) => t.status === "PASS").map((t) => t.name);

/** "n/m passed", then the harness's status unless OK, then each subtest that did not pass and why. */
export function report(result: WptResult): string {
  const harness =
    result.harness.status === "OK" ? "" : `\n  harness ${result.harness.status}: ${result.harness.message}`;
  const failing = result.tests
    .filter((t) => t.status !== "PASS")
    .map((t) => `\n  ${t.status}: ${t.name}: ${t.message}`)
    .join("");
  return `${passing(result).length}/${result.tests.length} passed${harness}${failing}`;
}
