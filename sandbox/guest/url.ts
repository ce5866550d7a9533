import { URL, URLSearchParams } from "whatwg-url";

/** URL Standard from whatwg-url (the reference implementation); IDNA loads on first non-ASCII host. */
export { URL, URLSearchParams };
