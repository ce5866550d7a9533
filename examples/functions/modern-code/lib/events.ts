/**
 * `EventTarget` and `AbortSignal` as the DOM standard orders them (DOM, "Dispatching events",
 * "AbortSignal"): a listener removed during a dispatch does not run, a passive listener
 * cannot cancel, an event cannot be dispatched while it is being dispatched, and
 * `AbortSignal.any` signals abort after their sources.
 */
export async function events() {
  return {
    removed_during_dispatch: removedDuringDispatch(),
    passive: passive(),
    redispatch: redispatch(),
    any_order: anyOrder(),
    timeout_reason: await timeoutReason(),
  };
}

function removedDuringDispatch(): string[] {
  const ran: string[] = [];
  const target = new EventTarget();
  const second = () => ran.push("second");
  target.addEventListener("ping", () => {
    ran.push("first");
    target.removeEventListener("ping", second);
  });
  target.addEventListener("ping", second);
  target.dispatchEvent(new Event("ping"));
  return ran;
}

function passive() {
  const target = new EventTarget();
  target.addEventListener("submit", (event) => event.preventDefault(), { passive: true });
  const event = new Event("submit", { cancelable: true });
  const notCancelled = target.dispatchEvent(event);
  return { dispatch_returned: notCancelled, default_prevented: event.defaultPrevented };
}

function redispatch(): string {
  const target = new EventTarget();
  let outcome = "no error";
  target.addEventListener("ping", (event) => {
    try {
      target.dispatchEvent(event);
    } catch (error) {
      outcome = (error as DOMException).name;
    }
  });
  target.dispatchEvent(new Event("ping"));
  return outcome;
}

function anyOrder(): string[] {
  const order: string[] = [];
  const controller = new AbortController();
  const combined = AbortSignal.any([controller.signal, new AbortController().signal]);
  combined.addEventListener("abort", () => order.push("combined"));
  controller.signal.addEventListener("abort", () => order.push("source"));
  controller.abort();
  return order;
}

function timeoutReason(): Promise<string> {
  const signal = AbortSignal.timeout(10);
  return new Promise((resolve) => {
    signal.addEventListener("abort", () => resolve((signal.reason as DOMException).name), { once: true });
  });
}
