import { followPages } from "./follow.ts";

/** The docs test (follow.ts), the pages that fall to this file: one of four, so the workers share them. */
followPages(3, 4);
